// The detectability floor (report/detect.h): what the diff feeds the
// formulas (their own tests: tests/stats/power_test.cpp) and prints, and by
// simulation that diff_profiles() finds a change of 1.25x the floor at least
// 80% of the time and one of 0.5x at most ~20%, for sampling statistics (1 run a
// side) and run-to-run variance (4 runs a side); and `kprof diff --plan` on
// the shipped samples.
//
// The simulated profiles follow fdr_sim_test.cpp: every share times a
// lognormal run-to-run factor, renormalized, each row's count Poisson(n x
// share) (given the total, a multinomial draw), all on mt19937_64's raw output.
#include "report/detect.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "tests/diff/diff_support.h"
#include "tests/diff/draws.h"

namespace kprof {
namespace {

using difftest::Entry;
using difftest::make_run;

// ---------------------------------------------------------------- the diff's numbers

// Rows built so each pooled within-side variance is exactly a p q + b p^2 q^2,
// a from the runs' sample counts: the fit of the diff's rows returns b (the
// fit itself: tests/stats/power_test.cpp).
TEST(DetectFloor, FitRunSpreadRecoversTheModel) {
  const double b = 0.04 * 0.04;
  DiffInput in;
  in.sides.resize(2);
  for (DiffSide& side : in.sides) {
    for (int r = 0; r < 2; ++r) {
      DiffRun run;
      run.total_samples = r ? 20000 : 40000;
      side.runs.push_back(run);
    }
  }
  const double a = (1.0 / 20000 + 1.0 / 40000) / 2;
  DiffResult res;
  res.labels = {"A", "B"};
  res.noise = {NoiseMethod::RunVariance, NoiseMethod::RunVariance};
  for (double p : {0.001, 0.004, 0.01, 0.03, 0.08, 0.15, 0.3}) {
    const double q = 1 - p;
    const double e = std::sqrt((a * p * q + b * p * p * q * q) / 2);  // p +- e: var 2 e^2
    DiffRow row;
    row.name = std::to_string(p);
    for (double shift : {-0.05 * p, 0.05 * p}) {
      DiffCell c;
      c.run_pct = {100 * (p + shift - e), 100 * (p + shift + e)};
      c.pct = 100 * (p + shift);
      c.samples = 1;
      row.cells.push_back(c);
    }
    row.vs_base.resize(2);
    res.rows.push_back(row);
  }
  const stats::RunSpread fit = fit_run_spread(in, res, 1);
  EXPECT_EQ(fit.rows, 7u);
  EXPECT_DOUBLE_EQ(fit.binomial_a, a);
  EXPECT_NEAR(fit.a, a, 1e-6 * a);  // fitted, as b is: the rows spread exactly binomially here
  EXPECT_NEAR(fit.b, b, 1e-6 * b);
  EXPECT_NEAR(fit.sd_pp(5), 100 * std::sqrt(a * 0.05 * 0.95 + b * std::pow(0.05 * 0.95, 2)), 1e-9);
}

TEST(DetectFloor, TextForSamplingAndListings) {
  DiffInput in;
  in.sides = {{"A",
               {make_run("6.1", {{"[kernel]", "f", Mode::Kernel, 500},
                                 {"[kernel]", "g", Mode::Kernel, 9500}})}},
              {"B",
               {make_run("6.2", {{"[kernel]", "f", Mode::Kernel, 600},
                                 {"[kernel]", "g", Mode::Kernel, 9400}})}}};
  const DiffResult result = diff_profiles(in);
  const std::vector<DetectFloor> floors = detectability(in, result);
  ASSERT_EQ(floors.size(), 1u);
  EXPECT_EQ(floors[0].rows, 2u);
  EXPECT_EQ(floors[0].base_samples, 10000u);
  EXPECT_EQ(floors[0].halve_new_samples, 40000u);
  ASSERT_EQ(floors[0].at.size(), 3u);
  // The geometric middle of the floors that keep both promises; two rows
  // tested are one test (each the other's mirror), at alpha itself.
  const double d80 = stats::sampling_floor_pp(5, {10000, 10000}, {1, 0.05, kPowerAbove});
  const double d20 = stats::sampling_floor_pp(5, {10000, 10000}, {1, 0.05, kPowerBelow});
  EXPECT_LT(d20, d80 / 2);
  EXPECT_DOUBLE_EQ(floors[0].at[1].floor_pp, std::sqrt(d80 / kFoundAbove * (d20 / kMissedBelow)));
  std::ostringstream out;
  write_detectability(out, floors);
  EXPECT_NE(out.str().find("Detectability floor for B against A (sampling statistics, 10,000 vs "
                           "10,000 samples, 2 rows (each the other's mirror: one test), FDR 5%; "
                           "1.25× the floor is found at least 80% "
                           "of the time, 0.5× at most 20%):"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("a 5% row: ±"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("~40,000 vs 40,000"), std::string::npos) << out.str();

  in.sides[1].runs[0].run.sample_counts = false;  // a listing of shares
  const DiffResult listing = diff_profiles(in);
  std::ostringstream none;
  write_detectability(none, detectability(in, listing));
  EXPECT_NE(none.str().find("Detectability floor for B against A: none"), std::string::npos)
      << none.str();
}

// ---------------------------------------------------------------- simulation

using difftest::Draws;

constexpr size_t kRows = 50;

// Row 0 holds `target` (a fraction), row 1 20% (10% when the target is 20%),
// the other 48 a Zipf tail of the rest: 1% rows and 0.1% rows both occur.
// With `two_rows`, row 0 and the rest in row 1: a program of two functions.
std::vector<double> shares_with(double target, bool two_rows = false) {
  if (two_rows) return {target, 1 - target};
  std::vector<double> s(kRows);
  s[0] = target;
  s[1] = target == 0.2 ? 0.1 : 0.2;
  double h = 0;
  for (size_t i = 2; i < kRows; ++i) h += 1.0 / static_cast<double>(i);
  for (size_t i = 2; i < kRows; ++i) s[i] = (1 - s[0] - s[1]) / (static_cast<double>(i) * h);
  return s;
}

// Row j grown by pp percentage points, the others shrunk in proportion.
std::vector<double> grown(const std::vector<double>& share, size_t j, double pp) {
  std::vector<double> out = share;
  const double keep = (1 - share[j] - pp / 100) / (1 - share[j]);
  for (size_t i = 0; i < out.size(); ++i) out[i] = i == j ? share[j] + pp / 100 : share[i] * keep;
  return out;
}

struct Sim {
  size_t runs = 1;                      // per side
  double jitter = 0;                    // lognormal sigma of a share between runs
  uint64_t n_lo = 20000, n_hi = 20000;  // samples per run
  double target = 0.05;
  bool two_rows = false;  // else kRows rows
  size_t reps = 200;
  uint64_t seed = 1;
};

DiffRun draw_run(const std::vector<double>& share, const Sim& sim, Draws& draws) {
  std::vector<double> w(share.size());
  double total = 0;
  for (size_t i = 0; i < share.size(); ++i) {
    w[i] = share[i] * (sim.jitter > 0 ? std::exp(sim.jitter * draws.normal()) : 1.0);
    total += w[i];
  }
  const double n = static_cast<double>(draws.between(sim.n_lo, sim.n_hi));
  std::vector<Entry> entries;
  for (size_t i = 0; i < share.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "fn_%02zu", i);
    if (const uint64_t k = draws.poisson(n * w[i] / total)) {
      entries.push_back({"[kernel]", name, Mode::Kernel, k});
    }
  }
  return make_run("6.1.0", entries);
}

DiffInput draw_input(const std::vector<double>& base, const std::vector<double>& next,
                     const Sim& sim, Draws& draws) {
  DiffInput in;
  in.sides = {{"base", {}}, {"new", {}}};
  for (size_t r = 0; r < sim.runs; ++r) {
    in.sides[0].runs.push_back(draw_run(base, sim, draws));
    in.sides[1].runs.push_back(draw_run(next, sim, draws));
  }
  return in;
}

// The target row's floor from one A/A pilot draw.
DetectFloor pilot_floor(const Sim& sim, NoiseMethod expect) {
  Draws draws(sim.seed + 1000);
  const std::vector<double> base = shares_with(sim.target, sim.two_rows);
  const DiffInput in = draw_input(base, base, sim, draws);
  const DiffResult result = diff_profiles(in);
  EXPECT_EQ(result.noise[1], expect);
  const double share[] = {100 * sim.target};
  std::vector<DetectFloor> floors = detectability(in, result, share);
  EXPECT_EQ(floors.size(), 1u);
  return floors.at(0);
}

// How often the diff calls the target row, grown by `pp`, changed.
double detection_rate(const Sim& sim, double pp, size_t reps, uint64_t seed) {
  Draws draws(seed);
  const std::vector<double> base = shares_with(sim.target, sim.two_rows);
  const std::vector<double> next = grown(base, 0, pp);
  size_t hits = 0;
  for (size_t rep = 0; rep < reps; ++rep) {
    const DiffResult result = diff_profiles(draw_input(base, next, sim, draws));
    for (const DiffRow& row : result.rows) {
      if (row.name != "fn_00") continue;
      const DiffCompare& c = row.vs_base[1];
      hits += !c.within_noise && c.change.delta_pp > 0;
    }
  }
  return static_cast<double>(hits) / static_cast<double>(reps);
}

// The assertions (report/detect.h's promises): 1.25x the floor is found
// >= 80% of the time, where with 50 rows tested a right floor puts it near
// 95%; 0.5x under 25% (the promise is 20%; a right floor puts it near 10%).
// 200 repetitions: a binomial standard error <= 2.8 points at 90%, so 80%
// sits ~3.5 below. 1x the floor (half the repetitions; a right floor: 65-80%)
// is held to a loose band, so a floor far too cautious fails too. The floor
// itself comes from one pilot, as a user's would: across 400 pilot seeds of
// the 20% case the fitted spread's variance fell within 0.71-1.39x the truth
// (1%-99%), about +-18% in the floor.
void check(const std::string& name, const Sim& sim, NoiseMethod method, double at_125_min = 0.80,
           double at_050_max = 0.25) {
  const auto start = std::chrono::steady_clock::now();
  const DetectFloor f = pilot_floor(sim, method);
  ASSERT_EQ(f.at.size(), 1u);
  const double floor = f.at[0].floor_pp;
  ASSERT_TRUE(std::isfinite(floor) && floor > 0) << floor;
  const double at_125 = detection_rate(sim, 1.25 * floor, sim.reps, sim.seed);
  const double at_100 = detection_rate(sim, floor, sim.reps / 2, sim.seed + 1);
  const double at_050 = detection_rate(sim, 0.5 * floor, sim.reps, sim.seed + 2);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ measured ] %s: floor of a %g%% row %.3f pp (sampling %.3f pp, run variance %.3f pp; "
      "%zu rows); found at 1.25x %.3f, 1x %.3f, 0.5x %.3f over %zu reps, %.2f s\n",
      name.c_str(), 100 * sim.target, floor, f.at[0].sampling_pp,
      f.at[0].run_variance_pp.value_or(0), f.rows, at_125, at_100, at_050, sim.reps, seconds);
  std::fflush(stdout);
  ::testing::Test::RecordProperty(name + "_floor_pp", std::to_string(floor));
  ::testing::Test::RecordProperty(name + "_at_1.25", std::to_string(at_125));
  ::testing::Test::RecordProperty(name + "_at_1", std::to_string(at_100));
  ::testing::Test::RecordProperty(name + "_at_0.5", std::to_string(at_050));
  EXPECT_GE(at_125, at_125_min);
  EXPECT_GE(at_100, 0.60);
  EXPECT_LE(at_100, 0.97);
  EXPECT_LT(at_050, at_050_max);
}

TEST(DetectFloorSim, SamplingFivePercentRow) {
  Sim sim;
  sim.seed = 0xf100a001;
  check("sampling_5pct", sim, NoiseMethod::Sampling);
}

// A 1% row at 20,000 samples a side: the floor (~0.45 pp; the first-order
// formula says 0.41) is comparable to the share, where the grown share's
// variance matters.
TEST(DetectFloorSim, SamplingOnePercentRow) {
  Sim sim;
  sim.target = 0.01;
  sim.seed = 0xf100a002;
  check("sampling_1pct", sim, NoiseMethod::Sampling);
}

// 4 runs a side, 5% lognormal jitter, 20,000-40,000 samples a run: the
// run-to-run spread dominates, and grows with the share.
TEST(DetectFloorSim, RunVarianceFivePercentRow) {
  Sim sim;
  sim.runs = 4;
  sim.jitter = 0.05;
  sim.n_lo = 20000;
  sim.n_hi = 40000;
  sim.seed = 0xf100b001;
  check("run_variance_5pct", sim, NoiseMethod::RunVariance);
}

// A 20% row: its spread is p (1 - p), not p, times the jitter (the model's
// logit scale), and its growth shrinks every other row by several percent,
// some measurably, which BH turns into a little extra power.
TEST(DetectFloorSim, RunVarianceTwentyPercentRow) {
  Sim sim;
  sim.runs = 4;
  sim.jitter = 0.05;
  sim.n_lo = 20000;
  sim.n_hi = 40000;
  sim.target = 0.2;
  sim.seed = 0xf100b002;
  check("run_variance_20pct", sim, NoiseMethod::RunVariance);
}

// Two rows, one run a side (a program of two functions, as the hot-cold
// test program): each row mirrors the other, so BH finds both or neither
// at alpha, a single test at 5%. Its power curve goes from 20% to 80% over
// exactly 1.12 to 2.80 standard errors, the 2.5x of 0.5x to 1.25x: the two
// promises meet at one floor and hold there only just (measured 80.2% and
// 23.5% over 400 draws; each within 2 SE). A floor at 80% power finds half
// of itself 29% of the time (Phi((0.84 - 1.96) / 2)); one that counted the
// two rows as two tests (alpha / 2) 26%: both fail the 0.25 below.
TEST(DetectFloorSim, SamplingTwoRowsKeepsBothPromisesJust) {
  Sim sim;
  sim.target = 0.2;
  sim.two_rows = true;
  sim.n_lo = sim.n_hi = 4000;
  sim.reps = 400;
  sim.seed = 0xf100a003;
  check("sampling_two_rows", sim, NoiseMethod::Sampling, 0.76, 0.25);
}

// ---------------------------------------------------------------- the command line

std::string run_kprof(const std::string& args, int& code) {
  const std::string cmd = std::string(KPROF_BINARY) + " " + args + " 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(DetectFloorCli, PlanPrintsOnlyTheFloor) {
  const std::string samples = std::string(KPROF_SOURCE_DIR) + "/samples/";
  const std::string pair = samples + "generic.kprof " + samples + "rt.kprof";
  int code = -1;
  const std::string plan = run_kprof("diff " + pair + " --plan", code);
  ASSERT_EQ(code, 0) << plan;
  EXPECT_NE(plan.find("Detectability floor for "), std::string::npos) << plan;
  EXPECT_NE(plan.find("a 1% row: "), std::string::npos) << plan;
  EXPECT_NE(plan.find("4× the samples per side halves it"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Matched diff"), std::string::npos) << plan;

  const std::string full = run_kprof("diff " + pair, code);
  ASSERT_EQ(code, 0) << full;
  const size_t matched = full.find("Matched diff"), floor = full.find("Detectability floor");
  ASSERT_NE(matched, std::string::npos) << full;
  ASSERT_NE(floor, std::string::npos) << full;
  EXPECT_LT(matched, floor);

  const std::string csv = run_kprof("diff " + pair + " --csv -", code);
  EXPECT_EQ(code, 0) << csv;
  EXPECT_EQ(csv.find("Detectability floor"), std::string::npos) << csv;

  const std::string both = run_kprof("diff " + pair + " --plan --csv -", code);
  EXPECT_EQ(code, 2) << both;

  // --floor-at: the shares asked for, in order, instead of 1, 5 and 20%.
  const std::string at = run_kprof("diff " + pair + " --plan --floor-at 12,0.5", code);
  ASSERT_EQ(code, 0) << at;
  const size_t twelve = at.find("a 12% row: ±"), half = at.find("a 0.5% row: ±");
  EXPECT_NE(twelve, std::string::npos) << at;
  EXPECT_NE(half, std::string::npos) << at;
  EXPECT_LT(twelve, half) << at;
  EXPECT_EQ(at.find("a 20% row"), std::string::npos) << at;
  const std::string bad = run_kprof("diff " + pair + " --plan --floor-at 100", code);
  EXPECT_EQ(code, 2) << bad;
  EXPECT_NE(bad.find("--floor-at"), std::string::npos) << bad;
}

}  // namespace
}  // namespace kprof
