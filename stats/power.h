// Power and detectability floors: the smallest growth of a share that a test
// of many rows finds with a given power, from plain numbers (shares, sample
// counts, runs, a fitted spread). Pure functions, no I/O; report/detect.h
// applies them to a diff's comparisons.
//
// Method and why:
// - Multiple testing. With one real change among m tested rows,
//   Benjamini–Hochberg's threshold for that row is alpha / m (rank 1), as
//   Bonferroni's. So a floor tests each row two-sided at alpha / m
//   (FloorTest::row_alpha): conservative (BH can only be more lenient) and
//   independent of what else changed.
// - Sampling statistics (counts n1, n2 summed over runs): the two-proportion
//   power equation (Fleiss; Fleiss, Levin & Paik 2003, Statistical Methods
//   for Rates and Proportions, 3rd ed., ch. 4, without the continuity
//   correction) for growth from P to P + d,
//     d = z(alpha/m) sqrt(pbar qbar (1/n1 + 1/n2)) + z(power) sqrt(p1 q1/n1 + p2 q2/n2),
//   pbar the pooled share (n1 p1 + n2 p2) / (n1 + n2), solved for d.
//   Newcombe's score interval behaves like the pooled-variance test, and the
//   grown share's larger variance matters when d is comparable to P (a 1%
//   row at ~2,000 samples has a floor of ~2 pp, where the first-order
//   (z + z) sqrt(2 P Q / n) says 1.5). A fall of the same size, where the
//   share allows one, is found at least as often (less variance), so the
//   growth floor stands for "±". 4x the samples per side at least halves it
//   (exactly, to first order).
// - Run-to-run variance (both sides >= 2 runs): the variance of one run's
//   share p (a fraction) is modelled as var(p) = a p (1 - p) + b p^2 (1 - p)^2
//   (RunSpread): a p (1 - p) is sampling, b p^2 (1 - p)^2 run-to-run jitter
//   on the logit scale (a lognormal factor on a row's weight, renormalized,
//   moves its share by p (1 - p) times the factor's sigma). Both are fitted
//   (>= 0) across the rows present on both sides by iteratively reweighted
//   least squares on the rows' within-side pooled variances (weights df /
//   var^2: each row's relative error counts alike). a is fitted, not taken
//   as binomial's mean 1 / samples: timer samples at fixed intervals spread
//   less than binomial (165 one-second runs of a 30% row: SD 0.24 pp where
//   binomial says 0.65), so a may fall below it; it is capped at binomial's,
//   which a burstier spread reaches through b. The rows' variances about
//   the fit give the moderated t's prior (stats/moderation.h, limma's
//   fitFDist). With kMinSpreadRows rows or more the floor is the moderated
//   t's power: the noncentral t with df r1 + r2 - 2 + d0 and noncentrality
//   d / sqrt(var (1/r1 + 1/r2)) (Boost.Math's non_central_t); with fewer,
//   Welch's power for normal per-run shares, integrated over both sides'
//   sample variances (40 x 40 equiprobable points of chi2(r - 1) / (r - 1);
//   given them, the mean difference is normal and independent, so the power
//   is the mean of Phi((d - t(alpha / m, df) SE^) / SE) with each draw's own
//   SE^ and Welch–Satterthwaite df), so the random, often small df that
//   decides few-run tests is counted, not a plug-in df. The floor is the
//   smallest d with the power asked for; with few runs and a large spread
//   there may be none below 100%: the floor is then infinite ("beyond
//   reach"). Where one row's growth shrinks many others measurably (a big
//   row), BH gains from their discoveries and the floor is conservative.
// Normal and t quantiles: stats/distributions.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "stats/change.h"
#include "stats/moderation.h"

