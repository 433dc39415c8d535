#include "stats/power.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "stats/distributions.h"
#include "stats/policy.h"

namespace kprof::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One-sided power quantile: z with P(Z <= z) == power (negative below 50%).
double power_z(double power) {
  return power >= 0.5 ? normal_quantile(2 * (1 - power)) : -normal_quantile(2 * power);
}

// The smallest d in (0, hi] with found(d), assuming found() turns true once
// and stays so up to the first crossing; +inf when found(hi) is false. A
// geometric grid brackets the first crossing, bisection closes it.
template <class Found>
double first_found(double hi, Found found) {
  if (!(hi > 0)) return kInf;
  double lo = 0, up = -1;
  for (int k = 24; k >= 0; --k) {
    const double d = std::ldexp(hi, -k);
    if (found(d)) {
      up = d;
      break;
    }
    lo = d;
  }
  if (up < 0) return kInf;
  for (int i = 0; i < 36; ++i) {
    const double mid = (lo + up) / 2;
    (found(mid) ? up : lo) = mid;
  }
  return up;
}

// Where Phi(x), computed in double, is exactly 1 and exactly 0.
constexpr double kPhiOne = 8.3, kPhiZero = -38.5;

// kPoints equiprobable points of chi2(k) / k: its midpoint quantiles
// (i + 0.5) / kPoints. Beyond 1e6 degrees of freedom, all 1.
constexpr size_t kPoints = 40;

std::vector<double> chi2_points(double k) {
  std::vector<double> out(kPoints, 1.0);
  if (k > 1e6) return out;
  const detail::ChiSquared chi2(k);
  for (size_t i = 0; i < kPoints; ++i) out[i] = quantile(chi2, (i + 0.5) / kPoints) / k;
  return out;
}

// Welch's test with `runs` a side at one per-row level: the sample-variance
// points of both sides and t(alpha_row, df) over Welch's df range, tabulated
// (log t linear in log df between points).
class WelchModel {
 public:
  WelchModel(const Sides<size_t>& runs, double alpha_row)
      : r1_(runs.base), r2_(runs.next), u1_(chi2_points(r1_ - 1.0)), u2_(chi2_points(r2_ - 1.0)) {
    constexpr int kTable = 64;
    const double lo = static_cast<double>(std::min(r1_, r2_) - 1);
    const double hi = static_cast<double>(r1_ + r2_ - 2);
    log_df_lo_ = std::log(lo);
    log_df_step_ = (std::log(hi) - log_df_lo_) / (kTable - 1);
    for (int i = 0; i < kTable; ++i) {
      log_t_.push_back(
          std::log(StudentT(std::exp(log_df_lo_ + log_df_step_ * i)).quantile(alpha_row)));
    }
  }

  // variance: of one run's value on each side.
  double power(double d, const Sides<double>& variance) const {
    return sum(d, variance, [](double, size_t) { return false; }) / kPairs;
  }

  // Whether power(d, variance) >= target: the same answer, with the sum
  // stopped once the terms left (each in [0, 1]) can no longer change it.
  // Adding terms >= 0 never lowers a rounded sum, so a partial sum that
  // reaches the target decides yes; no is decided only with a margin (1e-6
  // of a term) far beyond the sum's rounding (1,600 terms: ~1e-10).
  bool reaches(double d, const Sides<double>& variance, double target) const {
    bool yes = false, decided = false;
    const double total = sum(d, variance, [&](double partial, size_t left) {
      if (partial / kPairs >= target) return decided = yes = true;
      if (partial + static_cast<double>(left) + 1e-6 < target * kPairs) return decided = true;
      return false;
    });
    return decided ? yes : total / kPairs >= target;
  }

 private:
  static constexpr double kPairs = static_cast<double>(kPoints * kPoints);

