// The statistics behind noise verdicts (stats/change.h, stats/fdr.h,
// stats/distributions.h), against published reference values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "stats/change.h"
#include "stats/distributions.h"
#include "stats/fdr.h"

namespace kprof::stats {
namespace {

TEST(Noise, NormalAndStudentQuantiles) {
  EXPECT_NEAR(normal_quantile(0.05), 1.959963985, 1e-8);
  EXPECT_NEAR(StudentT(10).quantile(0.05), 2.228138852, 1e-7);
  EXPECT_NEAR(StudentT(4).quantile(0.05), 2.776445105, 1e-7);
  EXPECT_NEAR(StudentT(1.0).two_sided_p(1.0), 0.5, 1e-10);  // Cauchy
  EXPECT_NEAR(StudentT(10).two_sided_p(2.228138852), 0.05, 1e-8);
  EXPECT_NEAR(StudentT(7).two_sided_p(0.0), 1.0, 1e-12);
}

// Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 - 48/80,
// method 10 interval 0.0524 to 0.3339.
TEST(Noise, SamplingIntervalMatchesNewcombeExample) {
  Change c = sampling_change({{48, 80}, {56, 70}});
  EXPECT_NEAR(c.delta_pp, 20.0, 1e-9);
  EXPECT_NEAR(c.lo_pp, 5.24, 0.01);
  EXPECT_NEAR(c.hi_pp, 33.39, 0.01);
  EXPECT_LT(c.p, 0.05);
}

TEST(Noise, SamplingIntervalShrinksWithSamples) {
  Change small = sampling_change({{10, 1000}, {12, 1000}});
  Change large = sampling_change({{10000, 1000000}, {12000, 1000000}});
  EXPECT_NEAR(small.delta_pp, large.delta_pp, 1e-12);
  EXPECT_GT(small.p, 0.05);  // 10 vs 12 samples: noise
  EXPECT_LT(large.p, 1e-6);  // the same shares from 1000x the samples: real
  EXPECT_LT(large.hi_pp - large.lo_pp, (small.hi_pp - small.lo_pp) / 10);
  EXPECT_TRUE(std::isinf(sampling_change({{1, 0}, {1, 10}}).hi_pp));
}

TEST(Noise, SamplingPValueAgreesWithTheIntervalForFewSamples) {
  // 1 of 21 samples against 0 of 543: a z-test says p ~ 4e-7; the score
  // interval [-22.7, -0.8] pp barely excludes 0, and p agrees with it.
  Change c = sampling_change({{1, 21}, {0, 543}});
  EXPECT_LT(c.hi_pp, 0);
  EXPECT_LT(c.lo_pp, -20);
  EXPECT_LT(c.p, 0.05);
  EXPECT_GT(c.p, 0.001);
  using Four = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>;
  for (double alpha : {0.2, 0.05, 0.01, 0.001}) {
    for (auto [k1, n1, k2, n2] :
         {Four{1, 21, 0, 543}, Four{30, 1000, 45, 1000}, Four{5, 50, 1, 60}}) {
      Change x = sampling_change({{k1, n1}, {k2, n2}}, alpha);
      EXPECT_EQ(x.p<alpha, x.lo_pp> 0 || x.hi_pp < 0) << k1 << "/" << n1 << " " << alpha;
    }
  }
}

TEST(Noise, WelchEqualVariances) {
  // Equal n and variances: df = 2n - 2 = 4, se = sqrt(2/3).
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  Change c = welch_change({a, b});
  const double se = std::sqrt(2.0 / 3.0);
  EXPECT_NEAR(c.delta_pp, 3.0, 1e-12);
  EXPECT_NEAR(c.hi_pp - c.delta_pp, 2.776445105 * se, 1e-6);
  EXPECT_NEAR(c.p, StudentT(4).two_sided_p(3.0 / se), 1e-12);
  EXPECT_NEAR(c.p, 0.02131, 1e-4);
}

TEST(Noise, WelchNoiseAndDegenerateCases) {
  const std::vector<double> a = {1.0, 1.4, 0.8}, b = {1.2, 0.9, 1.3};
  EXPECT_GT(welch_change({a, b}).p, 0.5);
  const std::vector<double> same = {2, 2, 2}, other = {3, 3, 3}, one = {3};
  EXPECT_EQ(welch_change({same, same}).p, 1.0);
  EXPECT_EQ(welch_change({same, other}).p, 0.0);
  EXPECT_TRUE(std::isinf(welch_change({same, one}).hi_pp));
}

TEST(Noise, BenjaminiHochberg) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> q = benjamini_hochberg(p);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
  // Many null rows: a lone p of 0.01 among 100 is not a discovery.
  std::vector<double> many(100, 0.5);
  many[7] = 0.01;
  EXPECT_GT(benjamini_hochberg(many)[7], 0.05);
}

// The rest of Newcombe (1998)'s Table II, method 10 (hybrid score, no
// continuity correction), examples (b)-(h): 9/10 - 3/10: 0.1705 to 0.8090;
// 6/7 - 2/7: 0.0582 to 0.8062; 5/56 - 0/29: -0.0381 to 0.1926; 0/10 - 0/20:
// -0.1611 to 0.2775; 0/10 - 0/10: -0.2775 to 0.2775; 10/10 - 0/20: 0.6791
// to 1.0000; 10/10 - 0/10: 0.6075 to 1.0000.
TEST(Noise, SamplingIntervalMatchesNewcombeTableII) {
  struct Case {
    Binomial base, next;
    double lo, hi;
  };
  for (const Case& c :
       {Case{{3, 10}, {9, 10}, 0.1705, 0.8090}, Case{{2, 7}, {6, 7}, 0.0582, 0.8062},
        Case{{0, 29}, {5, 56}, -0.0381, 0.1926}, Case{{0, 20}, {0, 10}, -0.1611, 0.2775},
        Case{{0, 10}, {0, 10}, -0.2775, 0.2775}, Case{{0, 20}, {10, 10}, 0.6791, 1.0},
        Case{{0, 10}, {10, 10}, 0.6075, 1.0}}) {
    const Change x = sampling_change({c.base, c.next});
    EXPECT_NEAR(x.lo_pp / 100, c.lo, 6e-5) << c.next.k << "/" << c.next.n;
    EXPECT_NEAR(x.hi_pp / 100, c.hi, 6e-5) << c.next.k << "/" << c.next.n;
    EXPECT_EQ(x.p <= 0.05, x.lo_pp > 0 || x.hi_pp < 0);
  }
}

// The edges callers meet: nothing throws, and the answers are the limits.
TEST(Noise, DistributionEdges) {
  EXPECT_EQ(normal_quantile(1), 0);
  EXPECT_EQ(normal_quantile(std::nan("")), 0);
  for (double tiny : {0.0, 1e-320, 1e-300}) {  // the tail a double holds: ~37-38.5
    EXPECT_GT(normal_quantile(tiny), 37) << tiny;
    EXPECT_LT(normal_quantile(tiny), 38.5) << tiny;
  }
  EXPECT_NEAR(normal_two_sided_p(1.959963985), 0.05, 1e-9);
  EXPECT_EQ(normal_two_sided_p(std::numeric_limits<double>::infinity()), 0);
  EXPECT_NEAR(normal_cdf(-1.959963985), 0.025, 1e-10);
  EXPECT_EQ(StudentT(4).two_sided_p(std::numeric_limits<double>::infinity()), 0);
  EXPECT_EQ(StudentT(4).two_sided_p(std::nan("")), 0);
  EXPECT_EQ(StudentT(4).quantile(1), 0);
  EXPECT_EQ(StudentT(1).quantile(1e-300), 0x1p40);  // Cauchy: 6e299, capped
  EXPECT_EQ(StudentT(3).quantile(0), 0x1p40);
  // A df beyond 1 / epsilon, or infinite, is the normal.
  EXPECT_NEAR(StudentT(1e300).quantile(0.05), 1.959963985, 1e-8);
  EXPECT_NEAR(StudentT(std::numeric_limits<double>::infinity()).two_sided_p(1.959963985), 0.05,
              1e-9);
  EXPECT_NEAR(StudentT(1e7).two_sided_p(1.959963985), 0.05, 1e-7);
}

// 10 events against 30 over the same exposure: given 40, the new side's
// count is binomial(40, 1/2) under equal rates, z = (30 - 20) / sqrt(10),
// p = 2 Phi(-sqrt(10)) = 0.0015654 (by hand). The interval inverts that
// score test: at each end, the test of that ratio has |z| = z(alpha/2).
TEST(Noise, RateRatioScoreTestAndItsInterval) {
  const RateRatio r = rate_ratio({{10, 1.0}, {30, 1.0}}, 0.05);
  EXPECT_DOUBLE_EQ(r.ratio, 3);
  EXPECT_NEAR(r.p, 0.0015654, 1e-7);
  for (double end : {r.lo, r.hi}) {
    const double pi = end / (1 + end);  // the ratio with equal exposure as a binomial pi
    EXPECT_NEAR(std::fabs(30 - 40 * pi) / std::sqrt(40 * pi * (1 - pi)), 1.959963985, 1e-6);
  }
  EXPECT_LT(r.lo, 3);
  EXPECT_GT(r.hi, 3);
  // Exposure counts: 30 events over twice the exposure is a ratio of 1.5.
  const RateRatio half = rate_ratio({{10, 1.0}, {30, 2.0}}, 0.05);
  EXPECT_DOUBLE_EQ(half.ratio, 1.5);
  EXPECT_GT(half.p, 0.05);
  EXPECT_LT(half.lo, 1);
  // Nothing to compare: ratio 1, p 1; no base events: an infinite ratio.
  EXPECT_EQ(rate_ratio({{0, 1.0}, {0, 1.0}}, 0.05).p, 1);
  EXPECT_EQ(rate_ratio({{5, 0.0}, {5, 1.0}}, 0.05).p, 1);
  EXPECT_TRUE(std::isinf(rate_ratio({{0, 1.0}, {5, 1.0}}, 0.05).ratio));
}

// Run-to-run variance held to the pooled counts: two runs of 2 samples a
// side against none has a Welch p near 0, the pooled counts do not agree.
TEST(Noise, RunVarianceIsHeldToThePooledCounts) {
  const std::vector<double> base = {0, 0}, next = {0.2, 0.2001};
  const Sides<ShareSample> s{{0, base, {0, 2000}}, {0.20005, next, {4, 2000}}};
  const Change welch = welch_change({base, next});
  const Change pooled = sampling_change({{0, 2000}, {4, 2000}});
  const Change held = share_change(s, NoiseMethod::RunVariance, 0.05);
  EXPECT_LT(welch.p, 1e-3);
  EXPECT_EQ(held.p, std::max(welch.p, pooled.p));
  EXPECT_EQ(held.lo_pp, std::min(welch.lo_pp, pooled.lo_pp));
  EXPECT_EQ(held.hi_pp, std::max(welch.hi_pp, pooled.hi_pp));
  EXPECT_EQ(share_change(s, NoiseMethod::Sampling, 0.05).p, pooled.p);
  const Change none = share_change(s, NoiseMethod::None, 0.05);
  EXPECT_DOUBLE_EQ(none.delta_pp, 0.20005);
  EXPECT_EQ(none.p, 1);
  EXPECT_TRUE(std::isinf(none.hi_pp));
}

// A rate in % of the base's: Sampling is the pooled counts' rate ratio moved
// onto the means' ratio; RunVariance Welch in % of the base, held to that.
TEST(Noise, RateChangeInPercentOfTheBase) {
  const std::vector<double> base = {10, 11, 9}, next = {15, 16, 14};
  const Sides<RateSample> s{{10, base, {300, 30}}, {15, next, {450, 30}}};
  const Change sampling = rate_change(s, NoiseMethod::Sampling, 0.05);
  const RateRatio rr = rate_ratio({{300, 30}, {450, 30}}, 0.05);
  EXPECT_DOUBLE_EQ(sampling.delta_pp, 50);
  EXPECT_EQ(sampling.p, rr.p);
  EXPECT_NEAR(sampling.lo_pp, 100 * (rr.lo - 1), 1e-9);  // the means' ratio is the counts'
  const Change runs = rate_change(s, NoiseMethod::RunVariance, 0.05);
  const Change welch = welch_change({base, next});
  EXPECT_DOUBLE_EQ(runs.delta_pp, 50);
  EXPECT_EQ(runs.p, std::max(welch.p, rr.p));
  EXPECT_EQ(runs.lo_pp, std::min(100 * welch.lo_pp / 10, sampling.lo_pp));
}

// The false coverage-rate level: R of m selected gives R alpha / m, none
// selected counts as one, no rows leaves alpha.
TEST(Noise, FalseCoverageRateLevel) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const Selection all = select_at_fdr(p, 0.05);
  EXPECT_EQ(all.selected, 4u);
  EXPECT_DOUBLE_EQ(all.level_alpha, 0.05);
  EXPECT_EQ(all.q, benjamini_hochberg(p));
  std::vector<double> many(100, 0.5);
  many[7] = 0.01;
  const Selection none = select_at_fdr(many, 0.05);
  EXPECT_EQ(none.selected, 0u);
  EXPECT_DOUBLE_EQ(none.level_alpha, 0.05 / 100);
  many[3] = 1e-6;
  EXPECT_EQ(select_at_fdr(many, 0.05).selected, 1u);
  const Selection empty = select_at_fdr({}, 0.05);
  EXPECT_TRUE(empty.q.empty());
  EXPECT_EQ(empty.level_alpha, 0.05);
}

}  // namespace
}  // namespace kprof::stats
