// What a diff could not have seen: the detectability floor of each comparison.
//
// For each non-base side against the base, the smallest growth in percentage
// points that diff_profiles() would call "changed" with 80% power at its
// false discovery rate, for a row holding 1%, 5% and 20% of the samples; and
// what would halve it. `kprof diff` prints it after the tables; `kprof diff
// --plan` prints only it, from pilot profiles, to size a real experiment.
// Reads DiffInput / DiffResult and report/noise.h only; pure, no I/O.
//
// Contract and why:
// - Multiple testing. With one real change among m tested rows (rows with
//   samples on either side, as the diff counts them), Benjamini–Hochberg's
//   threshold for that row is alpha / m (rank 1), as Bonferroni's. So the
//   floor tests each row two-sided at alpha / m: conservative (BH can only
//   be more lenient) and independent of what else changed.
// - Sampling statistics (a side with one run; counts n1, n2 summed over runs):
//   the two-proportion power equation (Fleiss) for growth from P to P + d,
//     d = z(alpha/m) sqrt(pbar qbar (1/n1 + 1/n2)) + z(power) sqrt(p1 q1/n1 + p2 q2/n2),
//   pbar the pooled share, solved for d. Newcombe's score interval behaves
//   like the pooled-variance test, and the grown share's larger variance
//   matters when d is comparable to P (a 1% row at ~2,000 samples has a floor
//   of ~2 pp, where the first-order (z + z) sqrt(2 P Q / n) says 1.5). A fall
//   of the same size, where the share allows one, is found at least as often
//   (less variance), so the growth floor is printed as "±". 4x the samples
//   per side at least halves it (exactly, to first order).
// - Run-to-run variance (both sides >= 2 runs): the variance of one run's
//   share p (a fraction) is modelled as var(p) = a p (1 - p) + b p^2 (1 - p)^2:
//   a p (1 - p) is sampling, a = the mean of 1 / samples over the runs (known
//   from the counts, not fitted); b p^2 (1 - p)^2 is run-to-run jitter on the
//   logit scale (a lognormal factor on a function's time, renormalized, moves
//   its share by p (1 - p) times the factor's sigma). b >= 0 is fitted across
//   every row present on both sides by iteratively reweighted least squares
//   on the rows' within-side pooled variances (weights df / var^2: each row's
//   relative error counts alike). The power of Welch's test for a growth
//   from P to P + d with r1, r2 runs is then computed for normal per-run
//   shares, integrating over both sides' sample variances (equiprobable
//   points of chi2(r - 1) / (r - 1) each): every draw gives Welch's own SE
//   and Satterthwaite df, hence its critical t(alpha / m, df), so the random,
//   often small df that decides few-run tests is counted, not a plug-in df
//   (with one, the diff found 1.25x the floor only 77% of the time at 4 runs
//   a side in the simulation). d is the smallest growth with power 0.8;
//   with few runs and a large spread there may be none below 100%
//   (t(2.5e-4, 2) is 63): the floor is then infinite ("beyond reach"). The
//   diff holds run-variance verdicts to the pooled counts' sampling statistics
//   too, so the floor is the larger of the two. Halving: the fewest runs per
//   side (same samples per run) at which every finite floor is at most half
//   what it is now (and every infinite one finite). Where one row's growth
//   shrinks many others measurably (a big row), BH gains from their
//   discoveries and the floor is conservative.
// - NoiseMethod::None (listings of shares without counts): no floor.
// tests/diff/detect_test.cpp checks this by simulation: at 1.25x the floor
// the diff finds the change >= 80% of the time, at 0.4x rarely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "report/diff.h"
#include "report/noise.h"

namespace kprof {

inline constexpr double kDetectPower = 0.8;
inline constexpr double kFloorShares[] = {1.0, 5.0, 20.0};  // in %
inline constexpr size_t kMaxPlanRuns = 1000;                // halving search stops here

// The variance of one run's share p (a fraction): a p (1 - p) + b p^2 (1 - p)^2.
struct RunSpread {
  double a = 0;                          // sampling: mean over runs of 1 / samples
  double b = 0;                          // run-to-run jitter: its sigma squared, on the logit scale
  size_t rows = 0;                       // rows b was fitted over
  double var(double p) const;            // fraction^2
  double sd_pp(double share_pct) const;  // the SD of one run's share, in pp
};

// Fits RunSpread to the per-run shares of side `side` and the base (the
// rows present on both; those with >= 2 runs a side, else b = 0).
RunSpread fit_run_spread(const DiffInput& in, const DiffResult& result, size_t side);

// The growth in pp of a row at `share_pct` found with `power` when tested
// two-sided at alpha / m; +inf when none up to 100% is.
double sampling_floor_pp(double share_pct, uint64_t n1, uint64_t n2, size_t m, double alpha,
                         double power = kDetectPower);
double run_variance_floor_pp(double share_pct, const RunSpread& spread, size_t r1, size_t r2,
                             size_t m, double alpha, double power = kDetectPower);
// The probability that Welch's test on r1 and r2 normal per-run values with
// variances v1 and v2 (one run each) and a mean difference d > 0 has a
// two-sided p <= alpha_row in the direction of d.
double welch_power(double d, double v1, double v2, size_t r1, size_t r2, double alpha_row);

struct FloorAt {
  double share_pct = 0;
  double floor_pp = 0;                    // what the diff can see: the larger of the two below
  double sampling_pp = 0;                 // pooled counts' sampling statistics
  std::optional<double> run_variance_pp;  // RunVariance only
};

struct DetectFloor {
  size_t side = 0;  // >= 1, against side 0
  std::string label, base_label;
  NoiseMethod method = NoiseMethod::Sampling;
  size_t rows = 0;  // m: rows tested in this comparison
  double alpha = 0.05, power = kDetectPower;
  uint64_t base_samples = 0, new_samples = 0;  // summed over runs
  size_t base_runs = 0, new_runs = 0;
  RunSpread spread;         // RunVariance only
  std::vector<FloorAt> at;  // per share asked for; empty with NoiseMethod::None
  // Sampling: 4x the samples per side. RunVariance: runs per side (both
  // sides the same), unset when kMaxPlanRuns do not halve it.
  uint64_t halve_base_samples = 0, halve_new_samples = 0;
  std::optional<size_t> halve_runs;
};

// One DetectFloor per non-base side. `in` gives the sample totals (as the
// diff counts them), `result` = diff_profiles(in) the rows and methods.
std::vector<DetectFloor> detectability(const DiffInput& in, const DiffResult& result,
                                       std::span<const double> shares_pct = kFloorShares);

// A few lines per comparison, starting "Detectability floor for NEW against BASE".
void write_detectability(std::ostream& out, const std::vector<DetectFloor>& floors);

}  // namespace kprof
