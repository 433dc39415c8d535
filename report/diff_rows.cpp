#include "report/diff_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/noise.h"
#include "report/table.h"

namespace kprof::diff_detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// The change of a row's share, at level 1 - alpha.
Change share_change(const DiffCell& a, const DiffCell& b, uint64_t n0, uint64_t n1,
                    NoiseMethod method, double alpha) {
  Change c;
  if (method == NoiseMethod::RunVariance) {
    // Two or three runs can spread less than sampling alone makes them:
    // a row with 2 samples in each new run and none in the base's has a
    // Welch p near 0. A row is a change only when the pooled counts say so
    // too: the larger p, and an interval holding both intervals, so the
    // interval and the verdict still agree.
    c = welch_change(a.run_pct, b.run_pct, alpha);
    const Change pooled = sampling_change(a.samples, n0, b.samples, n1, alpha);
    c.p = std::max(c.p, pooled.p);
    c.lo_pp = std::min(c.lo_pp, pooled.lo_pp);
    c.hi_pp = std::max(c.hi_pp, pooled.hi_pp);
  } else if (method == NoiseMethod::Sampling) {
    c = sampling_change(a.samples, n0, b.samples, n1, alpha);
  } else {  // shares without counts: the change, and nothing about its noise
    c.delta_pp = b.pct - a.pct;
    c.lo_pp = -kInf;
    c.hi_pp = kInf;
    c.p = 1;
  }
  return c;
}

// Samples per unit of work, new against base, with one run a side: given the
// row's k1 + k2 samples, k2 is binomial with pi0 = w2 / (w1 + w2) when both
// did as much per unit of work. The score test's p and the Wilson interval on
// pi (its inversion, so the two agree), as a rate ratio. nullopt-like {0, 0}
// bounds when a side has no work.
struct RateRatio {
  double ratio = 1, lo = 0, hi = kInf, p = 1;
};

RateRatio rate_ratio(uint64_t k1, double w1, uint64_t k2, double w2, double alpha) {
  RateRatio out;
  const double n = static_cast<double>(k1 + k2);
  if (n == 0 || w1 <= 0 || w2 <= 0) return out;
  const double pi0 = w2 / (w1 + w2);
  const double x = static_cast<double>(k2);
  const double ph = x / n;
  const double z0 = (x - n * pi0) / std::sqrt(n * pi0 * (1 - pi0));
  out.p = std::erfc(std::fabs(z0) / std::sqrt(2.0));
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

// The change of a row's events per work in % of the base's, at level
// 1 - alpha. Needs the base's events per work > 0.
Change work_change(const DiffCell& a, const DiffCell& b, const std::vector<RunTotals>& ta,
                   const std::vector<RunTotals>& tb, NoiseMethod method, double alpha) {
  const double base = *a.events_per_work;
  const double point = 100.0 * (*b.events_per_work / base - 1.0);
  double w1 = 0, w2 = 0;
  for (const RunTotals& t : ta) w1 += t.work;
  for (const RunTotals& t : tb) w2 += t.work;
  // Pooled counts: the sample-count rate ratio's interval, moved onto the
  // events' point estimate (periods per sample barely vary within a row).
  const RateRatio rr = rate_ratio(a.samples, w1, b.samples, w2, alpha);
  Change pooled;
  pooled.delta_pp = point;
  pooled.p = rr.p;
  const double scale = std::isfinite(rr.ratio) && rr.ratio > 0 ? (point / 100 + 1) / rr.ratio : 1;
  pooled.lo_pp = 100.0 * (rr.lo * scale - 1.0);
  pooled.hi_pp = std::isfinite(rr.hi) ? 100.0 * (rr.hi * scale - 1.0) : kInf;
  if (method == NoiseMethod::Sampling) return pooled;
  Change c = welch_change(a.run_events_per_work, b.run_events_per_work, alpha);
  c.delta_pp = point;
  c.lo_pp = 100.0 * c.lo_pp / base;
  c.hi_pp = 100.0 * c.hi_pp / base;
  c.p = std::max(c.p, pooled.p);
  c.lo_pp = std::min(c.lo_pp, pooled.lo_pp);
  c.hi_pp = std::max(c.hi_pp, pooled.hi_pp);
  return c;
}

// Benjamini–Hochberg over the p-values of the rows `tested`, then the false
// coverage-rate level: when R of the m rows are selected, alpha R / m (R = 0
// counts as 1). `set(row, q, level_alpha)` stores each row's q, verdict and
// its interval again at that level. Returns the level's alpha.
template <typename Set>
double judge(const std::vector<double>& p, const std::vector<size_t>& tested, double alpha,
             Set set) {
  if (p.empty()) return alpha;
  const std::vector<double> q = benjamini_hochberg(p);
  size_t selected = 0;
  for (double v : q) selected += v <= alpha;
  const double level =
      static_cast<double>(std::max<size_t>(selected, 1)) * alpha / static_cast<double>(q.size());
  for (size_t j = 0; j < tested.size(); ++j) set(tested[j], q[j], level);
  return level;
}

}  // namespace

