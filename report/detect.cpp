#include "report/detect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kprof {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// Two-sided level alpha / m, as BH's rank-1 threshold with one change.
double per_row_alpha(double alpha, size_t m) {
  return alpha / static_cast<double>(std::max<size_t>(m, 1));
}

// One-sided power quantile: z with P(Z <= z) == power.
double power_z(double power) {
  return normal_quantile(2 * (1 - power));
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

// kPoints equiprobable points (midpoint quantiles) of chi2(k) / k, from its
// density on a grid in y = ln chi2 (smooth, no pole at 0: exp(k y / 2 - e^y / 2)).
constexpr int kPoints = 40;

std::vector<double> chi2_points(double k) {
  std::vector<double> out(kPoints, 1.0);
  if (k > 1e6) return out;
  const double s = std::sqrt(2 / k), centre = std::log(k);
  const double lo = centre - 40 * s, hi = centre + 12 * s;
  constexpr int kSteps = 1200;
  const double h = (hi - lo) / kSteps, mode = k / 2 * centre - k / 2;
  std::vector<double> cdf(kSteps + 1, 0.0);
  double prev = 0;
  for (int j = 0; j <= kSteps; ++j) {
    const double y = lo + h * j;
    const double w = std::exp(k / 2 * y - std::exp(y) / 2 - mode);
    cdf[j] = j ? cdf[j - 1] + (prev + w) / 2 : 0;
    prev = w;
  }
  const double total = cdf[kSteps];
  int j = 0;
  for (int i = 0; i < kPoints; ++i) {
    const double q = (i + 0.5) / kPoints * total;
    while (j < kSteps && cdf[j + 1] < q) ++j;
    const double span = cdf[j + 1] - cdf[j];
    const double y = lo + h * (j + (span > 0 ? (q - cdf[j]) / span : 0));
    out[i] = std::exp(y) / k;
  }
  return out;
}

// Welch's test with r1 and r2 runs at one per-row level: the sample-variance
// points of both sides and t(alpha_row, df) over Welch's df range, tabulated
// (log t linear in log df between points).
struct WelchModel {
  size_t r1, r2;
  double alpha_row;
  std::vector<double> u1, u2;
  double log_df_lo = 0, log_df_step = 0;
  std::vector<double> log_t;

  WelchModel(size_t runs1, size_t runs2, double alpha)
      : r1(runs1),
        r2(runs2),
        alpha_row(alpha),
        u1(chi2_points(r1 - 1.0)),
        u2(chi2_points(r2 - 1.0)) {
    constexpr int kTable = 64;
    const double lo = static_cast<double>(std::min(r1, r2) - 1);
    const double hi = static_cast<double>(r1 + r2 - 2);
    log_df_lo = std::log(lo);
    log_df_step = (std::log(hi) - log_df_lo) / (kTable - 1);
    for (int i = 0; i < kTable; ++i) {
      log_t.push_back(
          std::log(student_t_quantile(alpha_row, std::exp(log_df_lo + log_df_step * i))));
    }
  }

  double t_crit(double df) const {
    if (!(log_df_step > 0)) return std::exp(log_t[0]);
    const double x = std::clamp((std::log(df) - log_df_lo) / log_df_step, 0.0,
                                static_cast<double>(log_t.size() - 1));
    const size_t i = std::min(static_cast<size_t>(x), log_t.size() - 2);
    return std::exp(log_t[i] + (x - static_cast<double>(i)) * (log_t[i + 1] - log_t[i]));
  }

  // v1, v2: the variance of one run's value on each side.
  double power(double d, double v1, double v2) const {
    const double se = std::sqrt(v1 / r1 + v2 / r2);
    if (!(se > 0)) return d > 0 ? 1 : 0;
    const double k1 = static_cast<double>(r1 - 1), k2 = static_cast<double>(r2 - 1);
    double sum = 0;
    for (double a : u1) {
      for (double b : u2) {
        const double e1 = v1 / r1 * a, e2 = v2 / r2 * b, se2 = e1 + e2;
        const double df = se2 * se2 / (e1 * e1 / k1 + e2 * e2 / k2);
        sum += normal_cdf((d - t_crit(df) * std::sqrt(se2)) / se);
      }
    }
    return sum / static_cast<double>(u1.size() * u2.size());
  }
};

double sum_sq(const std::vector<double>& v, double& mean) {
  mean = 0;
  for (double x : v) mean += x / 100;
  mean /= static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x / 100 - mean) * (x / 100 - mean);
  return s;
}

