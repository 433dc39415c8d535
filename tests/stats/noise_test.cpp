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

}  // namespace
}  // namespace kprof::stats
