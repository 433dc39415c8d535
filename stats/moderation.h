// Many rows, few runs: each row's variance estimate borrowed from all rows.
//
// With 3 runs a side a row's variance has 4 degrees of freedom, and the t
// test that uses it alone needs a huge t at the per-row levels a
// false-discovery correction over hundreds of rows sets (t(2.5e-4, 4) is
// 10.3): nothing is found. The accepted remedy for thousands of rows and few
// replicates is the moderated t of Smyth (2004), "Linear models and
// empirical Bayes methods for assessing differential expression in
// microarray experiments", Statistical Applications in Genetics and
// Molecular Biology 3(1), article 3 (limma's eBayes): the rows' true
// variances are taken to scatter around a prior (here a fitted trend: what
// one row's variance should be at its share, stats/power.h RunSpread) as a
// scaled inverse chi-square with d0 degrees of freedom, so each row's
// posterior variance is
//   s~^2 = (d0 s0^2 + df s^2) / (d0 + df),
// and t = delta / (s~ sqrt(1/r1 + 1/r2)) follows Student's t with d0 + df
// degrees of freedom under the null, exactly, under that model. d0 and the
// prior's scale are estimated from the rows by the method of moments on
// log(s^2 / trend) (Smyth 2004, section 6.2: fitFDist): the scatter of the
// log ratios beyond what df alone explains (trigamma(df / 2)) is
// trigamma(d0 / 2). A row whose spread follows the trend then keeps power
// (d0 large), a bursty row (a large s^2) still shows as noisy. When the
// rows scatter no more than their df explain, d0 is infinite: every row's
// variance is the trend's, and t is normal.
//
// The same estimate moderates per-row dispersions of one recording's
// counts over time slices (stats/dispersion.h), with a trend of 1.
#pragma once

#include <span>

namespace kprof::stats {

struct VariancePrior {
  double df = 0;     // d0: how much a row's own estimate is shrunk; +inf: entirely
  double scale = 1;  // s0^2 / trend: what the rows' variances are on average against the trend
  size_t rows = 0;   // rows it was fitted over (s^2 > 0 and df > 0)
};

// Fits the prior to rows' variance estimates `ratio` = s^2 / trend, each
// with `df` degrees of freedom (rows with ratio <= 0 or df <= 0 are left
// out). Fewer than 3 rows: df 0 (no moderation), scale 1.
VariancePrior fit_variance_prior(std::span<const double> ratio, std::span<const double> df);

// The posterior variance of a row: s^2 with df degrees of freedom against
// `trend`, the prior's expected variance before scaling.
double moderated_variance(double s2, double df, double trend, const VariancePrior& prior);
// Its degrees of freedom: df + d0 (+inf with an infinite d0).
double moderated_df(double df, const VariancePrior& prior);

// The x > 0 with trigamma(x) = y (y > 0), by Newton's method (Smyth 2004).
double inverse_trigamma(double y);

}  // namespace kprof::stats
