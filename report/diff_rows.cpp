#include "report/diff_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "report/table.h"
#include "stats/change.h"
#include "stats/dispersion.h"
#include "stats/fdr.h"
#include "stats/power.h"
#include "stats/screen.h"

namespace kprof::diff_detail {
namespace {

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// How a row's counts spread against binomial in one comparison, and the
// degrees of freedom that is known to (DiffCompare).
struct RowDispersion {
  double value = 1;
  double df = std::numeric_limits<double>::infinity();
};

// A row's share on one side, as the statistics take it.
stats::ShareSample share_sample(const DiffCell& c, uint64_t total, RowDispersion d) {
  return {c.pct, c.run_pct, {c.samples, total}, d.value, d.df};
}

// The change of a row's share, at level 1 - alpha (stats/change.h), its
// counts' dispersion `d` on both sides.
Change share_change(const DiffCell& a, const DiffCell& b, uint64_t n0, uint64_t n1, RowDispersion d,
                    NoiseMethod method, double alpha) {
  return stats::share_change({share_sample(a, n0, d), share_sample(b, n1, d)}, method, alpha);
}

// A row's events per work on one side: the mean and each run's, and its
// samples against the work of every run (the pooled counts).
stats::RateSample rate_sample(const DiffCell& c, const std::vector<RunTotals>& totals) {
  double work = 0;
  for (const RunTotals& t : totals) work += t.work;
  return {*c.events_per_work, c.run_events_per_work, {c.samples, work}};
}

// The change of a row's events per work in % of the base's, at level
// 1 - alpha. Needs the base's events per work > 0.
Change work_change(const DiffCell& a, const DiffCell& b, const std::vector<RunTotals>& ta,
                   const std::vector<RunTotals>& tb, NoiseMethod method, double alpha) {
  return stats::rate_change({rate_sample(a, ta), rate_sample(b, tb)}, method, alpha);
}

// Benjamini–Hochberg over the p-values of the rows `tested`, then the false
// coverage-rate level (stats/fdr.h). `set(row, q, level_alpha)` stores each
// row's q, verdict and its interval again at that level. Returns the level's
// alpha.
template <typename Set>
double judge(const std::vector<double>& p, const std::vector<size_t>& tested, double alpha,
             Set set) {
  const stats::Selection sel = stats::select_at_fdr(p, alpha);
  for (size_t j = 0; j < tested.size(); ++j) set(tested[j], sel.q[j], sel.level_alpha);
  return sel.level_alpha;
}

}  // namespace

DiffCell make_cell(const std::vector<Counts>& runs, const std::vector<RunTotals>& totals,
                   bool with_work, const std::vector<std::vector<uint32_t>>& slices) {
  DiffCell c;
  std::vector<double> epw;
  for (size_t r = 0; r < runs.size(); ++r) {
    // A run with slices that lacks the row: no scatter, over its B - 1 terms.
    const std::vector<uint64_t>& st = totals[r].slice_totals;
    const bool has = r < slices.size() && slices[r].size() == st.size();
    c.run_scatter.push_back(has                    ? stats::slice_scatter(slices[r], st)
                            : runs[r].samples == 0 ? stats::no_scatter(st.size())
                                                   : stats::SliceScatter{});
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
  for (size_t r = 0; r < runs.size(); ++r) {
    const bool absent = runs[r].samples == 0 && totals[r].cutoff > 0;
    c.unlisted |= absent;
    c.samples_max += absent ? totals[r].cutoff : runs[r].samples;
    c.run_pct_max.push_back(absent ? percent_of(totals[r].cutoff, totals[r].samples)
                                   : c.run_pct[r]);
  }
  c.pct_max = mean_of(c.run_pct_max);
  if (!c.unlisted) c.run_pct_max.clear();
  if (with_work && epw.size() == runs.size()) {
    c.events_per_work = mean_of(epw);
    c.run_events_per_work = std::move(epw);
  }
  return c;
}

namespace {

// A change's interval cut to what the quantity can do: a share lies in
// [0, 100], so a change of one in [-100, +100] pp; a rate cannot fall by
// more than all of it.
void clip_share(Change& c) {
  c.lo_pp = std::max(c.lo_pp, -100.0);
  c.hi_pp = std::min(c.hi_pp, 100.0);
}
void clip_rate(Change& c) {
  c.lo_pp = std::max(c.lo_pp, -100.0);
}

// Each row's counts' dispersion in the comparison of side s with the base,
// over both sides' runs' slices at the row's pooled share, moderated toward
// the rows' level (fitted over rows with a sample per slice on average;
// a rarer row is held to binomial at least); sets DiffCompare::dispersion.
// Returns the level (0: no slices, or no row with a sample per slice).
// The slices of both sides' runs: how many, and how many of the runs have
// none (fewer than 2).
struct SliceCount {
  size_t slices = 0, runs_without = 0;
  double df = 0;  // what a row's scatter over them is worth (stats::no_scatter)
};
SliceCount count_slices(const std::vector<std::vector<RunTotals>>& totals, size_t s) {
  SliceCount c;
  for (size_t side : {size_t{0}, s}) {
    for (const RunTotals& t : totals[side]) {
      const size_t b = t.slice_totals.size();
      c.slices += b >= 2 ? b : 0;
      c.runs_without += b < 2;
      c.df += stats::no_scatter(b).df;
    }
  }
  return c;
}

// Returns the level and the degrees of freedom a row with samples in every
// slice gives it (SideLevels).
std::pair<double, double> measure_dispersions(std::vector<DiffRow>& rows, size_t s, uint64_t n0,
                                              uint64_t n1, size_t slices) {
  constexpr double kKnown = std::numeric_limits<double>::infinity();
  if (slices == 0) return {0, kKnown};
  std::vector<stats::Dispersion> d(rows.size());
  std::vector<stats::SliceScatter> runs;
  for (size_t i = 0; i < rows.size(); ++i) {
    const DiffCell& a = rows[i].cells[0];
    const DiffCell& b = rows[i].cells[s];
    runs.assign(a.run_scatter.begin(), a.run_scatter.end());
    runs.insert(runs.end(), b.run_scatter.begin(), b.run_scatter.end());
    const double p = static_cast<double>(a.samples + b.samples) / static_cast<double>(n0 + n1);
    d[i] = stats::pooled_dispersion(runs, p);
  }
  std::vector<stats::Dispersion> informative;
  std::vector<bool> in_prior(rows.size(), false);
  double sum = 0, df = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<double>(rows[i].cells[0].samples + rows[i].cells[s].samples);
    if (d[i].df > 0 && k >= static_cast<double>(slices)) {
      informative.push_back(d[i]);
      in_prior[i] = true;
      sum += d[i].value * d[i].df;
      df += d[i].df;
    }
  }
  const stats::VariancePrior prior = stats::fit_dispersion_prior(informative);
  double own_df = 0;  // a row's own: every run with slices gives its slices' df
  for (size_t i = 0; i < rows.size(); ++i) {
    DiffCompare& c = rows[i].vs_base[s];
    c.dispersion_df = d[i].df;
    own_df = std::max(own_df, d[i].df);
    // A rarer row is sampled at random, not at regular intervals: binomial
    // at least (known, not measured), and more where its own slices say it
    // is bursty (measured, with their degrees of freedom).
    if (in_prior[i]) {
      const stats::Moderated m = stats::moderated_dispersion(d[i], prior);
      c.dispersion = m.variance;
      c.dispersion_test_df = m.df;
    } else if (d[i].df > 0 && d[i].value > 1) {
      c.dispersion = d[i].value;
      c.dispersion_test_df = d[i].df;
    } else {
      c.dispersion = 1;
      c.dispersion_test_df = kKnown;
    }
  }
  if (informative.empty()) return {0, kKnown};
  if (prior.rows >= 3) return {prior.scale, stats::moderated_df(own_df, prior)};
  return {sum / df, own_df};
}

// The spread of one run's share over the rows present on both sides.
stats::RunSpread fit_spread(const std::vector<DiffRow>& rows, size_t s,
                            const std::vector<std::vector<RunTotals>>& totals, double dispersion) {
  std::vector<uint64_t> run_samples;
  for (size_t side : {size_t{0}, s}) {
    for (const RunTotals& t : totals[side]) run_samples.push_back(t.samples);
  }
  std::vector<stats::RunShares> shares;
  for (const DiffRow& row : rows) {
    if (row.vs_base[s].sided != Sidedness::Both) continue;
    shares.push_back({row.cells[0].run_pct, row.cells[s].run_pct});
  }
  // The slices' degrees of freedom, when every run has slices.
  const SliceCount c = count_slices(totals, s);
  const bool every = dispersion > 0 && c.runs_without == 0;
  return stats::fit_run_spread(run_samples, shares, dispersion > 0 ? dispersion : 1.0,
                               every ? c.df : 0.0);
}

// An unlisted cell at the top of its bounds (its list's cutoff).
DiffCell at_most(const DiffCell& c) {
  if (!c.unlisted) return c;
  DiffCell m = c;
  m.pct = c.pct_max;
  m.samples = c.samples_max;
  m.run_pct = c.run_pct_max;
  return m;
}

}  // namespace

SideLevels compare_side(std::vector<DiffRow>& rows, size_t s, NoiseMethod method,
                        const std::vector<std::vector<RunTotals>>& totals, double alpha,
                        bool with_work) {
  uint64_t n0 = 0, n1 = 0;
  double w0 = 0, w1 = 0, e0 = 0, e1 = 0;
  for (const RunTotals& t : totals[0]) {
    n0 += t.samples;
    w0 += t.work;
    e0 += static_cast<double>(t.period ? t.period : t.samples);
  }
  for (const RunTotals& t : totals[s]) {
    n1 += t.samples;
    w1 += t.work;
    e1 += static_cast<double>(t.period ? t.period : t.samples);
  }
  // The whole's events per work, new against base (for overweight).
  const double whole = w0 > 0 && w1 > 0 && e0 > 0 ? (e1 / w1) / (e0 / w0) : 0;
  SideLevels levels;
  std::vector<uint64_t> row_totals(rows.size(), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    DiffRow& row = rows[i];
    const DiffCell& a = row.cells[0];
    const DiffCell& b = row.cells[s];
    DiffCompare& c = row.vs_base[s];
    // An unlisted cell is there, below its list's cutoff: never +++ / ---.
    const bool in_a = a.samples || a.unlisted, in_b = b.samples || b.unlisted;
    c.sided = in_a && in_b ? Sidedness::Both
              : in_a       ? Sidedness::OnlyBase
              : in_b       ? Sidedness::OnlyNew
                           : Sidedness::Neither;
    if (a.unlisted || b.unlisted) {
      c.bounded = true;
      c.bounds_lo = b.pct - a.pct_max;
      c.bounds_hi = b.pct_max - a.pct;
      const double lo = a.pct_max > 0 ? b.pct / a.pct_max : 0;
      if (a.pct > 0 && b.pct_max <= a.pct) {
        c.ratio = b.pct_max / a.pct, c.ratio_bound = RatioBound::AtMost;
      } else if (a.pct_max > 0 && lo >= 1) {
        c.ratio = lo, c.ratio_bound = RatioBound::AtLeast;
      } else {
        c.ratio_bound = RatioBound::Unknown;
      }
    } else if (a.pct > 0) {
      c.ratio = b.pct / a.pct;
    }
    if (a.events_per_work && b.events_per_work && *a.events_per_work > 0) {
      c.work_change_pct = 100.0 * (*b.events_per_work / *a.events_per_work - 1.0);
      if (whole > 0) {
        c.overweight_pct = 100.0 * ((*b.events_per_work / *a.events_per_work) / whole - 1.0);
      }
    }
    if (c.sided != Sidedness::Neither) {
      row_totals[i] = a.samples_max + b.samples_max;
      ++levels.screened.rows_with_samples;
    }
  }
  if (method != NoiseMethod::None) {
    std::tie(levels.dispersion, levels.dispersion_df) =
        measure_dispersions(rows, s, n0, n1, count_slices(totals, s).slices);
  }
  if (method == NoiseMethod::RunVariance) {
    levels.spread = fit_spread(rows, s, totals, levels.dispersion);
  }
  const bool moderated = method == NoiseMethod::RunVariance && levels.spread.fitted();
  auto cells_change = [&](const DiffCell& a, const DiffCell& b, RowDispersion d, double level) {
    if (!moderated) return share_change(a, b, n0, n1, d, method, level);
    const double p = (a.pct + b.pct) / 200;
    // A prior from the slices is each row's own: its slices' dispersion.
    const double trend = levels.spread.from_slices
                             ? levels.spread.binomial_a * d.value * p * (1 - p)
                             : levels.spread.trend(p);
    return stats::moderated_change({a.run_pct, b.run_pct}, 1e4 * trend, levels.spread.prior, level);
  };
  auto change_at = [&](size_t i, double level) {
    const DiffCell& a = rows[i].cells[0];
    const DiffCell& b = rows[i].cells[s];
    const DiffCompare& d = rows[i].vs_base[s];
    const RowDispersion disp{d.dispersion, d.dispersion_test_df};
    Change c;
    if (!d.bounded) {
      c = cells_change(a, b, disp, level);
    } else if (method == NoiseMethod::None) {
      c.lo_pp = d.bounds_lo, c.hi_pp = d.bounds_hi;
    } else {
      // The two ends: the lowest change (base at its most, new at its
      // least) and the highest; tested at the one nearer no change.
      const Change low = cells_change(at_most(a), b, disp, level);
      const Change high = cells_change(a, at_most(b), disp, level);
      c.lo_pp = std::min(low.lo_pp, high.lo_pp);
      c.hi_pp = std::max(low.hi_pp, high.hi_pp);
      c.p = d.bounds_lo > 0 ? low.p : d.bounds_hi < 0 ? high.p : 1.0;
    }
    if (d.bounded) {
      c.delta_pp = d.bounds_lo > 0 ? d.bounds_lo : d.bounds_hi < 0 ? d.bounds_hi : 0.0;
    }
    clip_share(c);
    return c;
  };
  // Rows that could never be found are not tested (listings of shares
  // without counts get no verdict at all, so no screen either).
  stats::Screen screen;
  if (method != NoiseMethod::None) {
    screen = stats::screen_rows(row_totals, {n0, n1}, alpha);
    levels.screened.rows_tested = screen.rows_tested;
    levels.screened.min_total = screen.min_total;
  }
  std::vector<double> p, work_p;
  std::vector<size_t> tested, work_tested;
  for (size_t i = 0; i < rows.size(); ++i) {
    DiffRow& row = rows[i];
    DiffCompare& c = row.vs_base[s];
    c.change = change_at(i, alpha);
    row.max_abs_delta = std::max(row.max_abs_delta, std::fabs(c.change.delta_pp));
    if (c.sided == Sidedness::Neither) continue;
    if (method != NoiseMethod::None && !screen.tested[i]) {
      c.untested = true;
      c.change.p = 1;
      c.change.lo_pp = -std::numeric_limits<double>::infinity();
      c.change.hi_pp = std::numeric_limits<double>::infinity();
      continue;
    }
    p.push_back(c.change.p);
    tested.push_back(i);
    if (c.work_change_pct && with_work && method == NoiseMethod::RunVariance) {
      c.work_tested = true;
      c.work = work_change(row.cells[0], row.cells[s], totals[0], totals[s], method, alpha);
      clip_rate(c.work);
      work_p.push_back(c.work.p);
      work_tested.push_back(i);
    }
  }
  levels.share_alpha = judge(p, tested, alpha, [&](size_t i, double q, double level) {
    DiffCompare& c = rows[i].vs_base[s];
    c.q = q;
    c.within_noise = q > alpha;
    const Change wide = change_at(i, level);
    c.change.lo_pp = wide.lo_pp;
    c.change.hi_pp = wide.hi_pp;
  });
  levels.work_alpha = judge(work_p, work_tested, alpha, [&](size_t i, double q, double level) {
    DiffCompare& c = rows[i].vs_base[s];
    c.work_q = q;
    c.work_within_noise = q > alpha;
    Change wide =
        work_change(rows[i].cells[0], rows[i].cells[s], totals[0], totals[s], method, level);
    clip_rate(wide);
    c.work.lo_pp = wide.lo_pp;
    c.work.hi_pp = wide.hi_pp;
  });
  return levels;
}

}  // namespace kprof::diff_detail
