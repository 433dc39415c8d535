// Intervals that agree with verdicts (false coverage-rate intervals), and
// events per unit of work judged like shares (report/diff_rows.h).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "report/diff.h"
#include "tests/diff/diff_support.h"
#include "tests/diff/load_run.h"

namespace kprof {
namespace {

using difftest::Entry;
using difftest::make_run;

bool excludes_zero(double lo, double hi) {
  return lo > 0 || hi < 0;
}

// Every tested row: its interval excludes 0 exactly when its verdict is
// "changed", for shares and for events per work.
void expect_intervals_agree(const DiffResult& r, const std::string& what,
                            bool need_changes = true) {
  size_t changed = 0, work_changed = 0;
  for (const DiffRow& row : r.rows) {
    for (size_t s = 1; s < r.labels.size(); ++s) {
      const DiffCompare& c = row.vs_base[s];
      if (c.sided == Sidedness::Neither || c.untested) continue;
      EXPECT_EQ(excludes_zero(c.change.lo_pp, c.change.hi_pp), !c.within_noise)
          << what << ": " << row.name << " Δ " << c.change.delta_pp << " [" << c.change.lo_pp
          << ", " << c.change.hi_pp << "] q " << c.q;
      changed += !c.within_noise;
      if (!c.work_tested) continue;
      EXPECT_EQ(excludes_zero(c.work.lo_pp, c.work.hi_pp), !c.work_within_noise)
          << what << " per work: " << row.name << " " << c.work.delta_pp << "% [" << c.work.lo_pp
          << ", " << c.work.hi_pp << "] q " << c.work_q;
      work_changed += !c.work_within_noise;
    }
  }
  if (!need_changes) return;
  EXPECT_GT(changed, 0u) << what << ": the check needs changed rows";
  if (r.has_work && r.noise[1] == NoiseMethod::RunVariance) {
    EXPECT_GT(work_changed, 0u) << what;  // one run a side: events per work are not judged
  }
}

TEST(DiffFcr, SeedIntervalsAgreeWithVerdicts) {
  const DiffResult r = diff_profiles(difftest::seed_oltp_input());
  expect_intervals_agree(r, "seed OLTP");
  ASSERT_EQ(r.interval_alpha.size(), 2u);
  EXPECT_GT(r.interval_alpha[1], 0);
  EXPECT_LE(r.interval_alpha[1], 0.05) << "never narrower than 95%";
}

// The example: in the shipped generic-vs-RT diff kmem_cache_alloc had
// a 95% interval of [-3.58, -0.57] and the verdict noise. (The shipped
// profiles have been recorded again since; the row's verdict and interval
// must still agree, whichever way the new recording went.)
TEST(DiffFcr, ShippedDemoDiffHasNoContradiction) {
  DiffInput in;
  std::vector<std::string> warnings;
  for (const char* f : {"generic", "rt"}) {
    in.sides.push_back(
        {f, {load_diff_run(std::string(KPROF_SOURCE_DIR) + "/samples/" + f + ".kprof", warnings)}});
  }
  const DiffResult r = diff_profiles(in);
  expect_intervals_agree(r, "shipped demo");
  const DiffRow* kmem = nullptr;
  for (const DiffRow& row : r.rows) {
    if (row.name == "kmem_cache_alloc") kmem = &row;
  }
  ASSERT_NE(kmem, nullptr);
  const DiffCompare& c = kmem->vs_base[1];
  EXPECT_EQ(c.within_noise, c.change.lo_pp < 0 && c.change.hi_pp > 0)
      << "its verdict says what its interval says: [" << c.change.lo_pp << ", " << c.change.hi_pp
      << "]";
}

// The hot-cold program's design in code: per unit of work it costs hot 3 and
// cold 1 units of CPU time; on the new side cold costs 1.3. Each run is
// 100 s at a fixed sample rate, so the work done (score) falls on the new
// side, hot's events per work stay and cold's grow 30%. A dozen kernel rows
// of one or two samples come and go.
std::vector<Entry> hot_cold(std::mt19937_64& rng, double cold_cost, uint64_t samples) {
  const double total = 3 + cold_cost;
  std::binomial_distribution<uint64_t> hot(samples, 3 / total);
  const uint64_t h = hot(rng);
  std::vector<Entry> e = {{"/bin/hotcold", "kprof_hot", Mode::User, h},
                          {"/bin/hotcold", "kprof_cold", Mode::User, samples - h}};
  std::uniform_int_distribution<int> few(0, 2);
  for (int k = 0; k < 12; ++k) {
    if (const int n = few(rng)) {
      e.push_back(
          {"[kernel]", "kfunc_" + std::to_string(k), Mode::Kernel, static_cast<uint64_t>(n)});
    }
  }
  return e;
}

DiffInput hot_cold_input(size_t runs, uint64_t samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> jitter(1.0, 0.01);
  DiffInput in;
  for (double cold : {1.0, 1.3}) {
    DiffSide side;
    side.label = cold == 1.0 ? "base" : "slow";
    for (size_t r = 0; r < runs; ++r) {
      DiffRun run = make_run(side.label, hot_cold(rng, cold, samples));
      // Scores vary from run to run; with one run a side nothing can say by
      // how much, so that case gets the design's exact score.
      run.score = 1000 * 4 / (3 + cold) * (runs > 1 ? jitter(rng) : 1.0);
      side.runs.push_back(std::move(run));
    }
    in.sides.push_back(std::move(side));
  }
  return in;
}

const DiffRow* row_named(const DiffResult& r, const std::string& name) {
  for (const DiffRow& row : r.rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

void expect_work_design(const DiffResult& r, const std::string& what) {
  ASSERT_TRUE(r.has_work) << what;
  const DiffRow* cold = row_named(r, "kprof_cold");
  const DiffRow* hot = row_named(r, "kprof_hot");
  ASSERT_TRUE(cold && hot) << what;
  const DiffCompare& c = cold->vs_base[1];
  ASSERT_TRUE(c.work_tested);
  EXPECT_EQ(std::string(work_verdict_name(c, r.noise[1])), "changed") << what;
  EXPECT_LT(c.work.lo_pp, 30) << what << ": the interval holds the design's +30%";
  EXPECT_GT(c.work.hi_pp, 30) << what;
  EXPECT_EQ(std::string(work_verdict_name(hot->vs_base[1], r.noise[1])), "noise")
      << what << ": hot costs the same per unit of work (" << hot->vs_base[1].work.delta_pp << "%)";
  for (const DiffRow& row : r.rows) {
    if (row.name.rfind("kfunc_", 0) != 0) continue;
    const DiffCompare& k = row.vs_base[1];
    EXPECT_TRUE(!k.work_tested || k.work_within_noise)
        << what << ": " << row.name << " with " << row.cells[0].samples << " and "
        << row.cells[1].samples << " samples is noise, not " << k.work.delta_pp << "%";
  }
  expect_intervals_agree(r, what);
}

TEST(DiffFcr, PerWorkThreeRunsFindTheSlowedFunctionOnly) {
  const DiffResult r = diff_profiles(hot_cold_input(3, 20000, 1));
  EXPECT_EQ(r.noise[1], NoiseMethod::RunVariance);
  expect_work_design(r, "3 vs 3 runs");
}

// One run a side cannot tell a slower machine from a regression, so events
// per work get no verdict of their own; each row's overweight (its growth
// against the whole's) does the work: the slowed function grew more than
// the whole did (the share verdict says so), the others less or as much.
TEST(DiffFcr, PerWorkOneRunIsJudgedByOverweight) {
  const DiffResult r = diff_profiles(hot_cold_input(1, 50000, 2));
  EXPECT_EQ(r.noise[1], NoiseMethod::Sampling);
  ASSERT_TRUE(r.has_work);
  const DiffRow* cold = row_named(r, "kprof_cold");
  const DiffRow* hot = row_named(r, "kprof_hot");
  ASSERT_TRUE(cold && hot);
  for (const DiffRow& row : r.rows) EXPECT_FALSE(row.vs_base[1].work_tested) << row.name;
  // cold costs 1.3x per unit of work, the whole (3 + 1.3) / 4 = 1.075x: cold
  // is 1.3 / 1.075 - 1 = +20.9% overweight, hot 1 / 1.075 - 1 = -7.0%.
  const DiffCompare& c = cold->vs_base[1];
  ASSERT_TRUE(c.overweight_pct && hot->vs_base[1].overweight_pct);
  EXPECT_NEAR(*c.overweight_pct, 20.9, 2.5);
  EXPECT_NEAR(*hot->vs_base[1].overweight_pct, -7.0, 1.5);
  EXPECT_EQ(std::string(verdict_name(c, r.noise[1])), "changed");
  EXPECT_GT(c.change.delta_pp, 0);
  expect_intervals_agree(r, "1 vs 1 run");
}

// A uniform slowdown (every function 8% slower per unit of work, as on a
// slower machine) leaves nothing standing out: every overweight near 0, no
// share changed.
TEST(DiffFcr, UniformSlowdownStandsOutNowhere) {
  DiffInput in = hot_cold_input(1, 50000, 3);
  for (DiffRun& run : in.sides[1].runs) {
    // The base's program on a machine 8% slower: the same profile, 8% less work done.
    run.histogram = in.sides[0].runs[0].histogram;
    run.score = *in.sides[0].runs[0].score / 1.08;
  }
  const DiffResult r = diff_profiles(in);
  for (const DiffRow& row : r.rows) {
    const DiffCompare& c = row.vs_base[1];
    if (c.sided == Sidedness::Neither) continue;
    EXPECT_TRUE(c.untested || c.within_noise) << row.name;
    if (c.overweight_pct) {
      EXPECT_NEAR(*c.overweight_pct, 0, 1e-9) << row.name;
    }
    if (c.work_change_pct) {
      EXPECT_NEAR(*c.work_change_pct, 8, 1e-9) << row.name;
    }
  }
}

TEST(DiffFcr, ManySeedsNeverContradict) {
  for (uint64_t seed = 10; seed < 30; ++seed) {
    expect_intervals_agree(diff_profiles(hot_cold_input(seed % 2 ? 1 : 3, 5000, seed)),
                           "seed " + std::to_string(seed), false);
  }
}

}  // namespace
}  // namespace kprof