  // The integral's sum over the 40 x 40 points (the mean of Phi over the
  // sample variances' points, times kPairs), in order; after each of the
  // base's points `stop(partial sum, terms left)` may end it.
  template <class Stop>
  double sum(double d, const Sides<double>& variance, Stop stop) const {
    const double v1 = variance.base, v2 = variance.next;
    const double se = std::sqrt(v1 / r1_ + v2 / r2_);
    if (!(se > 0)) return d > 0 ? kPairs : 0;
    const double k1 = static_cast<double>(r1_ - 1), k2 = static_cast<double>(r2_ - 1);
    const detail::FastNormal normal;
    // Each draw's squared SE on the new side, and its term of Satterthwaite's
    // denominator, once per point rather than once per pair.
    std::array<double, kPoints> e2, f2;
    for (size_t j = 0; j < kPoints; ++j) {
      e2[j] = v2 / r2_ * u2_[j];
      f2[j] = e2[j] * e2[j] / k2;
    }
    double total = 0;
    for (size_t i = 0; i < kPoints; ++i) {
      const double e1 = v1 / r1_ * u1_[i], f1 = e1 * e1 / k1;
      for (size_t j = 0; j < kPoints; ++j) {
        const double se2 = e1 + e2[j];
        const double df = se2 * se2 / (f1 + f2[j]);
        const double x = (d - t_crit(df) * std::sqrt(se2)) / se;
        // In double, Phi(x) is exactly 1 from 8.3 up and exactly 0 from
        // -38.5 down (stats_test checks it): the same sum, less work.
        total += x >= kPhiOne ? 1.0 : x > kPhiZero ? cdf(normal, x) : 0.0;
      }
      if (stop(total, (kPoints - 1 - i) * kPoints)) break;
    }
    return total;
  }

  double t_crit(double df) const {
    if (!(log_df_step_ > 0)) return std::exp(log_t_[0]);
    const double x = std::clamp((std::log(df) - log_df_lo_) / log_df_step_, 0.0,
                                static_cast<double>(log_t_.size() - 1));
    const size_t i = std::min(static_cast<size_t>(x), log_t_.size() - 2);
    return std::exp(log_t_[i] + (x - static_cast<double>(i)) * (log_t_[i + 1] - log_t_[i]));
  }

  size_t r1_, r2_;
  std::vector<double> u1_, u2_;
  double log_df_lo_ = 0, log_df_step_ = 0;
  std::vector<double> log_t_;
};

// The sum of squares of `pct` (in %) about its mean, as fractions; `mean` is set.
double sum_sq(std::span<const double> pct, double& mean) {
  mean = 0;
  for (double x : pct) mean += x / 100;
  mean /= static_cast<double>(pct.size());
  double s = 0;
  for (double x : pct) s += (x / 100 - mean) * (x / 100 - mean);
  return s;
}

}  // namespace

double FloorTest::row_alpha() const {
  return alpha / static_cast<double>(std::max<size_t>(rows, 1));
}

double RunSpread::trend(double p) const {
  return a * p * (1 - p) + b * p * p * (1 - p) * (1 - p);
}

double RunSpread::var(double p) const {
  return prior.scale * trend(p);
}

double RunSpread::sd_pp(double share_pct) const {
  return 100 * std::sqrt(var(share_pct / 100));
}

bool RunSpread::fitted() const {
  return from_slices || (rows >= kMinSpreadRows && prior.rows >= kMinSpreadRows);
}

namespace {

struct SpreadPoint {
  double x, y, v, df;  // p (1 - p), p^2 (1 - p)^2, pooled variance, its df
  double p;            // the mean share
};

// Weighted least squares for v ~ a x + b y with a, b >= 0, reweighted by
// the fit's own variance (weights df / fit^2). `fit_a` false keeps a.
void fit_trend(const std::vector<SpreadPoint>& pts, bool fit_a, double& a, double& b) {
  for (int iter = 0; iter < 100 && !pts.empty(); ++iter) {
    double sxx = 0, sxy = 0, syy = 0, sxv = 0, syv = 0;
    for (const SpreadPoint& q : pts) {
      const double f = std::max(a * q.x + b * q.y, 1e-300);
      const double w = q.df / (f * f);
      sxx += w * q.x * q.x;
      sxy += w * q.x * q.y;
      syy += w * q.y * q.y;
      sxv += w * q.x * q.v;
      syv += w * q.y * q.v;
    }
    double na = a, nb = 0;
    if (fit_a) {
      const double det = sxx * syy - sxy * sxy;
      na = det > 0 ? (sxv * syy - syv * sxy) / det : -1;
      nb = det > 0 ? (syv * sxx - sxv * sxy) / det : -1;
      if (na < 0 || nb < 0) {  // on a bound: the better of a alone and b alone
        const double a_only = sxx > 0 ? std::max(0.0, sxv / sxx) : 0;
        const double b_only = syy > 0 ? std::max(0.0, syv / syy) : 0;
        auto loss = [&](double ta, double tb) {
          return ta * ta * sxx + 2 * ta * tb * sxy + tb * tb * syy - 2 * (ta * sxv + tb * syv);
        };
        if (loss(a_only, 0) <= loss(0, b_only)) {
          na = a_only, nb = 0;
        } else {
          na = 0, nb = b_only;
        }
      }
    } else {
      nb = syy > 0 ? std::max(0.0, (syv - a * sxy) / syy) : 0;
    }
    const bool done = std::fabs(na - a) <= 1e-10 * std::max(na, 1e-300) &&
                      std::fabs(nb - b) <= 1e-10 * std::max(nb, 1e-300);
    a = na;
    b = nb;
    if (done) break;
  }
}

// The rows' pooled variances about a p (1 - p), the slices' estimate of
// it, over that estimate (the runs' spread against the slices'; 0 for runs
// that do not spread at all), or -1 where the ratio is larger than chance
// allows: above the upper 5% point of F(the rows' df, slice_df).
double runs_over_slices(const std::vector<SpreadPoint>& pts, double a, double slice_df) {
  double ratio = 0, df = 0;
  for (const SpreadPoint& q : pts) {
    ratio += q.df * q.v / (a * q.x);
    df += q.df;
  }
  const detail::FisherF f(df, slice_df);
  return ratio / df <= quantile(complement(f, 0.05)) ? ratio / df : -1;
}

}  // namespace

