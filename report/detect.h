// What a diff could not have seen: the detectability floor of each comparison.
//
// For each non-base side against the base, the smallest growth in percentage
// points that diff_profiles() would call "changed" with 80% power at its
// false discovery rate, for a row holding 1%, 5% and 20% of the samples; and
// what would halve it. `kprof diff` prints it after the tables; `kprof diff
// --plan` prints only it, from pilot profiles, to size a real experiment.
// Reads DiffInput / DiffResult; pure, no I/O. The floors themselves — the
// two-proportion power equation, the run-to-run spread model and its fit,
// Welch's power integrated over the sample variances, and why — are
// stats/power.h's; this is what the diff feeds them and what it prints.
//
// Contract:
// - A comparison tests m rows: those with samples on either side, as the
//   diff counts them; each is tested at alpha / m (BH's rank-1 threshold).
// - Sampling statistics (a side with one run): the sampling floor on the
//   samples summed over each side's runs, each side's divided by its
//   dispersion over time slices where measured (as the verdicts count
//   them), printed as "±" (a fall is found at least as often as a growth).
//   4x the samples per side at least halves it.
// - Run-to-run variance (both sides >= 2 runs): the spread fitted to the
//   per-run shares of every row present on both sides (fit_run_spread).
//   With rows enough to fit it the verdicts are the moderated t's and so is
//   the floor; else Welch's floor, and since those verdicts are held to the
//   pooled counts' sampling statistics too, the larger of the two. Halving:
//   the fewest runs per side (same samples per run) at which every finite
//   floor is at most half what it is now (and every infinite one finite).
// - NoiseMethod::None (listings of shares without counts): no floor.
// tests/diff/detect_test.cpp checks this by simulation: at 1.25x the floor
// the diff finds the change >= 80% of the time, at 0.4x rarely; the
// formulas' own tests are tests/stats/power_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "report/diff.h"
#include "stats/power.h"

namespace kprof {

inline constexpr double kDetectPower = 0.8;
inline constexpr double kFloorShares[] = {1.0, 5.0, 20.0};  // in %
inline constexpr size_t kMaxPlanRuns = 1000;                // halving search stops here

// Fits stats::RunSpread to the per-run shares of side `side` and the base:
// a from every run's samples on both sides, b over the rows present on both
// (those with >= 2 runs a side; else b = 0).
stats::RunSpread fit_run_spread(const DiffInput& in, const DiffResult& result, size_t side);

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
  stats::RunSpread spread;  // RunVariance only
  // The counts' variance against binomial, measured over the runs' time
  // slices (DiffResult::slice_dispersion; 0: not measured, binomial). The
  // sampling floor counts n / dispersion samples a side, at Student's t
  // quantile with `dispersion_df` degrees of freedom (+inf: the normal's).
  double dispersion = 0;
  double dispersion_df = std::numeric_limits<double>::infinity();
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
