#include "stats/moderation.h"

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

}  // namespace

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
  std::vector<double> e, dfs;
  for (size_t i = 0; i < ratio.size() && i < df.size(); ++i) {
    if (!(ratio[i] > 0) || !(df[i] > 0) || !std::isfinite(ratio[i])) continue;
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
  var = var / static_cast<double>(e.size() - 1) - tri / static_cast<double>(e.size());
  if (var > 0) {
    out.df = 2 * inverse_trigamma(var);
    out.scale = std::exp(mean + digamma(out.df / 2) - std::log(out.df / 2));
  } else {
    // Every row's variance is the trend's: its scale is the ratios' mean
    // (each s^2 / sigma^2 has mean 1; limma's exp(mean of e) is the same to
    // first order, and wrong where the ratios hardly scatter at all).
    out.df = kInf;
    double sum = 0;
    for (size_t i = 0; i < ratio.size() && i < df.size(); ++i) {
      if (ratio[i] > 0 && df[i] > 0 && std::isfinite(ratio[i])) sum += ratio[i];
    }
    out.scale = sum / static_cast<double>(e.size());
  }
  return out;
}

double moderated_variance(double s2, double df, double trend, const VariancePrior& prior) {
  const double s0 = prior.scale * trend;
  if (std::isinf(prior.df)) return s0;
  if (!(prior.df > 0)) return s2;
  return (prior.df * s0 + df * s2) / (prior.df + df);
}

double moderated_df(double df, const VariancePrior& prior) {
  return df + prior.df;
}

}  // namespace kprof::stats
