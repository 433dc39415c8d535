// The floors and power of stats/power.h on hand-made inputs: their own
// equations, published sample sizes and an independent formula, a Monte
// Carlo of Welch's test, and the spread fit recovering its model. (The
// diff's floors by simulation: tests/diff/detect_test.cpp.)
#include <gtest/gtest.h>

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "stats/distributions.h"
#include "stats/policy.h"
#include "stats/power.h"

namespace kprof::stats {
namespace {

// ---------------------------------------------------------------- sampling floor

// n = 10,000 a side, m = 100 rows, a 5% row: the floor solves the
// two-proportion power equation, within 8% of the first-order closed form
// (z(alpha/m) + z(0.8)) sqrt(2 p q / n) = 1.33 pp and not under it.
TEST(SamplingFloor, SolvesThePowerEquation) {
  const double d = sampling_floor_pp(5, {10000, 10000}, {100, 0.05}) / 100;
  const double z_a = normal_quantile(0.05 / 100), z_b = normal_quantile(0.4);
  EXPECT_NEAR(z_a, 3.4807, 1e-3);
  EXPECT_NEAR(z_b, 0.8416, 1e-3);
  const double p1 = 0.05, p2 = p1 + d, pbar = (p1 + p2) / 2, n = 10000;
  const double rhs = z_a * std::sqrt(pbar * (1 - pbar) * 2 / n) +
                     z_b * std::sqrt(p1 * (1 - p1) / n + p2 * (1 - p2) / n);
  EXPECT_NEAR(d, rhs, 1e-9);
  const double first_order = (z_a + z_b) * std::sqrt(2 * p1 * (1 - p1) / n);
  EXPECT_NEAR(first_order * 100, 1.3323, 1e-3);
  EXPECT_GE(d, first_order);
  EXPECT_LE(d, first_order * 1.08);
  // 4x the samples at least halves it; more rows raise it; no samples, none.
  EXPECT_LE(sampling_floor_pp(5, {40000, 40000}, {100, 0.05}), 100 * d / 2);
  EXPECT_GT(sampling_floor_pp(5, {10000, 10000}, {1000, 0.05}), 100 * d);
  EXPECT_TRUE(std::isinf(sampling_floor_pp(5, {0, 10000}, {100, 0.05})));
  // One row tested: alpha itself, (1.96 + 0.84) to first order.
  EXPECT_NEAR(sampling_floor_pp(5, {1000000, 1000000}, {1, 0.05}),
              100 * (1.95996 + 0.84162) * std::sqrt(2 * 0.05 * 0.95 / 1e6), 0.002);
  // A power below one half: z(power) is negative, (1.96 - 0.84) to first
  // order for 20%, and exactly the test's threshold for 50%.
  EXPECT_NEAR(sampling_floor_pp(5, {1000000, 1000000}, {1, 0.05, 0.2}),
              100 * (1.95996 - 0.84162) * std::sqrt(2 * 0.05 * 0.95 / 1e6), 0.002);
  EXPECT_NEAR(sampling_floor_pp(5, {1000000, 1000000}, {1, 0.05, 0.5}),
              100 * 1.95996 * std::sqrt(2 * 0.05 * 0.95 / 1e6), 0.002);
}

// The two-proportion sample size of Fleiss (Fleiss, Levin & Paik 2003,
// Statistical Methods for Rates and Proportions, 3rd ed., ch. 4), without
// the continuity correction, for a two-sided test at 0.05 with power 0.8,
//   n = [z(.025) sqrt(2 pbar qbar) + z(.2) sqrt(p1 q1 + p2 q2)]^2 / (p2 - p1)^2,
// worked by hand with z(.025) = 1.959964, z(.2) = 0.841621:
//   0.05 vs 0.10: pbar .075: [1.959964 x 0.372492 + 0.841621 x 0.370810]^2
//                 / 0.05^2 = 1.042152^2 / 0.0025 = 434.4 -> 435 per group
//                 (the continuity correction n/4 (1 + sqrt(1 + 4/(n d)))^2
//                 would make it 474);
//   0.10 vs 0.20: [1.959964 x 0.504975 + 0.841621 x 0.5]^2 / 0.01 = 199.0 -> 199;
//   0.20 vs 0.30: [1.959964 x 0.612372 + 0.841621 x 0.608276]^2 / 0.01 = 293.2 -> 294;
//   0.01 vs 0.02: [1.959964 x 0.171901 + 0.841621 x 0.171756]^2 / 1e-4 = 2318.2 -> 2319.
// So with one row tested the floor at that n per side is at most the
// difference, and one sample fewer a side leaves it above.
TEST(SamplingFloor, MatchesFleissSampleSizes) {
  struct Case {
    double p1_pct, d_pp;
    uint64_t n;
  };
  const FloorTest one_row{1, 0.05, 0.8};
  for (const Case& c : {Case{5, 5, 435}, Case{10, 10, 199}, Case{20, 10, 294}, Case{1, 1, 2319}}) {
    EXPECT_LE(sampling_floor_pp(c.p1_pct, {c.n, c.n}, one_row), c.d_pp) << c.p1_pct;
    EXPECT_GT(sampling_floor_pp(c.p1_pct, {c.n - 1, c.n - 1}, one_row), c.d_pp) << c.p1_pct;
  }
  // 434.4 per group: the floor there is the difference itself, to the
  // square root's first order (d ~ 1 / sqrt(n)).
  EXPECT_NEAR(sampling_floor_pp(5, {435, 435}, one_row), 5 * std::sqrt(434.43 / 435), 0.002);
}

// ---------------------------------------------------------------- Welch power

// The two-sample t test's power from Boost.Math's noncentral t: with equal
// variances and runs r a side, P(T' > t(alpha/2, 2r - 2)), T' noncentral t
// with 2r - 2 df and noncentrality d / sqrt(2 v / r). An independent formula.
double pooled_t_power(double d, double v, size_t r, double alpha) {
  const double df = 2.0 * static_cast<double>(r) - 2;
  const double t = boost::math::quantile(complement(boost::math::students_t(df), alpha / 2));
  const double delta = d / std::sqrt(2 * v / static_cast<double>(r));
  return boost::math::cdf(complement(boost::math::non_central_t(df, delta), t));
}

// Cohen (1992), "A power primer", Psychological Bulletin 112:155-159, Table
// 2 (and Cohen 1988, Table 2.4.1): a two-sided t test at 0.05 between two
// means needs 393, 64 and 26 per group for power 0.80 at effect sizes d =
// 0.2, 0.5 and 0.8 (power there 0.7996, 0.8015, 0.8075 by the noncentral t).
// Welch's test with equal variances and runs has the pooled t's SE and at
// most its df, so its power is a little lower (by up to 0.05 at 4 runs,
// 0.006 at 17 runs and alpha 0.001), by little at many runs; the model (40 x
// 40 points, a tabulated t) matches the noncentral t to 0.001 at Cohen's
// sizes, to 0.002 from 50 runs, and never exceeds it by more than its own
// error.
TEST(WelchPower, MatchesCohenAndTheNoncentralT) {
  struct Case {
    double d;
    size_t r;
  };
  for (const Case& c : {Case{0.2, 393}, Case{0.5, 64}, Case{0.8, 26}}) {
    const double w = welch_power(c.d, {1, 1}, {c.r, c.r}, 0.05);
    EXPECT_NEAR(w, 0.80, 0.01) << c.d;
    EXPECT_NEAR(w, pooled_t_power(c.d, 1, c.r, 0.05), 0.001) << c.d;
  }
  for (double alpha : {0.05, 0.01, 0.001}) {
    for (size_t r : {3, 4, 6, 10, 17, 50, 200}) {
      for (double d : {0.5, 1.0, 2.0, 4.0}) {
        const double w = welch_power(d, {2, 2}, {r, r}, alpha);
        const double t = pooled_t_power(d, 2, r, alpha);
        EXPECT_LE(w, t + 0.001) << r << " runs, d " << d << ", alpha " << alpha;
        if (r >= 50) {
          EXPECT_NEAR(w, t, 0.002) << r << " runs, d " << d << ", alpha " << alpha;
        }
      }
    }
  }
}

// Welch's power: its size at d = 0, the normal limit, and a Monte Carlo of
// Welch's test itself (normal values, the p from StudentT::two_sided_p).
TEST(WelchPower, SizeNormalLimitAndMonteCarlo) {
  // Welch with 4 vs 4 equal variances is a little conservative (its df
  // estimate is at most the pooled t's 6); with many runs, exact.
  EXPECT_GT(welch_power(0, {1, 1}, {4, 4}, 0.05), 0.018);
  EXPECT_LT(welch_power(0, {1, 1}, {4, 4}, 0.05), 0.025);
  EXPECT_NEAR(welch_power(0, {1, 3}, {200, 300}, 0.01), 0.005, 0.0003);
  const double z = normal_quantile(0.001) + normal_quantile(0.4);
  EXPECT_NEAR(welch_power(z * std::sqrt(2.0 / 3000), {1, 1}, {3000, 3000}, 0.001), 0.8, 0.01);
  EXPECT_LT(welch_power(5, {1, 2}, {4, 4}, 0.001), welch_power(6, {1, 2}, {4, 4}, 0.001));
  EXPECT_EQ(welch_power(5, {1, 2}, {1, 4}, 0.001), 0);

  std::mt19937_64 gen(0xd1ff);
  auto normal = [&] {  // Box–Muller on the raw output
    const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;
    const double v = static_cast<double>(gen() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(1 - u)) * std::cos(2 * std::numbers::pi * v);
  };
  const double d = 4.5, v1 = 1, v2 = 2;
  const size_t r = 4, reps = 4000;
  size_t hits = 0;
  for (size_t i = 0; i < reps; ++i) {
    double x[2][4], m[2] = {0, 0}, var[2] = {0, 0};
    for (size_t j = 0; j < r; ++j) {
      x[0][j] = std::sqrt(v1) * normal();
      x[1][j] = d + std::sqrt(v2) * normal();
      m[0] += x[0][j] / r;
      m[1] += x[1][j] / r;
    }
    for (int s = 0; s < 2; ++s) {
      for (size_t j = 0; j < r; ++j) var[s] += (x[s][j] - m[s]) * (x[s][j] - m[s]) / (r - 1);
    }
    const double e1 = var[0] / r, e2 = var[1] / r, se2 = e1 + e2;
    const double df = se2 * se2 / (e1 * e1 / (r - 1) + e2 * e2 / (r - 1));
    const double t = (m[1] - m[0]) / std::sqrt(se2);
    hits += t > 0 && StudentT(df).two_sided_p(t) <= 0.001;
  }
  const double mc = static_cast<double>(hits) / reps;
  const double model = welch_power(d, {v1, v2}, {r, r}, 0.001);
  std::printf("[ measured ] Welch power at d = 4.5, 4 vs 4 runs: model %.4f, Monte Carlo %.4f\n",
              model, mc);
  EXPECT_NEAR(model, mc, 3 * std::sqrt(mc * (1 - mc) / reps) + 0.005);
}

// The power integration skips Phi where, in double, it is exactly 1 (from
// 8.3 up) or exactly 0 (from -38.5 down): the same sum only while Boost's
// Phi agrees.
TEST(WelchPower, PhiIsExactlyOneAndZeroWhereTheIntegrationSkipsIt) {
  const detail::FastNormal phi;
  for (double x = 8.3; x < 60; x += 0.01) ASSERT_EQ(cdf(phi, x), 1.0) << x;
  for (double x = -38.5; x > -60; x -= 0.01) ASSERT_EQ(cdf(phi, x), 0.0) << x;
  EXPECT_LT(cdf(phi, 8.2), 1.0);
  EXPECT_GT(cdf(phi, -38.4), 0.0);
}

// ---------------------------------------------------------------- run-variance floor

TEST(RunVarianceFloor, LimitsAndRuns) {
  // Many runs and a spread that hardly depends on the share: the normal
  // floor (z + z) SE, within the t's and the spread's few percent.
  const RunSpread flat{1e-5 / (0.05 * 0.95), 0, 0};  // var(5%) = 1e-5: sd 0.32 pp
  const FloorTest m100{100, 0.05, 0.8}, m200{200, 0.05, 0.8};
  const double floor = run_variance_floor_pp(5, flat, {50, 50}, m100);
  const double normal = 100 * (3.4807 + 0.8416) * std::sqrt(2 * 1e-5 / 50);
  EXPECT_GT(floor, normal);
  EXPECT_LT(floor, normal * 1.08);
  // Runs that never vary: any change is found (the sampling floor binds).
  EXPECT_LT(run_variance_floor_pp(5, RunSpread{}, {3, 3}, m100), 1e-9);
  // Two runs a side, 5% jitter, 200 rows: t(2.5e-4, df <= 2) >= 63, and
  // a change of any size moves the grown side's spread too: out of reach.
  const RunSpread jitter{0, 0.05 * 0.05, 0};
  EXPECT_TRUE(std::isinf(run_variance_floor_pp(5, jitter, {2, 2}, m200)));
  // More runs lower it, 4x about halves it.
  const double four = run_variance_floor_pp(5, jitter, {4, 4}, m200);
  const double ten = run_variance_floor_pp(5, jitter, {10, 10}, m200);
  EXPECT_TRUE(std::isfinite(four));
  EXPECT_LT(ten, four);
  EXPECT_LT(run_variance_floor_pp(5, jitter, {40, 40}, m200), ten / 2);
  // One run a side: no Welch test, no floor.
  EXPECT_TRUE(std::isinf(run_variance_floor_pp(5, jitter, {1, 4}, m200)));
  // Several shares at once are the one-share floors.
  const double shares[] = {1, 5, 20};
  const std::vector<double> all = run_variance_floors_pp(shares, jitter, {4, 4}, m200);
  ASSERT_EQ(all.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(all[i], run_variance_floor_pp(shares[i], jitter, {4, 4}, m200));
  }
}

// The floor is where Welch's power reaches the power asked for: Cohen's
// medium effect again (64 runs a side, one row at 0.05, power 0.8), with a
// spread flat enough around 50% (var(p) = a p (1 - p) changes by under
// 0.5% over the floor) that the sides' variances are equal to that.
TEST(RunVarianceFloor, IsWhereWelchPowerReachesThePower) {
  const RunSpread spread{4e-4, 0, 0};  // var(50%) = 1e-4: one run's sd 1 pp
  const double floor = run_variance_floor_pp(50, spread, {64, 64}, {1, 0.05, 0.8});
  EXPECT_NEAR(floor, 0.5 * 1.0, 0.01);  // d = 0.5 sd, as Cohen's table says
  const double v1 = spread.var(0.5), v2 = spread.var(0.5 + floor / 100);
  EXPECT_NEAR(welch_power(floor / 100, {v1, v2}, {64, 64}, 0.05), 0.8, 1e-6);
  EXPECT_LT(welch_power(0.99 * floor / 100, {v1, v2}, {64, 64}, 0.05), 0.8);
}

// ---------------------------------------------------------------- spread fit

// Rows built so each pooled within-side variance is exactly a p q + b p^2 q^2,
// a from the runs' sample counts: the fit returns b.
TEST(RunSpreadFit, RecoversTheModel) {
  const double b = 0.04 * 0.04;
  const std::vector<uint64_t> run_samples = {40000, 20000, 40000, 20000};
  const double a = (1.0 / 20000 + 1.0 / 40000) / 2;
  std::vector<std::vector<double>> pct;
  for (double p : {0.001, 0.004, 0.01, 0.03, 0.08, 0.15, 0.3}) {
    const double q = 1 - p;
    const double e = std::sqrt((a * p * q + b * p * p * q * q) / 2);  // p +- e: var 2 e^2
    for (double shift : {-0.05 * p, 0.05 * p}) {
      pct.push_back({100 * (p + shift - e), 100 * (p + shift + e)});
    }
  }
  std::vector<RunShares> rows;
  for (size_t i = 0; i < pct.size(); i += 2) rows.push_back({pct[i], pct[i + 1]});
  const std::vector<double> one_run = {1.0};
  rows.push_back({one_run, pct[0]});  // fewer than 2 runs a side: not fitted over
  const RunSpread fit = fit_run_spread(run_samples, rows);
  EXPECT_EQ(fit.rows, 7u);
  EXPECT_DOUBLE_EQ(fit.a, a);
  EXPECT_NEAR(fit.b, b, 1e-6 * b);
  EXPECT_NEAR(fit.sd_pp(5), 100 * std::sqrt(a * 0.05 * 0.95 + b * std::pow(0.05 * 0.95, 2)), 1e-9);
  // No rows: b = 0, a still from the runs (a run without samples counts as 0).
  const std::vector<uint64_t> with_empty = {100, 0};
  const RunSpread none = fit_run_spread(with_empty, {});
  EXPECT_EQ(none.rows, 0u);
  EXPECT_EQ(none.b, 0);
  EXPECT_DOUBLE_EQ(none.a, 0.005);
}

// Too few rows to fit a prior (a program of two functions): with time
// slices the slices give it, scaled up to the runs' own spread where that is
// larger, as long as the rows spread no more than chance allows of the
// slices' value; rows that spread far more fall back to Welch's (no prior).
TEST(RunSpreadFit, FewRowsTakeThePriorFromTheSlices) {
  const std::vector<uint64_t> run_samples(6, 1000);
  const double a = 0.5 / 1000;  // a dispersion of 0.5
  auto rows_with = [&](double factor) {
    std::vector<std::vector<double>> pct;
    for (double p : {0.3, 0.7}) {
      const double e = std::sqrt(factor * a * p * (1 - p));  // p - e, p, p + e: variance e^2
      pct.push_back({100 * (p - e), 100 * p, 100 * (p + e)});
    }
    return pct;
  };
  const auto calm = rows_with(1.0);
  const std::vector<RunShares> rows = {{calm[0], calm[0]}, {calm[1], calm[1]}};
  const RunSpread sliced = fit_run_spread(run_samples, rows, 0.5, 6 * 31);
  EXPECT_TRUE(sliced.from_slices);
  EXPECT_TRUE(sliced.fitted());
  EXPECT_DOUBLE_EQ(sliced.a, a);
  EXPECT_EQ(sliced.b, 0);
  EXPECT_EQ(sliced.prior.df, 6 * 31);
  EXPECT_NEAR(sliced.prior.scale, 1, 1e-9);
  EXPECT_DOUBLE_EQ(sliced.dispersion, 0.5);
  // Runs that spread 1.5x what their slices say (within what chance allows
  // of them): the slices' prior, scaled to the runs' spread, so a run-level
  // jitter the slices cannot see is not left out of the test.
  const auto jittery = rows_with(1.5);
  const std::vector<RunShares> jittery_rows = {{jittery[0], jittery[0]}, {jittery[1], jittery[1]}};
  const RunSpread scaled = fit_run_spread(run_samples, jittery_rows, 0.5, 6 * 31);
  EXPECT_TRUE(scaled.from_slices);
  EXPECT_NEAR(scaled.prior.scale, 1.5, 1e-9);
  EXPECT_NEAR(scaled.var(0.3), 1.5 * a * 0.3 * 0.7, 1e-12);
  // Runs that spread less than their slices say: never below the slices.
  const auto quiet = rows_with(0.25);
  const std::vector<RunShares> quiet_rows = {{quiet[0], quiet[0]}, {quiet[1], quiet[1]}};
  const RunSpread floor = fit_run_spread(run_samples, quiet_rows, 0.5, 6 * 31);
  EXPECT_TRUE(floor.from_slices);
  EXPECT_EQ(floor.prior.scale, 1);
  // Runs that do not spread at all: the same.
  const auto same = rows_with(0);
  const std::vector<RunShares> same_rows = {{same[0], same[0]}, {same[1], same[1]}};
  const RunSpread still = fit_run_spread(run_samples, same_rows, 0.5, 6 * 31);
  EXPECT_TRUE(still.from_slices);
  EXPECT_EQ(still.prior.scale, 1);
  // Without slices: Welch's path, a binomial's.
  const RunSpread plain = fit_run_spread(run_samples, rows);
  EXPECT_FALSE(plain.fitted());
  EXPECT_DOUBLE_EQ(plain.a, 1.0 / 1000);
  // Runs that spread 4x what their slices say: not the slices' prior.
  const auto wild = rows_with(4.0);
  const std::vector<RunShares> wild_rows = {{wild[0], wild[0]}, {wild[1], wild[1]}};
  const RunSpread loud = fit_run_spread(run_samples, wild_rows, 0.5, 6 * 31);
  EXPECT_FALSE(loud.from_slices);
  EXPECT_FALSE(loud.fitted());
}

// Thousands of rows with under a sample a run (most runs see 0 or 1) have
// variances far from a scaled chi-square, scattering less than their df
// say: left in the prior's fit they make d0 infinite for every row, so a
// row whose runs really scatter is judged as if its variance were known.
// The prior comes from the rows with samples enough (here 20-200 a run,
// their true variances scattering with d0 = 10).
TEST(RunSpreadFit, PriorIsFittedOverRowsWithSamplesEnough) {
  std::mt19937_64 rng(5);
  constexpr double kRun = 20000;
  const std::vector<uint64_t> run_samples(6, static_cast<uint64_t>(kRun));
  const double a = 1 / kRun;
  std::chi_squared_distribution<double> prior(10);
  std::normal_distribution<double> z;
  std::vector<RunShares> rows;
  std::vector<std::vector<double>> pct;
  pct.reserve(2 * 3300);
  for (int i = 0; i < 300; ++i) {
    const double p = 0.001 + 0.009 * i / 300.0, sigma2 = 10 / prior(rng);
    const double sd = std::sqrt(sigma2 * a * p * (1 - p));
    for (int side = 0; side < 2; ++side) {
      pct.push_back({});
      for (int r = 0; r < 3; ++r) pct.back().push_back(100 * (p + sd * z(rng)));
    }
  }
  std::poisson_distribution<int> tiny(0.4);
  for (int i = 0; i < 3000; ++i) {
    for (int side = 0; side < 2; ++side) {
      pct.push_back({});
      for (int r = 0; r < 3; ++r) pct.back().push_back(100 * tiny(rng) / kRun);
    }
  }
  for (size_t i = 0; i < pct.size(); i += 2) rows.push_back({pct[i], pct[i + 1]});
  const RunSpread fit = fit_run_spread(run_samples, rows);
  EXPECT_TRUE(fit.fitted());
  EXPECT_LT(fit.prior.rows, 400u);
  EXPECT_NEAR(fit.prior.df, 10, 5);
}

}  // namespace
}  // namespace kprof::stats
