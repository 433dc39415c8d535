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
// Rows whose variance the prior cannot explain (hypervariable rows: a
// function whose cost moves between runs for reasons of its own) would be
// shrunk toward the common variance and judged too sure. Each row's prior
// df is therefore made its own, after Phipson, Lee, Majewski, Alexander &
// Smyth (2016), "Robust hyperparameter estimation protects against
// hypervariable genes and improves power to detect differential
// expression", Ann. Appl. Stat. 10:946-963 (limma's robust eBayes): a row's
// F = ratio / scale is compared with its tail under the prior (F(df, d0),
// chi^2 / df for an infinite d0) against its rank's empirical tail; the
// shortfall is the probability that the row is an outlier, whose prior df
// is the one the largest residual alone would give. The two are mixed on
// the shrinkage weight d0 / (d0 + df) (limma mixes the df themselves; the
// weight stays defined with an infinite d0) and made non-increasing in F.
// Only rows in the upper half of F are candidates (limma tests every row;
// below the median a ratio under 1 is sampling, and would lower every
// larger row's df a little).
//
// The same estimate moderates per-row dispersions of one recording's
// counts over time slices (stats/dispersion.h), with a trend of 1.
#pragma once

#include <span>
#include <vector>

namespace kprof::stats {

struct VariancePrior {
  double df = 0;     // d0: how much a row's own estimate is shrunk; +inf: entirely
  double scale = 1;  // s0^2 / trend: what the rows' variances are on average against the trend
  size_t rows = 0;   // rows it was fitted over (s^2 > 0 and df > 0)
  // Outlying rows' own prior df: a row with F = ratio / scale at or above
  // outlier_f[i] (ascending) gets outlier_df[i] (non-increasing, below df).
  // Empty: every row gets df.
  std::vector<double> outlier_f, outlier_df;

  // The prior df of a row whose variance is `ratio` times its trend.
  double df_for(double ratio) const;
};

// A row's posterior variance and the t's degrees of freedom.
struct Moderated {
  double variance = 0;
  double df = 0;
};

// Fits the prior to rows' variance estimates `ratio` = s^2 / trend, each
// with `df` degrees of freedom (rows with ratio <= 0 or df <= 0 are left
// out). Fewer than 3 rows: df 0 (no moderation), scale 1.
VariancePrior fit_variance_prior(std::span<const double> ratio, std::span<const double> df);

// A row's posterior: s^2 with df degrees of freedom against `trend`, the
// prior's expected variance before scaling, shrunk with the row's own prior
// df (df_for); its df are df + that (+inf when it is infinite).
Moderated moderate(double s2, double df, double trend, const VariancePrior& prior);
// The df of a row that follows the prior: df + d0 (what the floor plans with).
double moderated_df(double df, const VariancePrior& prior);

// The x > 0 with trigamma(x) = y (y > 0), by Newton's method (Smyth 2004).
double inverse_trigamma(double y);

}  // namespace kprof::stats
