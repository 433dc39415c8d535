#include "stats/moderation.h"

#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "stats/policy.h"

namespace kprof::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double digamma(double x) {
  return boost::math::digamma(x, detail::Policy());
}
double trigamma(double x) {
  return boost::math::trigamma(x, detail::Policy());
}

// P(F > f) for a row's F = (s^2 / trend) / scale with df degrees of
// freedom under a prior with d0: F(df, d0), or chi^2_df / df when d0 is
// infinite.
double upper_tail(double f, double df, double d0) {
  if (std::isinf(d0)) {
    return boost::math::cdf(boost::math::complement(detail::ChiSquared(df), f * df));
  }
  return boost::math::cdf(boost::math::complement(detail::FisherF(df, d0), f));
}

// The robust part of the fit (Phipson et al. 2016; moderation.h): rows'
// F and df, the residual of log F furthest above the mean, and the mean
// trigamma(df / 2) the residuals' spread owes to df alone.
void fit_outliers(VariancePrior& out, const std::vector<double>& f, const std::vector<double>& dfs,
                  double max_resid, double tri_mean) {
  const double var_outlier = max_resid * max_resid - tri_mean;
  if (!(var_outlier > 0)) return;
  const double d0_out = 2 * inverse_trigamma(var_outlier);
  if (!(d0_out < out.df)) return;
  const size_t n = f.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return f[a] < f[b]; });
  double running = kInf;
  for (size_t r = 0; r < n; ++r) {
    const size_t i = order[r];
    // Outliers are rows whose variance is too large: the lower half is
    // never one (its ratio to its rank's tail dips below 1 by sampling only).
    const double empirical = (static_cast<double>(n - r) - 0.5) / static_cast<double>(n);
    const double inlier =
        empirical > 0.5 ? 1.0 : std::min(1.0, upper_tail(f[i], dfs[i], out.df) / empirical);
    double d0 = out.df;
    if (inlier < 1) {
      const double w_common = std::isinf(out.df) ? 1.0 : out.df / (out.df + dfs[i]);
      const double w_out = d0_out / (d0_out + dfs[i]);
      const double w = inlier * w_common + (1 - inlier) * w_out;
      d0 = w >= 1 ? kInf : w * dfs[i] / (1 - w);
    }
    running = std::min(running, d0);
    if (running < out.df) {
      out.outlier_f.push_back(f[i]);
      out.outlier_df.push_back(running);
    }
  }
}

}  // namespace

double VariancePrior::df_for(double ratio) const {
  const double f = ratio / scale;
  const auto it = std::upper_bound(outlier_f.begin(), outlier_f.end(), f);
  if (it == outlier_f.begin()) return df;
  return outlier_df[static_cast<size_t>(it - outlier_f.begin()) - 1];
}

double inverse_trigamma(double y) {
  // Smyth's iteration: start at 0.5 + 1 / y (exact to first order for large
  // and small y); Newton on 1 / trigamma, which is nearly linear in x.
  if (!(y > 0)) return kInf;
  if (y > 1e7) return 1 / std::sqrt(y);
  if (y < 1e-6) return 1 / y;
  double x = 0.5 + 1 / y;
  for (int i = 0; i < 50; ++i) {
    const double tri = trigamma(x);
    const double step = tri * (1 - tri / y) / boost::math::polygamma(2, x, detail::Policy());
    x += step;
    if (-step / x < 1e-8) break;
  }
  return x;
}

VariancePrior fit_variance_prior(std::span<const double> ratio, std::span<const double> df) {
  VariancePrior out;
  std::vector<double> e, dfs, kept;  // kept: the rows' ratios fitted over
  for (size_t i = 0; i < ratio.size() && i < df.size(); ++i) {
    if (!(ratio[i] > 0) || !(df[i] > 0) || !std::isfinite(ratio[i])) continue;
    kept.push_back(ratio[i]);
    // log s^2 is log sigma^2 + log(chi2_df / df): that term's mean is
    // digamma(df / 2) - log(df / 2) and its variance trigamma(df / 2).
    e.push_back(std::log(ratio[i]) - digamma(df[i] / 2) + std::log(df[i] / 2));
    dfs.push_back(df[i]);
  }
  out.rows = e.size();
  if (e.size() < 3) return out;
  double mean = 0;
  for (double x : e) mean += x;
  mean /= static_cast<double>(e.size());
  double var = 0, tri = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    var += (e[i] - mean) * (e[i] - mean);
    tri += trigamma(dfs[i] / 2);
  }
  const double tri_mean = tri / static_cast<double>(e.size());
  var = var / static_cast<double>(e.size() - 1) - tri_mean;
  if (var > 0) {
    out.df = 2 * inverse_trigamma(var);
    out.scale = std::exp(mean + digamma(out.df / 2) - std::log(out.df / 2));
  } else {
    // Every row's variance is the trend's: its scale is the ratios' mean
    // (each s^2 / sigma^2 has mean 1; limma's exp(mean of e) is the same to
    // first order, and wrong where the ratios hardly scatter at all).
    out.df = kInf;
    double sum = 0;
    for (double r : kept) sum += r;
    out.scale = sum / static_cast<double>(e.size());
  }
  double max_resid = 0;
  for (double x : e) max_resid = std::max(max_resid, x - mean);
  for (double& r : kept) r /= out.scale;  // each row's F
  fit_outliers(out, kept, dfs, max_resid, tri_mean);
  return out;
}

Moderated moderate(double s2, double df, double trend, const VariancePrior& prior) {
  const double s0 = prior.scale * trend;
  const double d0 = trend > 0 ? prior.df_for(s2 / trend) : prior.df;
  if (std::isinf(d0)) return {s0, kInf};
  if (!(d0 > 0)) return {s2, df};
  return {(d0 * s0 + df * s2) / (d0 + df), df + d0};
}

double moderated_df(double df, const VariancePrior& prior) {
  return df + prior.df;
}

}  // namespace kprof::stats
