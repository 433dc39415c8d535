#include "stats/distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/policy.h"

namespace kprof::stats {

using detail::Normal;
using detail::StudentsT;

double normal_quantile(double alpha) {
  if (!(alpha < 1)) return 0;
  const double tail = std::max(alpha / 2, std::numeric_limits<double>::denorm_min());
  return quantile(complement(Normal(), tail));
}

double normal_two_sided_p(double z) {
  return 2 * cdf(complement(Normal(), std::fabs(z)));
}

double normal_cdf(double x) {
  return cdf(Normal(), x);
}

double StudentT::two_sided_p(double t) const {
  if (!std::isfinite(t)) return 0;
  return 2 * cdf(complement(StudentsT(df_), std::fabs(t)));
}

double StudentT::quantile(double alpha) const {
  constexpr double kCap = 0x1p40;
  if (!(alpha < 1)) return 0;
  const double tail = std::max(alpha / 2, std::numeric_limits<double>::denorm_min());
  const double t = boost::math::quantile(complement(StudentsT(df_), tail));
  return t > 0 ? std::min(t, kCap) : kCap;  // overflow: beyond the cap
}

}  // namespace kprof::stats