std::vector<double> run_variance_floors(std::span<const double> shares_pct, const RunSpread& spread,
                                        size_t r1, size_t r2, size_t m, double alpha,
                                        double power) {
  std::vector<double> out(shares_pct.size(), kInf);
  if (r1 < 2 || r2 < 2) return out;
  const WelchModel model(r1, r2, per_row_alpha(alpha, m));
  for (size_t i = 0; i < shares_pct.size(); ++i) {
    const double p1 = shares_pct[i] / 100, v1 = spread.var(p1);
    out[i] = 100 * first_found(1 - p1, [&](double d) {
               return model.power(d, v1, spread.var(p1 + d)) >= power;
             });
  }
  return out;
}

}  // namespace

double RunSpread::var(double p) const {
  return a * p * (1 - p) + b * p * p * (1 - p) * (1 - p);
}

double RunSpread::sd_pp(double share_pct) const {
  return 100 * std::sqrt(var(share_pct / 100));
}

RunSpread fit_run_spread(const DiffInput& in, const DiffResult& result, size_t side) {
  RunSpread out;
  double inv = 0;
  size_t runs = 0;
  for (size_t s : {size_t{0}, side}) {
    if (s >= in.sides.size()) continue;
    for (const DiffRun& run : in.sides[s].runs) {
      const uint64_t n = run.samples();
      if (n) inv += 1.0 / static_cast<double>(n);
      ++runs;
    }
  }
  out.a = runs ? inv / static_cast<double>(runs) : 0;
  struct Point {
    double x, y, v, df;  // p (1 - p), p^2 (1 - p)^2, pooled variance, its df
  };
  std::vector<Point> pts;
  for (const DiffRow& row : result.rows) {
    if (side >= row.cells.size() || row.vs_base[side].sided != Sidedness::Both) continue;
    const std::vector<double>& r0 = row.cells[0].run_pct;
    const std::vector<double>& r1 = row.cells[side].run_pct;
    if (r0.size() < 2 || r1.size() < 2) continue;
    double m0, m1;
    const double ss = sum_sq(r0, m0) + sum_sq(r1, m1);
    const double df = static_cast<double>(r0.size() + r1.size() - 2);
    const double p = (m0 + m1) / 2;
    if (!(p > 0) || p >= 1) continue;
    pts.push_back({p * (1 - p), p * p * (1 - p) * (1 - p), ss / df, df});
  }
  out.rows = pts.size();
  // b = sum w y (v - a x) / sum w y^2, reweighted by the fit's own variance
  // (a pooled variance with df degrees of freedom has variance 2 var^2 / df).
  double b = 0;
  for (int iter = 0; iter < 50 && !pts.empty(); ++iter) {
    double num = 0, den = 0;
    for (const Point& q : pts) {
      const double f = std::max(out.a * q.x + b * q.y, 1e-300);
      const double w = q.df / (f * f);
      num += w * q.y * (q.v - out.a * q.x);
      den += w * q.y * q.y;
    }
    const double next = den > 0 ? std::max(0.0, num / den) : 0;
    const bool done = std::fabs(next - b) <= 1e-10 * std::max(next, 1e-300);
    b = next;
    if (done) break;
  }
  out.b = b;
  return out;
}

// ---------------------------------------------------------------- floors

