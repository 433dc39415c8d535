// The normal and Student's t tails and quantiles the tests in stats/ are
// built on, with the edges callers meet written out below.
#pragma once

namespace kprof::stats {

// Two-sided normal quantile: z with P(|Z| >= z) == alpha (bisection on erfc).
double normal_quantile(double alpha);

// Two-sided normal tail P(|Z| >= |z|).
double normal_two_sided_p(double z);

// P(Z <= x).
double normal_cdf(double x);

// Student's t with `df` degrees of freedom.
class StudentT {
 public:
  explicit StudentT(double df) : df_(df) {}

  double df() const { return df_; }

  // P(|T| >= |t|); 0 for an infinite (or NaN) t.
  double two_sided_p(double t) const;

  // The t with P(|T| >= t) == alpha, by bisection up to ~1e12.
  double quantile(double alpha) const;

 private:
  double df_;
};

}  // namespace kprof::stats