DiffCell make_cell(const std::vector<Counts>& runs, const std::vector<RunTotals>& totals,
                   bool with_work) {
  DiffCell c;
  std::vector<double> epw;
  for (size_t r = 0; r < runs.size(); ++r) {
    c.samples += runs[r].samples;
    c.period += runs[r].period;
    c.run_pct.push_back(percent_of(runs[r].samples, totals[r].samples));
    if (with_work && totals[r].work > 0) {
      // Without periods in the histogram, a sample stands for one event.
      const double events = totals[r].period ? static_cast<double>(runs[r].period)
                                             : static_cast<double>(runs[r].samples);
      epw.push_back(events / totals[r].work);
    }
  }
  c.pct = mean_of(c.run_pct);
  if (with_work && epw.size() == runs.size()) {
    c.events_per_work = mean_of(epw);
    c.run_events_per_work = std::move(epw);
  }
  return c;
}

SideLevels compare_side(std::vector<DiffRow>& rows, size_t s, NoiseMethod method,
                        const std::vector<std::vector<RunTotals>>& totals, double alpha,
                        bool with_work) {
  uint64_t n0 = 0, n1 = 0;
  for (const RunTotals& t : totals[0]) n0 += t.samples;
  for (const RunTotals& t : totals[s]) n1 += t.samples;
  std::vector<double> p, work_p;
  std::vector<size_t> tested, work_tested;
  for (size_t i = 0; i < rows.size(); ++i) {
    DiffRow& row = rows[i];
    const DiffCell& a = row.cells[0];
    const DiffCell& b = row.cells[s];
    DiffCompare& c = row.vs_base[s];
    c.sided = a.samples && b.samples ? Sidedness::Both
              : a.samples            ? Sidedness::OnlyBase
              : b.samples            ? Sidedness::OnlyNew
                                     : Sidedness::Neither;
    c.change = share_change(a, b, n0, n1, method, alpha);
    if (a.pct > 0) c.ratio = b.pct / a.pct;
    if (a.events_per_work && b.events_per_work && *a.events_per_work > 0) {
      c.work_change_pct = 100.0 * (*b.events_per_work / *a.events_per_work - 1.0);
      if (with_work && method != NoiseMethod::None) {
        c.work_tested = true;
        c.work = work_change(a, b, totals[0], totals[s], method, alpha);
        work_p.push_back(c.work.p);
        work_tested.push_back(i);
      }
    }
    row.max_abs_delta = std::max(row.max_abs_delta, std::fabs(c.change.delta_pp));
    if (c.sided == Sidedness::Neither) continue;
    p.push_back(c.change.p);
    tested.push_back(i);
  }
  SideLevels levels;
  levels.share_alpha = judge(p, tested, alpha, [&](size_t i, double q, double level) {
    DiffCompare& c = rows[i].vs_base[s];
    c.q = q;
    c.within_noise = q > alpha;
    const Change wide = share_change(rows[i].cells[0], rows[i].cells[s], n0, n1, method, level);
    c.change.lo_pp = wide.lo_pp;
    c.change.hi_pp = wide.hi_pp;
  });
  levels.work_alpha = judge(work_p, work_tested, alpha, [&](size_t i, double q, double level) {
    DiffCompare& c = rows[i].vs_base[s];
    c.work_q = q;
    c.work_within_noise = q > alpha;
    const Change wide =
        work_change(rows[i].cells[0], rows[i].cells[s], totals[0], totals[s], method, level);
    c.work.lo_pp = wide.lo_pp;
    c.work.hi_pp = wide.hi_pp;
  });
  return levels;
}

}  // namespace kprof::diff_detail
