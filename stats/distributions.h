// The normal and Student's t tails and quantiles the tests in stats/ are
// built on: Boost.Math's normal_distribution and students_t_distribution
// (cdf, quantile, complement), under one error policy (stats/policy.h), with
// the edges callers meet written out below. Nothing here throws.
#pragma once

namespace kprof::stats {

// Two-sided normal quantile: z with P(|Z| >= z) == alpha. alpha >= 1 (or
// NaN) gives 0; an alpha whose half underflows a double (alpha <= 0
// included) gives the z of the smallest tail a double holds (~38.5), as far
// as a double's tail reaches.
double normal_quantile(double alpha);

// Two-sided normal tail P(|Z| >= |z|); 0 for infinite z, NaN for NaN.
double normal_two_sided_p(double z);

// P(Z <= x).
double normal_cdf(double x);

// Student's t with `df` degrees of freedom (df > 0; an infinite df, or one
// beyond 1 / epsilon, is the normal).
class StudentT {
 public:
  explicit StudentT(double df) : df_(df) {}

  double df() const { return df_; }

  // P(|T| >= |t|); 0 for an infinite (or NaN) t.
  double two_sided_p(double t) const;

  // The t with P(|T| >= t) == alpha, capped at 2^40 (~1.1e12: an alpha that
  // small, or 0, gives the cap); alpha >= 1 (or NaN) gives 0.
  double quantile(double alpha) const;

 private:
  double df_;
};

}  // namespace kprof::stats
