// stats/screen.h (which rows are tested at all), stats/moderation.h (the
// moderated t's prior) and stats/dispersion.h (a recording's own spread),
// against hand-worked values, their definitions and simulation.
#include <gtest/gtest.h>

#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "stats/change.h"
#include "stats/dispersion.h"
#include "stats/fdr.h"
#include "stats/moderation.h"
#include "stats/screen.h"

namespace kprof::stats {
namespace {

// ---------------------------------------------------------------- screen

// Equal totals: all of N samples on one side is the most extreme split, and
// its p falls with N; a row of one sample can never be found.
TEST(Screen, MinimumAttainablePFallsWithTheTotal) {
  const Sides<uint64_t> n{10000, 10000};
  EXPECT_GT(min_attainable_p(1, n), 0.3);
  double last = 1;
  for (uint64_t t : {2, 3, 5, 8, 13, 21}) {
    const double p = min_attainable_p(t, n);
    EXPECT_LT(p, last) << t;
    last = p;
  }
  // The same as the test itself on that split.
  EXPECT_DOUBLE_EQ(min_attainable_p(13, n), sampling_change({{13, 10000}, {0, 10000}}).p);
  EXPECT_EQ(min_attainable_p(0, n), 1.0);
}

// Tarone's cut by hand: 1,900 rows of 1-2 samples, 100 of 50. With
// alpha = 0.05 the smallest K with at most K rows at min p <= alpha / K is
// K = 100 (the 1-2 sample rows have min p > 0.05 / 100): only the 100 big
// rows are tested.
TEST(Screen, TaroneLeavesOutRowsThatCannotReachSignificance) {
  std::vector<uint64_t> totals;
  for (int i = 0; i < 1900; ++i) totals.push_back(1 + i % 2);
  for (int i = 0; i < 100; ++i) totals.push_back(50);
  totals.push_back(0);
  const Screen s = screen_rows(totals, {100000, 100000}, 0.05);
  EXPECT_EQ(s.rows_tested, 100u);
  EXPECT_EQ(s.min_total, 50u);
  for (size_t i = 0; i < 1900; ++i) EXPECT_FALSE(s.tested[i]);
  for (size_t i = 1900; i < 2000; ++i) EXPECT_TRUE(s.tested[i]);
  EXPECT_FALSE(s.tested[2000]);  // no samples: never tested
}

// The screen keeps the false discovery rate: null rows (both sides drawn
// from one share), thousands of them tiny, and a few real changes. Over 300
// draws the FDR (false among selected, 0 when none is selected) stays at
// or under alpha; and the screen finds the real changes that testing every
// row misses.
TEST(Screen, KeepsTheFalseDiscoveryRateAndGainsPower) {
  std::mt19937_64 rng(42);
  const uint64_t n = 20000;
  double fdr_sum = 0;
  size_t found_screened = 0, found_all = 0;
  const int draws = 300;
  for (int d = 0; d < draws; ++d) {
    std::vector<uint64_t> kb, kn;
    std::vector<bool> real;
    auto add = [&](double pb, double pn, bool is_real) {
      kb.push_back(std::poisson_distribution<uint64_t>(pb * n)(rng));
      kn.push_back(std::poisson_distribution<uint64_t>(pn * n)(rng));
      real.push_back(is_real);
    };
    for (int i = 0; i < 2000; ++i) add(0.00006, 0.00006, false);  // ~1 sample each
    for (int i = 0; i < 40; ++i) add(0.01, 0.01, false);
    for (int i = 0; i < 3; ++i) add(0.02, 0.028, true);
    std::vector<uint64_t> totals;
    for (size_t i = 0; i < kb.size(); ++i) totals.push_back(kb[i] + kn[i]);
    const Screen s = screen_rows(totals, {n, n}, 0.05);
    auto run = [&](bool screened) {
      std::vector<double> p;
      std::vector<size_t> idx;
      for (size_t i = 0; i < kb.size(); ++i) {
        if (totals[i] == 0 || (screened && !s.tested[i])) continue;
        p.push_back(sampling_change({{kb[i], n}, {kn[i], n}}).p);
        idx.push_back(i);
      }
      const Selection sel = select_at_fdr(p, 0.05);
      size_t selected = 0, wrong = 0, right = 0;
      for (size_t j = 0; j < idx.size(); ++j) {
        if (sel.q[j] > 0.05) continue;
        ++selected;
        (real[idx[j]] ? right : wrong)++;
      }
      return std::tuple{selected, wrong, right};
    };
    const auto [sel, wrong, right] = run(true);
    fdr_sum += sel ? static_cast<double>(wrong) / static_cast<double>(sel) : 0;
    found_screened += right;
    found_all += std::get<2>(run(false));
  }
  EXPECT_LE(fdr_sum / draws, 0.05 + 0.02) << "the FDR over " << draws << " draws";
  EXPECT_GT(found_screened, found_all)
      << "screened " << found_screened << " vs all rows " << found_all;
}

// ---------------------------------------------------------------- moderation

TEST(Moderation, InverseTrigammaInvertsTrigamma) {
  for (double x : {0.01, 0.3, 1.0, 2.5, 10.0, 300.0}) {
    EXPECT_NEAR(inverse_trigamma(boost::math::trigamma(x)), x, 1e-6 * x) << x;
  }
}

// Rows whose true variances scatter about the trend as a scaled inverse
// chi-square with d0 = 8, each estimated with 4 df: the fit recovers d0 and
// the scale (Smyth 2004's moments; generous bounds: 3,000 rows).
TEST(Moderation, PriorIsRecoveredFromRowsThatFollowTheModel) {
  std::mt19937_64 rng(7);
  const double d0 = 8, scale = 2.0, df = 4;
  std::chi_squared_distribution<double> prior(d0), sample(df);
  std::vector<double> ratio, dfs;
  for (int i = 0; i < 3000; ++i) {
    const double sigma2 = scale * d0 / prior(rng);
    ratio.push_back(sigma2 * sample(rng) / df);
    dfs.push_back(df);
  }
  const VariancePrior p = fit_variance_prior(ratio, dfs);
  EXPECT_EQ(p.rows, 3000u);
  EXPECT_NEAR(p.df, d0, 2.5);
  EXPECT_NEAR(p.scale, scale, 0.2);
}

// Rows whose variances are all the trend's (no scatter beyond their df):
// an infinite d0, the scale their mean; fewer than 3 rows: no prior.
TEST(Moderation, RowsWithoutScatterGiveAnInfinitePrior) {
  std::mt19937_64 rng(8);
  std::chi_squared_distribution<double> sample(6);
  std::vector<double> ratio, dfs;
  for (int i = 0; i < 5000; ++i) {
    ratio.push_back(0.5 * sample(rng) / 6);
    dfs.push_back(6);
  }
  const VariancePrior p = fit_variance_prior(ratio, dfs);
  EXPECT_TRUE(std::isinf(p.df) || p.df > 60) << p.df;  // 5,000 rows' sampling error
  EXPECT_NEAR(p.scale, 0.5, 0.02);
  const double two[] = {1, 2}, df2[] = {3, 3};
  EXPECT_EQ(fit_variance_prior(two, df2).df, 0);
  EXPECT_EQ(moderate(3.0, 4, 1.0, fit_variance_prior(two, df2)).variance, 3.0);
}

// A hypervariable row among rows that follow the prior (Phipson et al.
// 2016): d0 is the others', the outlier gets a small prior df of its own
// and keeps most of its variance, typical rows keep (nearly) d0, and a row's prior
// df never rises with its F. The same when the others have no scatter at
// all (an infinite d0).
TEST(Moderation, HypervariableRowKeepsItsOwnVariance) {
  for (const double d0 : {20.0, std::numeric_limits<double>::infinity()}) {
    std::mt19937_64 rng(11);
    const double df = 4;
    std::chi_squared_distribution<double> prior(std::isinf(d0) ? 1.0 : d0), sample(df);
    std::vector<double> ratio, dfs;
    for (int i = 0; i < 3000; ++i) {
      const double sigma2 = std::isinf(d0) ? 1.0 : d0 / prior(rng);
      ratio.push_back(sigma2 * sample(rng) / df);
      dfs.push_back(df);
    }
    ratio.push_back(20);  // chi^2_4 / 4 > 20: p ~ 1e-15
    dfs.push_back(df);
    const VariancePrior p = fit_variance_prior(ratio, dfs);
    if (std::isinf(d0)) {
      EXPECT_GT(p.df, 200) << "no scatter";
    } else {
      EXPECT_NEAR(p.df, d0, 8);
    }
    ASSERT_FALSE(p.outlier_f.empty()) << d0;
    const Moderated out = moderate(20, df, 1, p);
    EXPECT_LT(out.df, df + 3) << d0;
    EXPECT_GT(out.variance, 10) << d0;
    // A typical row (F near the median) keeps nearly all of d0: its tail
    // and its rank's agree but for sampling, and a dip below its rank's
    // tail reads as a small chance of being an outlier.
    const Moderated typical = moderate(1.0, df, 1, p);
    EXPECT_GT(typical.df, std::isinf(d0) ? 200 : 0.8 * (df + p.df)) << d0;
    EXPECT_EQ(moderate(0.3, df, 1, p).df, df + p.df) << d0;  // below the median: d0
    for (size_t i = 0; i < p.outlier_df.size(); ++i) {
      EXPECT_LT(p.outlier_df[i], p.df);
      if (i) EXPECT_LE(p.outlier_df[i], p.outlier_df[i - 1]);
      if (i) EXPECT_GE(p.outlier_f[i], p.outlier_f[i - 1]);
    }
  }
}

// With no prior the moderated t is Student's pooled t; with an infinite one
// the trend's variance and a normal test.
TEST(Moderation, ModeratedTAtItsTwoEnds) {
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  const Change none = moderated_change({a, b}, 1.0, VariancePrior{});
  // Pooled variance 1, se sqrt(2/3), df 4: as Welch here (equal variances).
  const Change welch = welch_change({a, b});
  EXPECT_NEAR(none.p, welch.p, 1e-12);
  EXPECT_NEAR(none.hi_pp, welch.hi_pp, 1e-9);
  VariancePrior flat;
  flat.df = std::numeric_limits<double>::infinity();
  flat.scale = 1;
  const Change known = moderated_change({a, b}, 4.0, flat);  // variance 4: se sqrt(8/3)
  EXPECT_NEAR(known.p, std::erfc(3 / std::sqrt(8.0 / 3) / std::sqrt(2.0)), 1e-9);
}

// ---------------------------------------------------------------- dispersion

// Binomial slices: D near 1. Equal shares in every slice (systematic
// sampling of a steady program): D near 0. Bursts: D far above 1.
TEST(Dispersion, BatchMeansAgainstBinomial) {
  std::mt19937_64 rng(9);
  const std::vector<uint64_t> totals(16, 1000);
  double sum = 0, sum_sq = 0;
  for (int r = 0; r < 400; ++r) {
    std::vector<uint32_t> k;
    for (uint64_t n : totals) k.push_back(std::binomial_distribution<uint32_t>(n, 0.1)(rng));
    const Dispersion d = batch_dispersion(k, totals);
    EXPECT_NEAR(d.df, 2.0 * 15 * 15 / 44, 1e-12);
    sum += d.value;
    sum_sq += d.value * d.value;
  }
  EXPECT_NEAR(sum / 400, 1.0, 0.05);
  // It scatters as a chi-square with its df over df (variance 2 / df),
  // more than with one df a difference would (2 / 15).
  const double var = (sum_sq - sum * sum / 400) / 399;
  EXPECT_NEAR(var, 2 / (2.0 * 15 * 15 / 44), 0.04);
  EXPECT_GT(var, 2.0 / 15 + 0.02);
  const std::vector<uint32_t> steady(16, 100);
  EXPECT_NEAR(batch_dispersion(steady, totals).value, 0, 1e-12);
  std::vector<uint32_t> burst(16, 2);
  burst[3] = 30;
  EXPECT_GT(batch_dispersion(burst, totals).value, 5);
  EXPECT_EQ(batch_dispersion(std::vector<uint32_t>(16, 0), totals).df, 0);
}

// Successive differences: a phase (a row in the first half of the
// recording only, every recording alike) is one step, not burstiness; a
// burst still counts. Pooled over two runs, a run that missed the burst
// does not make the row look precise.
TEST(Dispersion, PhasesAreOneStepAndPoolingKeepsTheBursts) {
  const std::vector<uint64_t> totals(32, 1000);
  std::vector<uint32_t> phased(32, 0);
  for (size_t j = 0; j < 16; ++j) phased[j] = 200;  // 10% of the run, all in its first half
  // The plain sum of squares about p = 0.1: every slice 100 off.
  const double pearson = 32 * 100.0 * 100 / 1000 / (0.1 * 0.9) / 31;
  const double mssd = batch_dispersion(phased, totals).value;
  EXPECT_NEAR(mssd, 200.0 * 200 / 1000 / 2 / (0.1 * 0.9) / 31, 1e-9);  // one step of 200
  EXPECT_LT(mssd, pearson / 10);
  std::vector<uint32_t> burst(32, 2), calm(32, 2);
  burst[7] = 40;
  const SliceScatter b = slice_scatter(burst, totals), c = slice_scatter(calm, totals);
  EXPECT_EQ(b.terms, 31);
  EXPECT_NEAR(b.df, 2.0 * 31 * 31 / 92, 1e-12);
  EXPECT_EQ(c.ss, 0);
  const double p = (64.0 + 38 + 64) / 64000;
  const SliceScatter both[] = {b, c};
  const Dispersion pooled = pooled_dispersion(both, p);
  EXPECT_NEAR(pooled.df, 2 * b.df, 1e-12);
  EXPECT_GT(pooled.value, 5);
  // A run without the row: no scatter, but its slices count.
  const std::vector<uint32_t> none(32, 0);
  EXPECT_EQ(slice_scatter(none, totals).terms, 31);
  EXPECT_EQ(slice_scatter(none, totals).df, no_scatter(32).df);
  EXPECT_EQ(slice_scatter(none, totals).ss, 0);
  EXPECT_EQ(pooled_dispersion(both, 0).df, 0) << "a share of 0 says nothing";
}

// Moderation: rows that agree share their level; a row without slices
// gets it; with too few rows a row keeps its own.
TEST(Dispersion, ModeratedTowardTheRowsLevel) {
  std::vector<Dispersion> rows;
  for (double v : {0.2, 0.25, 0.3, 0.22, 0.28, 0.24}) rows.push_back({v, 31});
  const VariancePrior prior = fit_dispersion_prior(rows);
  EXPECT_NEAR(prior.scale, 0.25, 0.03);
  EXPECT_NEAR(moderated_dispersion({0.6, 31}, prior).variance, 0.25, 0.2);
  EXPECT_LT(moderated_dispersion({0.6, 31}, prior).variance, 0.6);
  EXPECT_DOUBLE_EQ(moderated_dispersion({1, 0}, prior).variance, prior.scale);
  const VariancePrior few = fit_dispersion_prior(std::span<const Dispersion>(rows).first(2));
  EXPECT_DOUBLE_EQ(moderated_dispersion({0.6, 31}, few).variance, 0.6);
  EXPECT_DOUBLE_EQ(moderated_dispersion({0.6, 0}, few).variance, 1.0);
}

// Effective counts: a dispersion of 1 is the sampling test; 0.25 is four
// times the samples; the point change stays the counts'.
TEST(Dispersion, EffectiveCountsScaleTheSamplingTest) {
  const Sides<Binomial> c{{300, 10000}, {360, 10000}};
  const Change plain = sampling_change(c);
  const Change one = dispersed_change(c, {1, 1});
  EXPECT_DOUBLE_EQ(one.p, plain.p);
  EXPECT_NEAR(one.delta_pp, plain.delta_pp, 1e-12);
  const Change four = sampling_change({{1200, 40000}, {1440, 40000}});
  const Change quarter = dispersed_change(c, {0.25, 0.25});
  EXPECT_NEAR(quarter.p, four.p, 1e-9);
  EXPECT_NEAR(quarter.delta_pp, plain.delta_pp, 1e-12);
}

// A dispersion measured over a run's slices is itself an estimate: a one
// run a side comparison that divides by it and reads the statistic as
// normal finds too much. Two binomial runs (no true change) of 8 slices of
// 125 samples each, the row at 30%: referred to Student's t with the
// dispersion's degrees of freedom (stats/dispersion.h: 2 x 49 / 20 = 4.9
// a run) the false alarms are alpha's; as normal, or with one df per
// successive difference, more.
TEST(Dispersion, ItsDegreesOfFreedomKeepOneRunASideAtItsLevel) {
  constexpr int kSims = 40000, kSlices = 8;
  constexpr uint64_t kPerSlice = 125;
  std::mt19937_64 rng(22);
  std::binomial_distribution<uint32_t> draw(kPerSlice, 0.3);
  const std::vector<uint64_t> totals(kSlices, kPerSlice);
  int as_t = 0, as_normal = 0, as_terms = 0;
  for (int i = 0; i < kSims; ++i) {
    std::vector<uint32_t> a(kSlices), b(kSlices);
    uint64_t ka = 0, kb = 0;
    for (int j = 0; j < kSlices; ++j) {
      ka += a[j] = draw(rng);
      kb += b[j] = draw(rng);
    }
    const SliceScatter runs[] = {slice_scatter(a, totals), slice_scatter(b, totals)};
    const uint64_t n = kSlices * kPerSlice;
    const Dispersion d =
        pooled_dispersion(runs, static_cast<double>(ka + kb) / static_cast<double>(2 * n));
    const Sides<Binomial> c{{ka, n}, {kb, n}};
    as_t += dispersed_change(c, {d.value, d.value}, 0.05, d.df).p < 0.05;
    as_terms += dispersed_change(c, {d.value, d.value}, 0.05, 14).p < 0.05;
    as_normal += dispersed_change(c, {d.value, d.value}).p < 0.05;
  }
  const double t_rate = static_cast<double>(as_t) / kSims;
  const double normal_rate = static_cast<double>(as_normal) / kSims;
  EXPECT_NEAR(t_rate, 0.05, 0.006);
  // Read as normal, or as t with one df per difference (2 x 7), too many.
  EXPECT_GT(normal_rate, 0.07);
  EXPECT_GT(static_cast<double>(as_terms) / kSims, 0.055);
}

}  // namespace
}  // namespace kprof::stats
