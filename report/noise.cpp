#include "report/noise.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kprof {

const char* noise_method_name(NoiseMethod m) {
  switch (m) {
    case NoiseMethod::Sampling:
      return "sampling";
    case NoiseMethod::RunVariance:
      return "run-variance";
    case NoiseMethod::None:
      break;
  }
  return "none";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Continued fraction for the regularized incomplete beta (modified Lentz).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

struct Wilson {
  double lo, hi;
};

Wilson wilson(uint64_t k, uint64_t n, double z) {
  const double nn = static_cast<double>(n), p = static_cast<double>(k) / nn, z2 = z * z;
  const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

double mean(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance(std::span<const double> v, double m) {
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

}  // namespace

double normal_quantile(double alpha) {
  // Bisection on erfc: exact enough (1e-12) and obviously correct.
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double student_t_two_sided_p(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_quantile(double alpha, double df) {
  double lo = 0, hi = 1;
  while (student_t_two_sided_p(hi, df) > alpha && hi < 1e12) hi *= 2;
  for (int i = 0; i < 64; ++i) {  // 64 halvings: beyond a double's precision
    const double mid = (lo + hi) / 2;
    (student_t_two_sided_p(mid, df) > alpha ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

namespace {

// Newcombe (1998) method 10: the interval on p2 - p1 from two Wilson intervals.
void newcombe(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double z, double& lo,
              double& hi) {
  const double p1 = static_cast<double>(k1) / n1, p2 = static_cast<double>(k2) / n2;
  const Wilson w1 = wilson(k1, n1, z), w2 = wilson(k2, n2, z);
  const double d = p2 - p1;
  lo = d - std::sqrt((p2 - w2.lo) * (p2 - w2.lo) + (w1.hi - p1) * (w1.hi - p1));
  hi = d + std::sqrt((w2.hi - p2) * (w2.hi - p2) + (p1 - w1.lo) * (p1 - w1.lo));
}

}  // namespace

Change sampling_change(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double alpha) {
  Change c;
  if (n1 == 0 || n2 == 0) {
    c.delta_pp = (n2 ? 100.0 * k2 / n2 : 0) - (n1 ? 100.0 * k1 / n1 : 0);
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    return c;
  }
  const double d = static_cast<double>(k2) / n2 - static_cast<double>(k1) / n1;
  double lo, hi;
  newcombe(k1, n1, k2, n2, normal_quantile(alpha), lo, hi);
  c.delta_pp = 100 * d;
  c.lo_pp = 100 * lo;
  c.hi_pp = 100 * hi;
  // The p-value is the level at which this same interval starts to include 0,
  // so verdict and interval never disagree (a z-test would call 1 sample of
  // 21 against 0 of 543 significant; the score interval does not).
  if (d == 0) return c;  // p = 1
  auto excludes_zero = [&](double z) {
    double l, h;
    newcombe(k1, n1, k2, n2, z, l, h);
    return d > 0 ? l > 0 : h < 0;
  };
  double zlo = 0, zhi = 40;
  if (excludes_zero(zhi)) {
    c.p = 0;
    return c;
  }
  for (int i = 0; i < 60; ++i) {
    const double mid = (zlo + zhi) / 2;
    (excludes_zero(mid) ? zlo : zhi) = mid;
  }
  c.p = std::erfc(zlo / std::sqrt(2.0));
  return c;
}

Change welch_change(std::span<const double> base_pct, std::span<const double> new_pct,
                    double alpha) {
  Change c;
  if (base_pct.empty() || new_pct.empty()) return c;
  const double m1 = mean(base_pct), m2 = mean(new_pct);
  c.delta_pp = m2 - m1;
  if (base_pct.size() < 2 || new_pct.size() < 2) {
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    return c;
  }
  const double a = variance(base_pct, m1) / base_pct.size();
  const double b = variance(new_pct, m2) / new_pct.size();
  const double se2 = a + b;
  if (se2 <= 0) {
    c.lo_pp = c.hi_pp = c.delta_pp;
    c.p = c.delta_pp == 0 ? 1 : 0;
    return c;
  }
  // Welch–Satterthwaite degrees of freedom.
  const double df =
      se2 * se2 / ((a * a) / (base_pct.size() - 1.0) + (b * b) / (new_pct.size() - 1.0));
  const double se = std::sqrt(se2);
  const double half = student_t_quantile(alpha, df) * se;
  c.lo_pp = c.delta_pp - half;
  c.hi_pp = c.delta_pp + half;
  c.p = student_t_two_sided_p(c.delta_pp / se, df);
  return c;
}

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m);
  double running = 1;
  for (size_t i = m; i-- > 0;) {
    const double adjusted = p[order[i]] * static_cast<double>(m) / static_cast<double>(i + 1);
    running = std::min(running, adjusted);
    q[order[i]] = std::min(1.0, running);
  }
  return q;
}

}  // namespace kprof
