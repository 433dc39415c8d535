// The noise verdicts of diff_profiles() on simulated profiles: the false
// discovery rate and the power, measured rather than assumed.
//
// A profile is a long tail of 200 functions with Zipf shares (s = 1) over the
// kernel and two user images. Each run perturbs every share by a lognormal
// factor (run-to-run jitter), renormalizes, and draws each function's count as
// Poisson(n x share) with n between 20,000 and 50,000: given the run's total,
// those counts are exactly a multinomial draw of that many samples, at 200
// draws a run instead of one per sample. Every draw is written here on top of
// mt19937_64's raw output (which the standard fixes), not std distributions
// (which it does not), so the measured rates do not depend on the standard
// library (only, in the last bits, on libm's exp, log and lgamma).
#include "report/diff.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "tests/diff/diff_support.h"
#include "tests/diff/draws.h"

namespace kprof {
namespace {

using difftest::Entry;
using difftest::make_run;

// ---------------------------------------------------------------- draws

using difftest::Draws;

// ---------------------------------------------------------------- profiles

constexpr size_t kFunctions = 200;
constexpr uint64_t kMinSamples = 20000, kMaxSamples = 50000;

struct Function {
  std::string image, name;
  Mode mode;
};

// Zipf: the function of rank r (1-based) holds 1 / (r x H_200) of the samples,
// 17% for the first, 2.1% for the 8th, 0.085% for the last. One in four is the
// application's, one in eight libc's, the rest the kernel's.
std::vector<Function> zipf_functions(std::vector<double>& share) {
  std::vector<Function> f;
  share.clear();
  double h = 0;
  for (size_t i = 0; i < kFunctions; ++i) h += 1.0 / static_cast<double>(i + 1);
  for (size_t i = 0; i < kFunctions; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "fn_%03zu", i);
    if (i % 4 == 1) {
      f.push_back({"/usr/sbin/appd", name, Mode::User});
    } else if (i % 8 == 3) {
      f.push_back({"/lib64/libc.so.6", name, Mode::User});
    } else {
      f.push_back({"[kernel]", name, Mode::Kernel});
    }
    share.push_back(1.0 / (static_cast<double>(i + 1) * h));
  }
  return f;
}

// One run: every share times exp(jitter x Z), renormalized, then sampled.
// `jitter_of`, when given, is each function's own jitter instead.
DiffRun draw_run(const std::vector<Function>& functions, const std::vector<double>& share,
                 double jitter, Draws& draws, const std::vector<double>& jitter_of = {}) {
  std::vector<double> w(share.size());
  double total = 0;
  for (size_t i = 0; i < share.size(); ++i) {
    const double sigma = i < jitter_of.size() ? jitter_of[i] : jitter;
    w[i] = share[i] * (sigma > 0 ? std::exp(sigma * draws.normal()) : 1.0);
    total += w[i];
  }
  const double n = static_cast<double>(draws.between(kMinSamples, kMaxSamples));
  std::vector<Entry> entries;
  for (size_t i = 0; i < share.size(); ++i) {
    const uint64_t k = draws.poisson(n * w[i] / total);
    if (k) entries.push_back({functions[i].image, functions[i].name, functions[i].mode, k});
  }
  return make_run("6.1.0", entries);
}

// ---------------------------------------------------------------- measuring

struct Scenario {
  size_t runs = 3;                 // per side
  double jitter = 0;               // lognormal sigma of a share between runs
  std::vector<double> jitter_of;   // each function's own sigma (empty: jitter for all)
  std::vector<double> base, next;  // true shares per side (sum 1)
  std::string changed;             // the function truly changed; "" for A/A
  size_t reps = 300;
  uint64_t seed = 1;
  double alpha = 0.05;
};

struct Measured {
  size_t reps = 0;
  size_t any_flag = 0;     // repetitions with at least one row flagged changed
  size_t changed_hit = 0;  // repetitions with the changed function flagged
  size_t flags = 0, false_flags = 0;
  double fdp_sum = 0;  // sum over repetitions of false flags / flags (0 without flags)
  NoiseMethod method = NoiseMethod::Sampling;
  double seconds = 0;