namespace kprof::stats {

// The test a floor is for: `rows` tested (m) at false discovery rate
// `alpha`, a change to be found with probability `power`.
struct FloorTest {
  size_t rows = 1;
  double alpha = 0.05;
  double power = 0.8;
  // Sampling statistics on counts over a measured dispersion: the degrees of
  // freedom it is known to, whose Student's t quantile the test uses
  // (stats/change.h dispersed_change); +inf: the normal's.
  double dispersion_df = std::numeric_limits<double>::infinity();
  double row_alpha() const;  // alpha / m (m of 0 counts as 1): BH's rank-1 threshold
};

// The variance of one run's share p (a fraction): a p (1 - p) + b p^2 (1 - p)^2,
// and how the rows' own variances scatter about it (the moderated t's prior).
struct RunSpread {
  double a = 0;           // sampling term, fitted (below binomial where runs spread less)
  double b = 0;           // run-to-run jitter: its sigma squared, on the logit scale
  double binomial_a = 0;  // what binomial sampling makes a: the mean over runs of 1 / samples
  // The runs' counts' variance against binomial over their time slices
  // (stats/dispersion.h; 1: not measured): sampling alone makes a
  // binomial_a times this.
  double dispersion = 1;
  size_t rows = 0;      // rows a and b were fitted over
  VariancePrior prior;  // of the rows' variances about var(p) (stats/moderation.h)
  // Too few rows to fit the prior, so it came from the runs' time slices:
  // one run's variance is the slices' (a = binomial_a x dispersion, b = 0;
  // a row's own test takes its own dispersion for `dispersion`) with the
  // slices' degrees of freedom, the rows having spread no more than that.
  bool from_slices = false;
  double trend(double p) const;          // a p (1 - p) + b p^2 (1 - p)^2, fraction^2
  double var(double p) const;            // one run's variance: trend(p) times the prior's scale
  double sd_pp(double share_pct) const;  // the SD of one run's share, in pp
  // Whether there were rows enough to fit a and b and the prior
  // (kMinSpreadRows), or the slices gave it: tests use the moderated t; else
  // Welch held to the pooled counts.
  bool fitted() const;
};
inline constexpr size_t kMinSpreadRows = 5;
// Mean samples a run below which a row's variance is left out of the prior.
inline constexpr double kMinPriorSamples = 3;

// Each row's per-run shares on both sides, in %.
using RunShares = Sides<std::span<const double>>;

// Fits RunSpread over `rows` (those with >= 2 runs a side and a mean share
// strictly between 0 and 100%): a >= 0 and b >= 0 by iteratively reweighted
// least squares on the rows' within-side pooled variances (weights df /
// fit^2: a pooled variance with df degrees of freedom has variance
// 2 var^2 / df, so each row's relative error counts alike), then the prior
// of the rows' variances about that fit. binomial_a from `run_samples`
// (every run of both sides; a run without samples counts in the mean as 0);
// `dispersion`: the runs' counts' variance against binomial, measured over
// their time slices (1: not measured), which raises a's cap of binomial_a
// where above 1. Fewer than kMinSpreadRows rows of kMinPriorSamples or
// more samples a run: a = binomial_a x
// dispersion and, when the runs have time slices (`slice_df`: the degrees
// of freedom of a row's scatter over them, stats/dispersion.h
// SliceScatter, summed over every run) and the rows' variances are no
// larger than a says (the upper 5% of F(rows' df, slice_df)), b = 0 and the
// prior is the slices' (from_slices), its scale the rows' variances against
// a where that is above 1: slices see only how a run scatters within
// itself, and a run-level jitter (each run's own addresses, caches, host)
// adds to every run alike, unseen; held at the slices' value it was left
// out, and three-a-side A/A comparisons of the hot-cold program flagged
// 14 of 240 (5.8%); scaled, 9 of 240 (bench/verdicts.sh). The scale is
// truncated at 1 as the modified Knapp-Hartung variance is (Röver, Knapp &
// Friede 2015, BMC Med. Res. Methodol. 15:99). Else b fitted alone (as far
// as any row allows), no prior.
RunSpread fit_run_spread(std::span<const uint64_t> run_samples, std::span<const RunShares> rows,
                         double dispersion = 1, double slice_df = 0);

// The growth in pp of a row at `share_pct` found with test.power when tested
// two-sided at test.row_alpha(), by sampling statistics with `samples` a side
// (summed over runs); +inf when none up to 100% is, or a side has none.
double sampling_floor_pp(double share_pct, const Sides<uint64_t>& samples, const FloorTest& test);

// The same by the test the verdicts use with `runs` a side whose shares
// spread as `spread` says (moderated t when spread.fitted(), else Welch);
// +inf with fewer than 2 runs a side. One floor per share
// (they share the work of setting up the test).
std::vector<double> run_variance_floors_pp(std::span<const double> shares_pct,
                                           const RunSpread& spread, const Sides<size_t>& runs,
                                           const FloorTest& test);
double run_variance_floor_pp(double share_pct, const RunSpread& spread, const Sides<size_t>& runs,
                             const FloorTest& test);

// The probability that the moderated t (stats/moderation.h) with `df`
// degrees of freedom on `runs` values a side, whose variance (one run's) is
// `variance`, finds a mean difference d > 0 at two-sided alpha_row: the
// noncentral t's tail beyond t(alpha_row, df) (normal for an infinite df).
double moderated_power(double d, double variance, const Sides<size_t>& runs, double df,
                       double alpha_row);

// The probability that Welch's test on `runs` normal per-run values a side,
// with `variance` the variance of one run's value and a mean difference
// d > 0, has a two-sided p <= alpha_row in the direction of d. 0 with fewer
// than 2 runs a side.
double welch_power(double d, const Sides<double>& variance, const Sides<size_t>& runs,
                   double alpha_row);

}  // namespace kprof::stats