RunSpread fit_run_spread(std::span<const uint64_t> run_samples, std::span<const RunShares> rows,
                         double dispersion, double slice_df) {
  RunSpread out;
  double inv = 0;
  for (uint64_t n : run_samples) {
    if (n) inv += 1.0 / static_cast<double>(n);
  }
  out.binomial_a = run_samples.empty() ? 0 : inv / static_cast<double>(run_samples.size());
  out.dispersion = dispersion > 0 ? dispersion : 1.0;
  const double sampling_a = out.binomial_a * out.dispersion;
  out.a = sampling_a;
  std::vector<SpreadPoint> pts;
  for (const RunShares& row : rows) {
    if (row.base.size() < 2 || row.next.size() < 2) continue;
    double m0, m1;
    const double ss = sum_sq(row.base, m0) + sum_sq(row.next, m1);
    const double df = static_cast<double>(row.base.size() + row.next.size() - 2);
    const double p = (m0 + m1) / 2;
    if (!(p > 0) || p >= 1) continue;
    pts.push_back({p * (1 - p), p * p * (1 - p) * (1 - p), ss / df, df, p});
  }
  out.rows = pts.size();
  // Rows with a sample or two a run are left out of the prior (below): their
  // variance takes a handful of values (most runs see 0 or 1), far from the
  // scaled chi-square the fit assumes, and scatters less than its df say;
  // thousands of them would set d0 infinite for every row. So it is the
  // rows with samples enough that must be many (a program of two functions
  // and a dozen kernel rows of a sample each is a few-rows profile).
  auto informative = [&](const SpreadPoint& q) {
    return !(out.binomial_a > 0) || q.p / out.binomial_a >= kMinPriorSamples;
  };
  const bool enough =
      static_cast<size_t>(std::count_if(pts.begin(), pts.end(), informative)) >= kMinSpreadRows;
  fit_trend(pts, enough, out.a, out.b);
  // The sampling term is held at or below binomial: timer samples can
  // spread less than binomial (systematic sampling), and where rows spread
  // more, run-to-run jitter (b) and the rows' own variances (the prior) say
  // so; a free a above binomial only trades against b over few large rows.
  // (Bursty slices, a dispersion above 1, raise the cap with them.)
  const double cap = out.binomial_a * std::max(1.0, out.dispersion);
  if (out.a > cap) {
    out.a = cap;
    fit_trend(pts, false, out.a, out.b);
  }
  if (!enough || !(out.a > 0 || out.b > 0)) {
    out.a = sampling_a;
    out.b = 0;
    const double ratio =
        slice_df > 0 && out.a > 0 && !pts.empty() ? runs_over_slices(pts, out.a, slice_df) : -1;
    if (ratio >= 0) {
      // Never below the slices' value; above it where the runs say so.
      out.from_slices = true;
      out.prior = {slice_df, std::max(1.0, ratio), pts.size()};
      return out;
    }
    fit_trend(pts, false, out.a, out.b);
    return out;
  }
  std::vector<double> ratio, dfs;
  for (const SpreadPoint& q : pts) {
    if (!informative(q)) continue;
    ratio.push_back(q.v / (out.a * q.x + out.b * q.y));
    dfs.push_back(q.df);
  }
  out.prior = fit_variance_prior(ratio, dfs);
  return out;
}

