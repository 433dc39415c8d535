#include "stats/change.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "stats/distributions.h"

namespace kprof::stats {

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

struct Interval {
  double lo, hi;
};

// k of n, in doubles: counts, or effective counts (a count over its dispersion).
struct Proportion {
  double k, n;
};

Proportion proportion(Binomial c) {
  return {static_cast<double>(c.k), static_cast<double>(c.n)};
}

// Wilson's score interval on k / n at the two-sided normal quantile z.
Interval wilson(Proportion c, double z) {
  const double nn = c.n, p = c.k / nn, z2 = z * z;
  const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

// Newcombe (1998) method 10: the interval on p2 - p1 from two Wilson intervals.
Interval newcombe(const Sides<Proportion>& c, double z) {
  const double p1 = c.base.k / c.base.n;
  const double p2 = c.next.k / c.next.n;
  const Interval w1 = wilson(c.base, z), w2 = wilson(c.next, z);
  const double d = p2 - p1;
  return {d - std::sqrt((p2 - w2.lo) * (p2 - w2.lo) + (w1.hi - p1) * (w1.hi - p1)),
          d + std::sqrt((w2.hi - p2) * (w2.hi - p2) + (p1 - w1.lo) * (p1 - w1.lo))};
}

double mean(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance(std::span<const double> v, double m) {
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

// `runs` held to `pooled`: the larger p, and an interval holding both.
Change held_to_pooled(Change runs, const Change& pooled) {
  runs.p = std::max(runs.p, pooled.p);
  runs.lo_pp = std::min(runs.lo_pp, pooled.lo_pp);
  runs.hi_pp = std::max(runs.hi_pp, pooled.hi_pp);
  return runs;
}

// Newcombe's interval and its p on next - base, in pp, for counts or
// effective counts (> 0 totals), its statistic referred to Student's t with
// `df` degrees of freedom (+inf: the normal).
Change newcombe_change(const Sides<Proportion>& counts, double alpha, double df = kInf) {
  Change c;
  const double d = counts.next.k / counts.next.n - counts.base.k / counts.base.n;
  const StudentT t(df);
  const Interval at =
      newcombe(counts, std::isfinite(df) ? t.quantile(alpha) : normal_quantile(alpha));
  c.delta_pp = 100 * d;
  c.lo_pp = 100 * at.lo;
  c.hi_pp = 100 * at.hi;
  // The p-value is the level at which this same interval starts to include 0,
  // so verdict and interval never disagree (a z-test would call 1 sample of
  // 21 against 0 of 543 significant; the score interval does not).
  if (d == 0) return c;  // p = 1
  auto excludes_zero = [&](double z) {
    const Interval i = newcombe(counts, z);
    return d > 0 ? i.lo > 0 : i.hi < 0;
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
  c.p = std::isfinite(df) ? t.two_sided_p(zlo) : normal_two_sided_p(zlo);
  return c;
}

}  // namespace

Change sampling_change(const Sides<Binomial>& counts, double alpha) {
  const uint64_t k1 = counts.base.k, n1 = counts.base.n, k2 = counts.next.k, n2 = counts.next.n;
  if (n1 == 0 || n2 == 0) {
    Change c;
    c.delta_pp = (n2 ? 100.0 * k2 / n2 : 0) - (n1 ? 100.0 * k1 / n1 : 0);
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    return c;
  }
  return newcombe_change({proportion(counts.base), proportion(counts.next)}, alpha);
}

Change dispersed_change(const Sides<Binomial>& counts, const Sides<double>& dispersion,
                        double alpha, double df) {
  if (counts.base.n == 0 || counts.next.n == 0) return sampling_change(counts, alpha);
  auto effective = [](Binomial c, double d) {
    const double by = d > 0 ? d : 1;
    return Proportion{static_cast<double>(c.k) / by, static_cast<double>(c.n) / by};
  };
  Change c = newcombe_change(
      {effective(counts.base, dispersion.base), effective(counts.next, dispersion.next)}, alpha,
      df > 0 ? df : kInf);
  // The point change is the counts' own, whatever their dispersion.
  c.delta_pp = 100.0 * (static_cast<double>(counts.next.k) / static_cast<double>(counts.next.n) -
                        static_cast<double>(counts.base.k) / static_cast<double>(counts.base.n));
  return c;
}

Change moderated_change(const Sides<std::span<const double>>& runs, double trend,
                        const VariancePrior& prior, double alpha) {
  const std::span<const double> base = runs.base, next = runs.next;
  Change c;
  if (base.empty() || next.empty()) return c;
  const double m1 = mean(base), m2 = mean(next);
  c.delta_pp = m2 - m1;
  double ss = 0;
  for (double x : base) ss += (x - m1) * (x - m1);
  for (double x : next) ss += (x - m2) * (x - m2);
  const double df = static_cast<double>(base.size() + next.size()) - 2;
  const double s2 = df > 0 ? ss / df : 0;
  const auto [var, total_df] = moderate(s2, df, trend, prior);
  if (!(total_df > 0)) {
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    return c;
  }
  const double se = std::sqrt(
      var * (1.0 / static_cast<double>(base.size()) + 1.0 / static_cast<double>(next.size())));
  if (!(se > 0)) {
    c.lo_pp = c.hi_pp = c.delta_pp;
    c.p = c.delta_pp == 0 ? 1 : 0;
    return c;
  }
  const StudentT t(total_df);
  const double half = t.quantile(alpha) * se;
  c.lo_pp = c.delta_pp - half;
  c.hi_pp = c.delta_pp + half;
  c.p = t.two_sided_p(c.delta_pp / se);
  return c;
}

Change welch_change(const Sides<std::span<const double>>& runs, double alpha) {
  const std::span<const double> base = runs.base, next = runs.next;
  Change c;
  if (base.empty() || next.empty()) return c;
  const double m1 = mean(base), m2 = mean(next);
  c.delta_pp = m2 - m1;
  if (base.size() < 2 || next.size() < 2) {
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    return c;
  }
  const double a = variance(base, m1) / base.size();
  const double b = variance(next, m2) / next.size();
  const double se2 = a + b;
  if (se2 <= 0) {
    c.lo_pp = c.hi_pp = c.delta_pp;
    c.p = c.delta_pp == 0 ? 1 : 0;
    return c;
  }
  // Welch–Satterthwaite degrees of freedom.
  const StudentT t(se2 * se2 / ((a * a) / (base.size() - 1.0) + (b * b) / (next.size() - 1.0)));
  const double se = std::sqrt(se2);
  const double half = t.quantile(alpha) * se;
  c.lo_pp = c.delta_pp - half;
  c.hi_pp = c.delta_pp + half;
  c.p = t.two_sided_p(c.delta_pp / se);
  return c;
}

Change share_change(const Sides<ShareSample>& s, NoiseMethod method, double alpha) {
  const Sides<Binomial> pooled{s.base.pooled, s.next.pooled};
  const Sides<double> dispersion{s.base.dispersion, s.next.dispersion};
  const double df = std::min(s.base.dispersion_df, s.next.dispersion_df);
  if (method == NoiseMethod::RunVariance) {
    return held_to_pooled(welch_change({s.base.run_pct, s.next.run_pct}, alpha),
                          dispersed_change(pooled, dispersion, alpha, df));
  }
  if (method == NoiseMethod::Sampling) return dispersed_change(pooled, dispersion, alpha, df);
  Change c;  // shares without counts: the change, and nothing about its noise
  c.delta_pp = s.next.pct - s.base.pct;
  c.lo_pp = -kInf;
  c.hi_pp = kInf;
  c.p = 1;
  return c;
}

RateRatio rate_ratio(const Sides<Rate>& rates, double alpha) {
  const uint64_t k1 = rates.base.events, k2 = rates.next.events;
  const double w1 = rates.base.exposure, w2 = rates.next.exposure;
  RateRatio out;
  const double n = static_cast<double>(k1 + k2);
  if (n == 0 || w1 <= 0 || w2 <= 0) return out;
  const double pi0 = w2 / (w1 + w2);
  const double x = static_cast<double>(k2);
  const double ph = x / n;
  const double z0 = (x - n * pi0) / std::sqrt(n * pi0 * (1 - pi0));
  out.p = normal_two_sided_p(z0);
  const double z = normal_quantile(alpha);
  const double den = 1 + z * z / n;
  const double mid = (ph + z * z / (2 * n)) / den;
  const double half = z * std::sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / den;
  auto to_ratio = [&](double pi) {
    if (pi >= 1) return kInf;
    return pi / (1 - pi) * (w1 / w2);
  };
  out.ratio = k1 ? (static_cast<double>(k2) / w2) / (static_cast<double>(k1) / w1) : kInf;
  out.lo = to_ratio(std::max(0.0, mid - half));
  out.hi = to_ratio(std::min(1.0, mid + half));
  return out;
}

Change rate_change(const Sides<RateSample>& s, NoiseMethod method, double alpha) {
  const double base = s.base.mean;
  const double point = 100.0 * (s.next.mean / base - 1.0);
  if (method == NoiseMethod::None) {
    Change c;
    c.delta_pp = point;
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    return c;
  }
  // Pooled counts: the count rate ratio's interval, moved onto the means'
  // point estimate.
  const RateRatio rr = rate_ratio({s.base.pooled, s.next.pooled}, alpha);
  Change pooled;
  pooled.delta_pp = point;
  pooled.p = rr.p;
  const double scale = std::isfinite(rr.ratio) && rr.ratio > 0 ? (point / 100 + 1) / rr.ratio : 1;
  pooled.lo_pp = 100.0 * (rr.lo * scale - 1.0);
  pooled.hi_pp = std::isfinite(rr.hi) ? 100.0 * (rr.hi * scale - 1.0) : kInf;
  if (method == NoiseMethod::Sampling) return pooled;
  Change c = welch_change({s.base.run_rate, s.next.run_rate}, alpha);
  c.delta_pp = point;
  c.lo_pp = 100.0 * c.lo_pp / base;
  c.hi_pp = 100.0 * c.hi_pp / base;
  return held_to_pooled(c, pooled);
}

}  // namespace kprof::stats