  double any_rate() const { return static_cast<double>(any_flag) / reps; }
  double power() const { return static_cast<double>(changed_hit) / reps; }
  double fdr() const { return fdp_sum / reps; }
};

Measured measure(const std::vector<Function>& functions, const Scenario& sc) {
  const auto start = std::chrono::steady_clock::now();
  Draws draws(sc.seed);
  Measured m;
  m.reps = sc.reps;
  for (size_t rep = 0; rep < sc.reps; ++rep) {
    DiffInput in;
    in.options.alpha = sc.alpha;
    in.sides = {{"base", {}}, {"new", {}}};
    for (size_t r = 0; r < sc.runs; ++r) {
      in.sides[0].runs.push_back(draw_run(functions, sc.base, sc.jitter, draws, sc.jitter_of));
      in.sides[1].runs.push_back(draw_run(functions, sc.next, sc.jitter, draws, sc.jitter_of));
    }
    const DiffResult result = diff_profiles(in);
    m.method = result.noise[1];
    size_t flags = 0, false_flags = 0;
    for (const DiffRow& row : result.rows) {
      if (row.vs_base[1].within_noise) continue;
      ++flags;
      if (row.name == sc.changed) {
        ++m.changed_hit;
      } else {
        ++false_flags;
      }
    }
    if (flags) {
      ++m.any_flag;
      m.fdp_sum += static_cast<double>(false_flags) / static_cast<double>(flags);
    }
    m.flags += flags;
    m.false_flags += false_flags;
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

// Three standard errors of a binomial proportion at p = alpha over `reps`
// repetitions (see the assertions).
double margin(double alpha, size_t reps) {
  return 3 * std::sqrt(alpha * (1 - alpha) / static_cast<double>(reps));
}

void record(const std::string& prefix, const Measured& m) {
  ::testing::Test::RecordProperty(prefix + "_reps", std::to_string(m.reps));
  ::testing::Test::RecordProperty(prefix + "_any_flag_rate", std::to_string(m.any_rate()));
  ::testing::Test::RecordProperty(prefix + "_power", std::to_string(m.power()));
  ::testing::Test::RecordProperty(prefix + "_fdr", std::to_string(m.fdr()));
  ::testing::Test::RecordProperty(prefix + "_seconds", std::to_string(m.seconds));
  std::printf(
      "[ measured ] %s: %zu reps (%s): any flag %.4f, changed flagged %.4f, FDR %.4f "
      "(%zu false of %zu flags), %.2f s\n",
      prefix.c_str(), m.reps, noise_method_name(m.method), m.any_rate(), m.power(), m.fdr(),
      m.false_flags, m.flags, m.seconds);
  std::fflush(stdout);
}

// Grows function `j` by `pp` percentage points; the others shrink in
// proportion so the shares still sum to 1.
std::vector<double> grown(const std::vector<double>& share, size_t j, double pp) {
  std::vector<double> out = share;
  const double keep = (1 - share[j] - pp / 100) / (1 - share[j]);
  for (size_t i = 0; i < out.size(); ++i) out[i] = i == j ? share[j] + pp / 100 : share[i] * keep;
  return out;
}

// ---------------------------------------------------------------- tests

// Run-to-run jitter of every share: a lognormal factor with sigma 5%, the low
// end of the 5-10% assumed here (the power tests say what 7.5% and 2% do).
constexpr double kJitter = 0.05;
// The function changed in the power tests: fn_007, rank 8, 2.13% of samples.
constexpr size_t kChanged = 7;

// The margins below: with a correct method, a repetition's verdicts are
// wrong with probability p <= alpha (for the any-flag share) or have a false
// discovery proportion in [0, 1] with mean <= alpha (for the FDR). Either way
// the per-repetition value has variance <= alpha (1 - alpha) (a [0, 1]
// variable with mean mu has variance <= mu (1 - mu), increasing in mu below
// 1/2), so the mean over R independent repetitions has standard error
// <= sqrt(alpha (1 - alpha) / R): 0.0154 for R = 200, 0.0178 for 150, 0.0308
// for 50, 0.0398 for 30. A correct method exceeds alpha + 3 standard errors
// with probability under 0.4% (for the any-flag share at p = alpha, the exact
// binomial tail: 0.27% for R = 200, 0.36% for 150, 0.32% for 50, 0.33% for
// 30). The seeds are fixed, so each assertion is deterministic; the margin
// is what says a failure means a bug and not this seed's luck.

// 3 vs 3 runs of one distribution: every row is truly unchanged, so any flag
// is a false discovery and the FDR BH controls at alpha is P(any flag).
TEST(DiffFdrSim, RunVarianceAaRarelyFlagsAnything) {
  Scenario sc;
  const std::vector<Function> functions = zipf_functions(sc.base);
  sc.next = sc.base;
  sc.runs = 3;
  sc.jitter = kJitter;
  sc.reps = 150;
  sc.seed = 0x5eed0001;
  const Measured m = measure(functions, sc);
  record("run_variance_aa", m);
  EXPECT_EQ(m.method, NoiseMethod::RunVariance);
  // Measured 0.047 (7 of 150; 0.060 before the prior left out rows of under
  // 3 samples a run).
  EXPECT_LE(m.any_rate(), sc.alpha + margin(sc.alpha, sc.reps));  // 0.103
}

// A real profile's shape (a compile's: thousands of rows): the 200 Zipf
// functions with 3,000 more of under a sample a run each (4% of samples in
// all), and ten mid-ranked functions (0.3-0.5%, 100-175 samples a run)
// whose share moves between runs 4x as much as the others' (lognormal sigma
// 0.2). The tiny rows' variances take a handful of values and scatter less
// than their df say; fitted over them the prior said every row's variance
// was the trend's, and one of the ten was flagged in 43 of 100 repetitions
// (85 at sigma 0.4) before the prior was fitted over rows of 3+ samples a
// run and outlying rows kept their own spread; now 5 of 100. 3 vs 3, A/A.
TEST(DiffFdrSim, RunVarianceAaWithTinyAndHypervariableRowsRarelyFlagsAnything) {
  Scenario sc;
  std::vector<Function> functions = zipf_functions(sc.base);
  constexpr size_t kTiny = 3000;
  for (double& x : sc.base) x *= 0.96;
  for (size_t i = 0; i < kTiny; ++i) {
    functions.push_back({"/usr/sbin/appd", "tiny_" + std::to_string(i), Mode::User});
    sc.base.push_back(0.04 / kTiny);
  }
  sc.jitter_of.assign(functions.size(), kJitter);
  for (size_t i = 20; i < 30; ++i) sc.jitter_of[i] = 0.2;
  sc.next = sc.base;
  sc.runs = 3;
  sc.reps = 100;
  sc.seed = 0x5eed0005;
  const Measured m = measure(functions, sc);
  record("run_variance_aa_tiny_hypervariable", m);
  EXPECT_EQ(m.method, NoiseMethod::RunVariance);
  EXPECT_LE(m.any_rate(), sc.alpha + margin(sc.alpha, sc.reps));  // 0.115
}

// The same 3 vs 3, with fn_007 grown from 2.13% to 5.13% on the new side.
// Three runs a side cannot find one changed function among 200 reliably, at
// any size: BH's first discovery needs p <= alpha / 200 = 2.5e-4, that is
// |t| >= 12.3 at Welch's 4 df, 20.6 at 3 and 63.2 at 2. With multiplicative
// jitter the grown side's spread grows with its share, which drives Welch's
// df towards 2 and keeps delta / se under sqrt(3) / sigma = 35. Measured
// (100 repetitions each) at 5% jitter: +1 pp 10%, +2 pp 34%, +3 pp 46%, +4 pp
// 44%, +6 pp 42%; at 7.5% jitter the ceiling is ~30%, at 2% ~73%. The floor
// below (3 standard errors of 50 repetitions under 46%) keeps that ceiling
// from falling; the five-run test shows the size the method does find.
// (Those figures are Welch's, the test before the moderated t: borrowing
// each row's spread from all 200 rows, it finds +3 pp in every repetition.)
TEST(DiffFdrSim, RunVarianceThreeRunsFindABigGrowthOnlySometimes) {
  Scenario sc;
  const std::vector<Function> functions = zipf_functions(sc.base);
  sc.next = grown(sc.base, kChanged, 3.0);
  sc.changed = functions[kChanged].name;
  sc.runs = 3;
  sc.jitter = kJitter;
  sc.reps = 50;
  sc.seed = 0x5eed0003;
  const Measured m = measure(functions, sc);
  record("run_variance_3v3_plus3pp", m);
  EXPECT_GE(m.power(), 0.25);  // measured 1.00 (50 of 50), FDR 0.010
  // Every other row moved only by the renormalization (-3.1% of its share,
  // standardized effect <= 0.75 with this jitter and 3 runs: no test at
  // p <= 2.5e-4 sees it), so flags there are counted as false: that can only
  // overstate the FDR.
  EXPECT_LE(m.fdr(), sc.alpha + margin(sc.alpha, sc.reps));  // 0.142
}

// 5 vs 5 runs, fn_007 grown from 2.13% to 4.13% (+2 pp, 1.9x). Welch's df is
// 4 to 8 (about 6 here; |t| >= 12.3 at 4, 7.7 at 6, 6.2 at 8 for the first
// discovery) and delta / se for +2 pp is about 17: measured (100 repetitions)
// +1 pp 81%, +2 pp 97%, +3 pp 100%; at 7.5% jitter +2 pp 90%. Asserting 80%
// at +2 pp leaves room for seeds; +1 pp is the edge of what five runs find.
TEST(DiffFdrSim, RunVarianceFiveRunsFindAGrowthOfTwoPoints) {
  Scenario sc;
  const std::vector<Function> functions = zipf_functions(sc.base);
  sc.next = grown(sc.base, kChanged, 2.0);
  sc.changed = functions[kChanged].name;
  sc.runs = 5;
  sc.jitter = kJitter;
  sc.reps = 30;
  sc.seed = 0x5eed0004;
  const Measured m = measure(functions, sc);
  record("run_variance_5v5_plus2pp", m);
  EXPECT_GE(m.power(), 0.80);  // measured 1.00 (30 of 30), FDR 0.050
  // The renormalization moves the others by -2.0% of their share (standardized
  // <= 0.65 with 5 runs); flags there count as false, overstating the FDR.
  EXPECT_LE(m.fdr(), sc.alpha + margin(sc.alpha, sc.reps));  // 0.169
}

// 1 vs 1 run, no jitter: the counts are exactly multinomial, the model the
// sampling statistics assume, so they must hold their rate.
TEST(DiffFdrSim, SamplingAaWithoutJitterRarelyFlagsAnything) {
  Scenario sc;
  const std::vector<Function> functions = zipf_functions(sc.base);
  sc.next = sc.base;
  sc.runs = 1;
  sc.jitter = 0;
  sc.reps = 200;
  sc.seed = 0x5eed0002;
  const Measured m = measure(functions, sc);
  record("sampling_aa", m);
  EXPECT_EQ(m.method, NoiseMethod::Sampling);
  // Measured 0.040 (8 of 200).
  EXPECT_LE(m.any_rate(), sc.alpha + margin(sc.alpha, sc.reps));  // 0.0962
}

}  // namespace
}  // namespace kprof