double sampling_floor_pp(double share_pct, uint64_t n1, uint64_t n2, size_t m, double alpha,
                         double power) {
  if (n1 == 0 || n2 == 0) return kInf;
  const double p1 = share_pct / 100;
  const double z_a = normal_quantile(per_row_alpha(alpha, m)), z_b = power_z(power);
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

double welch_power(double d, double v1, double v2, size_t r1, size_t r2, double alpha_row) {
  if (r1 < 2 || r2 < 2) return 0;
  return WelchModel(r1, r2, alpha_row).power(d, v1, v2);
}

double run_variance_floor_pp(double share_pct, const RunSpread& spread, size_t r1, size_t r2,
                             size_t m, double alpha, double power) {
  const double share[] = {share_pct};
  return run_variance_floors(share, spread, r1, r2, m, alpha, power)[0];
}

// ---------------------------------------------------------------- per comparison

namespace {

std::vector<FloorAt> combined_floors(const DetectFloor& f, std::span<const double> shares,
                                     uint64_t n0, uint64_t n1, size_t r0, size_t r1) {
  std::vector<FloorAt> out;
  std::vector<double> rv;
  if (f.method == NoiseMethod::RunVariance) {
    rv = run_variance_floors(shares, f.spread, r0, r1, f.rows, f.alpha, f.power);
  }
  for (size_t i = 0; i < shares.size(); ++i) {
    FloorAt at;
    at.share_pct = shares[i];
    at.sampling_pp = sampling_floor_pp(shares[i], n0, n1, f.rows, f.alpha, f.power);
    at.floor_pp = at.sampling_pp;
    if (!rv.empty()) {
      at.run_variance_pp = rv[i];
      at.floor_pp = std::max(at.floor_pp, rv[i]);
    }
    out.push_back(at);
  }
  return out;
}

// Whether `r` runs a side (same samples per run) halve every floor in `f.at`.
bool halves(const DetectFloor& f, size_t r) {
  const double k0 = static_cast<double>(r) / static_cast<double>(f.base_runs);
  const double k1 = static_cast<double>(r) / static_cast<double>(f.new_runs);
  const auto n0 = static_cast<uint64_t>(std::llround(static_cast<double>(f.base_samples) * k0));
  const auto n1 = static_cast<uint64_t>(std::llround(static_cast<double>(f.new_samples) * k1));
  std::vector<double> shares;
  for (const FloorAt& at : f.at) shares.push_back(at.share_pct);
  const std::vector<FloorAt> now = combined_floors(f, shares, n0, n1, r, r);
  for (size_t i = 0; i < now.size(); ++i) {
    const double was = f.at[i].floor_pp, is = now[i].floor_pp;
    if (std::isinf(was) ? std::isinf(is) : is > was / 2) return false;
  }
  return true;
}

std::optional<size_t> runs_to_halve(const DetectFloor& f) {
  size_t bad = 1, good = 0;  // 1 run a side is no run-variance test
  for (size_t r = 2;; r *= 2) {
    r = std::min(r, kMaxPlanRuns);
    if (halves(f, r)) {
      good = r;
      break;
    }
    bad = r;
    if (r == kMaxPlanRuns) return std::nullopt;
  }
  while (good - bad > 1) {
    const size_t mid = bad + (good - bad) / 2;
    (halves(f, mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace

std::vector<DetectFloor> detectability(const DiffInput& in, const DiffResult& result,
                                       std::span<const double> shares_pct) {
  std::vector<DetectFloor> out;
  for (size_t s = 1; s < result.labels.size() && s < in.sides.size(); ++s) {
    DetectFloor f;
    f.side = s;
    f.label = result.labels[s];
    f.base_label = result.labels[0];
    f.method = s < result.noise.size() ? result.noise[s] : NoiseMethod::None;
    f.alpha = result.options.alpha;
    for (const DiffRow& row : result.rows) f.rows += row.vs_base[s].sided != Sidedness::Neither;
    for (const DiffRun& run : in.sides[0].runs) f.base_samples += run.samples();
    for (const DiffRun& run : in.sides[s].runs) f.new_samples += run.samples();
    f.base_runs = in.sides[0].runs.size();
    f.new_runs = in.sides[s].runs.size();
    if (f.method != NoiseMethod::None) {
      if (f.method == NoiseMethod::RunVariance) f.spread = fit_run_spread(in, result, s);
      f.at = combined_floors(f, shares_pct, f.base_samples, f.new_samples, f.base_runs, f.new_runs);
      if (f.method == NoiseMethod::Sampling) {
        f.halve_base_samples = 4 * f.base_samples;
        f.halve_new_samples = 4 * f.new_samples;
      } else {
        f.halve_runs = runs_to_halve(f);
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

// ---------------------------------------------------------------- text

namespace {

std::string grouped(uint64_t n) {  // 1234567 -> "1,234,567"
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Two significant digits: 0.93, 2.0, 12.
std::string two_digits(double v) {
  char buf[48];
  if (v >= 9.95) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (v >= 0.995 || v <= 0) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    const int decimals = std::min(8, 1 - static_cast<int>(std::floor(std::log10(v))));
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  }
  return buf;
}

std::string percent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", pct);
  return buf;
}

}  // namespace

void write_detectability(std::ostream& out, const std::vector<DetectFloor>& floors) {
  for (size_t i = 0; i < floors.size(); ++i) {
    const DetectFloor& f = floors[i];
    if (i) out << "\n";
    out << "Detectability floor for " << f.label << " against " << f.base_label;
    if (f.method == NoiseMethod::None) {
      out << ": none (a listing of shares without counts: nothing says how noisy its shares "
             "are)\n";
      continue;
    }
    out << " (";
    if (f.method == NoiseMethod::RunVariance) {
      out << "run-to-run variance, " << f.base_runs << " vs " << f.new_runs << " runs, ";
    } else {
      out << "sampling statistics, ";
    }
    out << grouped(f.base_samples) << " vs " << grouped(f.new_samples) << " samples, " << f.rows
        << " rows, FDR " << percent(100 * f.alpha) << ", " << percent(100 * f.power)
        << " power):\n";
    if (f.base_samples == 0 || f.new_samples == 0) {
      out << "  none: a side has no samples\n";
      continue;
    }
    out << " ";
    bool beyond = false, reachable = false;
    for (const FloorAt& at : f.at) {
      reachable = reachable || std::isfinite(at.floor_pp);
      out << " a " << percent(at.share_pct) << " row: ";
      if (std::isinf(at.floor_pp)) {
        out << "beyond reach";
        beyond = true;
      } else {
        out << "±" << two_digits(at.floor_pp) << " pp";
      }
      out << "  ";
    }
    if (f.method == NoiseMethod::Sampling) {
      out << " (4× the samples per side halves it: ~" << grouped(f.halve_base_samples) << " vs "
          << grouped(f.halve_new_samples) << ")\n";
    } else if (f.halve_runs) {
      out << " (" << *f.halve_runs << " runs per side "
          << (!reachable ? "bring every row within reach"
              : beyond   ? "halve it and bring every row within reach"
                         : "halve it")
          << ")\n";
    } else {
      out << " (not even " << kMaxPlanRuns << " runs per side would "
          << (reachable ? "halve it" : "bring it within reach") << ")\n";
    }
    if (f.method == NoiseMethod::RunVariance) {
      out << "  one run's share spreads (SD, fitted over " << f.spread.rows << " rows) by";
      for (size_t k = 0; k < f.at.size(); ++k) {
        out << (k ? ", " : " ") << two_digits(f.spread.sd_pp(f.at[k].share_pct)) << " pp at "
            << percent(f.at[k].share_pct);
      }
      out << "; the pooled counts' sampling statistics bind where they are larger\n";
    }
    if (beyond) {
      out << "  beyond reach: no change of that row's share is found " << percent(100 * f.power)
          << " of the time with these runs\n";
    }
  }
}

}  // namespace kprof