double sampling_floor_pp(double share_pct, const Sides<uint64_t>& samples, const FloorTest& test) {
  const uint64_t n1 = samples.base, n2 = samples.next;
  if (n1 == 0 || n2 == 0) return kInf;
  const double p1 = share_pct / 100;
  const double z_a = std::isfinite(test.dispersion_df)
                         ? StudentT(test.dispersion_df).quantile(test.row_alpha())
                         : normal_quantile(test.row_alpha());
  const double z_b = power_z(test.power);
  const double i1 = 1.0 / static_cast<double>(n1), i2 = 1.0 / static_cast<double>(n2);
  const double w2 = static_cast<double>(n2) / static_cast<double>(n1 + n2);
  // g(d) = z_a SE_null + z_b SE_alt - d is concave in d (square roots of
  // concave quadratics, minus d) and >= 0 at 0: one crossing.
  auto found = [&](double d) {
    const double p2 = p1 + d, pbar = p1 + w2 * d;
    const double null_se = std::sqrt(pbar * (1 - pbar) * (i1 + i2));
    const double alt_se = std::sqrt(p1 * (1 - p1) * i1 + p2 * (1 - p2) * i2);
    return z_a * null_se + z_b * alt_se <= d;
  };
  return 100 * first_found(1 - p1, found);
}

std::vector<double> run_variance_floors_pp(std::span<const double> shares_pct,
                                           const RunSpread& spread, const Sides<size_t>& runs,
                                           const FloorTest& test) {
  std::vector<double> out(shares_pct.size(), kInf);
  if (runs.base < 2 || runs.next < 2) return out;
  if (spread.fitted()) {
    // The moderated t, as the diff tests these rows: the pooled variance of
    // one run about both sides' shares.
    const double df = moderated_df(static_cast<double>(runs.base + runs.next - 2), spread.prior);
    for (size_t i = 0; i < shares_pct.size(); ++i) {
      const double p1 = shares_pct[i] / 100;
      out[i] = 100 * first_found(1 - p1, [&](double d) {
                 const double v = (spread.var(p1) + spread.var(p1 + d)) / 2;
                 return moderated_power(d, v, runs, df, test.row_alpha()) >= test.power;
               });
    }
    return out;
  }
  const WelchModel model(runs, test.row_alpha());
  for (size_t i = 0; i < shares_pct.size(); ++i) {
    const double p1 = shares_pct[i] / 100, v1 = spread.var(p1);
    out[i] = 100 * first_found(1 - p1, [&](double d) {
               return model.reaches(d, {v1, spread.var(p1 + d)}, test.power);
             });
  }
  return out;
}

double run_variance_floor_pp(double share_pct, const RunSpread& spread, const Sides<size_t>& runs,
                             const FloorTest& test) {
  const double share[] = {share_pct};
  return run_variance_floors_pp(share, spread, runs, test)[0];
}

double moderated_power(double d, double variance, const Sides<size_t>& runs, double df,
                       double alpha_row) {
  if (runs.base < 1 || runs.next < 1) return 0;
  const double se = std::sqrt(
      variance * (1.0 / static_cast<double>(runs.base) + 1.0 / static_cast<double>(runs.next)));
  if (!(se > 0)) return d > 0 ? 1 : 0;
  const double lambda = d / se;
  if (!std::isfinite(df) || df > 1e7) {
    const double z = normal_quantile(alpha_row);
    return normal_cdf(lambda - z) + normal_cdf(-lambda - z);
  }
  const double t = StudentT(df).quantile(alpha_row);
  const detail::NonCentralT nct(df, lambda);
  return cdf(complement(nct, t)) + cdf(nct, -t);
}

double welch_power(double d, const Sides<double>& variance, const Sides<size_t>& runs,
                   double alpha_row) {
  if (runs.base < 2 || runs.next < 2) return 0;
  return WelchModel(runs, alpha_row).power(d, variance);
}

}  // namespace kprof::stats
