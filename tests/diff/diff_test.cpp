// The diff as a pure function over profiles made in code: the seed's OLTP
// golden, one-sided rows, canonical merging, noise, N-way, warnings, exports.
#include "report/diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/error.h"
#include "export/environment_export.h"
#include "export/tables.h"
#include "tests/diff/diff_support.h"

namespace kprof {
namespace {

using difftest::Entry;
using difftest::make_run;

const DiffRow* find_row(const DiffResult& r, const std::string& image, const std::string& name) {
  for (const DiffRow& row : r.rows)
    if (row.image == image && row.name == name) return &row;
  return nullptr;
}

std::string text_of(const DiffResult& r) {
  std::ostringstream s;
  write_diff_text(s, r);
  return s.str();
}

// ---------------------------------------------------------------- the seed

TEST(DiffSeed, OneSidedRowsAndMptInterrupt) {
  const DiffResult r = diff_profiles(difftest::seed_oltp_input());
  ASSERT_EQ(r.labels, (std::vector<std::string>{"2.6.18-164.el5", "2.6.33-rc4"}));

  const DiffRow* zalloc = find_row(r, "[kernel]", "kmem_cache_zalloc");
  ASSERT_NE(zalloc, nullptr);
  EXPECT_EQ(zalloc->vs_base[1].sided, Sidedness::OnlyBase);
  EXPECT_NEAR(zalloc->cells[0].pct, 0.4355, 1e-9);
  EXPECT_EQ(zalloc->cells[1].samples, 0u);

  const DiffRow* rt = find_row(r, "[kernel]", "pick_next_highest_task_rt");
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->vs_base[1].sided, Sidedness::OnlyNew);
  EXPECT_FALSE(rt->vs_base[1].ratio.has_value());

  const DiffRow* mpt = find_row(r, "[kernel]", "mpt_interrupt");
  ASSERT_NE(mpt, nullptr);
  EXPECT_NEAR(mpt->vs_base[1].change.delta_pp, 0.9540 - 1.4696, 1e-9);
  EXPECT_NEAR(*mpt->vs_base[1].ratio, 0.9540 / 1.4696, 1e-9);
  EXPECT_FALSE(mpt->vs_base[1].within_noise);  // 1M samples: half a point is real

  // <dbms> is the largest move (-1.13 pp), then mpt_interrupt.
  ASSERT_GE(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].name, "<dbms>");
  EXPECT_EQ(r.rows[1].name, "mpt_interrupt");
  for (size_t i = 1; i < r.rows.size(); ++i) {
    EXPECT_GE(r.rows[i - 1].max_abs_delta, r.rows[i].max_abs_delta);
  }
  // Fillers move by ~0.01 pp or less and are kept, not dropped.
  EXPECT_NE(find_row(r, "[kernel]", "filler_000"), nullptr);
}

TEST(DiffSeed, SummaryFromScoresAndProcStat) {
  const DiffResult r = diff_profiles(difftest::seed_oltp_input());
  EXPECT_EQ(r.speedup_source, "score 'oltp'");
  ASSERT_EQ(r.summary.size(), 2u);
  EXPECT_NEAR(*r.summary[0].speedup, 1.0, 1e-12);
  EXPECT_NEAR(*r.summary[1].speedup, 0.992, 1e-12);
  ASSERT_TRUE(r.summary[1].rates.has_value());
  EXPECT_NEAR(r.summary[1].rates->interrupts_per_s, 221354, 1e-6);
  EXPECT_NEAR(r.summary[0].rates->ctxsw_per_s, 181307, 1e-6);
  EXPECT_EQ(r.summary[0].samples, 1000000u);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  // Cycles per unit of work: <dbms>'s share fell, but per unit of work it
  // changed by 69.4350/0.992 vs 70.5642 (-0.8%).
  const DiffRow* dbms = find_row(r, "<dbms>", "<dbms>");
  ASSERT_NE(dbms, nullptr);
  ASSERT_TRUE(dbms->vs_base[1].work_change_pct.has_value());
  EXPECT_NEAR(*dbms->vs_base[1].work_change_pct, 100 * (69.4350 / 0.992 / 70.5642 - 1), 1e-6);
}

TEST(DiffSeed, GoldenText) {
  DiffInput in = difftest::seed_oltp_input();
  in.options.top = 34;  // the seed's lists hold 34 rows
  const std::string text = text_of(diff_profiles(in));
  const std::string mismatch = difftest::golden_mismatch("seed_oltp.txt", text);
  if (!mismatch.empty()) ADD_FAILURE() << mismatch;
}

TEST(DiffSeed, SideBySideReproducesTheSeedColumns) {
  DiffInput in = difftest::seed_oltp_input();
  in.options.top = 34;
  const std::string text = text_of(diff_profiles(in));
  // Header and rows as in the seed, columns aligned.
  EXPECT_NE(text.find("Cycles%  2.6.18-164.el5           Cycles%  2.6.33-rc4"), std::string::npos)
      << text;
  EXPECT_NE(text.find("70.5642  <dbms>                   69.4350  <dbms>"), std::string::npos);
  EXPECT_NE(text.find(" 0.1965  scsi_prep_fn              0.1856  __errno_location"),
            std::string::npos);
}

// ---------------------------------------------------------------- identity

TEST(Diff, CloneSuffixesMergeAndColdPartsFold) {
  DiffRun a = make_run("6.1.0", {{"[kernel]", "count.isra.17.constprop.23", Mode::Kernel, 600},
                                 {"[kernel]", "count.cold", Mode::Kernel, 100},
                                 {"[kernel]", "other", Mode::Kernel, 300}});
  DiffRun b = make_run("6.2.0", {{"[kernel]", "count.constprop.4", Mode::Kernel, 700},
                                 {"[kernel]", "other", Mode::Kernel, 300}});
  const DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.rows.size(), 2u);
  const DiffRow* count = find_row(r, "[kernel]", "count");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->raw_names, (std::vector<std::string>{"count.cold", "count.constprop.4",
                                                        "count.isra.17.constprop.23"}));
  EXPECT_NEAR(count->cells[0].pct, 70.0, 1e-9);
  EXPECT_NEAR(count->cells[1].pct, 70.0, 1e-9);
  EXPECT_EQ(count->vs_base[1].sided, Sidedness::Both);
  const std::string text = text_of(r);
  EXPECT_NE(
      text.find("count in [kernel] <- count.cold, count.constprop.4, count.isra.17.constprop.23"),
      std::string::npos)
      << text;
}

TEST(Diff, SameNameInDifferentImagesStaysApart) {
  DiffRun a = make_run("a", {{"/usr/lib/libc.so.6", "memcpy", Mode::User, 50},
                             {"[kernel]", "memcpy", Mode::Kernel, 50}});
  DiffRun b = make_run("b", {{"/usr/lib/libc.so.6", "memcpy", Mode::User, 80},
                             {"[kernel]", "memcpy", Mode::Kernel, 20}});
  const DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_NEAR(find_row(r, "/usr/lib/libc.so.6", "memcpy")->vs_base[1].change.delta_pp, 30, 1e-9);
  EXPECT_NEAR(find_row(r, "[kernel]", "memcpy")->vs_base[1].change.delta_pp, -30, 1e-9);
}

TEST(Diff, ByImageAggregatesFunctionsAndByModeSplitsKernelUser) {
  DiffRun a = make_run("a", {{"/opt/dbms/bin/dbms", "exec_query", Mode::User, 500},
                             {"/opt/dbms/bin/dbms", "btree_search", Mode::User, 200},
                             {"[kernel]", "schedule", Mode::Kernel, 300}});
  DiffRun b = make_run("b", {{"/opt/dbms/bin/dbms", "exec_query", Mode::User, 400},
                             {"/opt/dbms/bin/dbms", "btree_search", Mode::User, 200},
                             {"[kernel]", "schedule", Mode::Kernel, 400}});
  DiffInput in{{{"", {a}}, {"", {b}}}};
  in.options.by = DiffBy::Image;
  DiffResult r = diff_profiles(in);
  ASSERT_EQ(r.rows.size(), 2u);
  const DiffRow* dbms = find_row(r, "", "/opt/dbms/bin/dbms");
  ASSERT_NE(dbms, nullptr);
  EXPECT_NEAR(dbms->cells[0].pct, 70, 1e-9);
  EXPECT_NEAR(dbms->cells[1].pct, 60, 1e-9);
  in.options.by = DiffBy::Mode;
  r = diff_profiles(in);
  ASSERT_NE(find_row(r, "", "user"), nullptr);
  EXPECT_NEAR(find_row(r, "", "kernel")->vs_base[1].change.delta_pp, 10, 1e-9);
  EXPECT_THROW(parse_diff_by("symbol"), Error);
}

// ---------------------------------------------------------------- noise

TEST(Diff, OneRunPerSideUsesSamplingStatisticsAndSaysSo) {
  DiffRun a = make_run("a", {{"[kernel]", "hot", Mode::Kernel, 5000},
                             {"[kernel]", "tiny", Mode::Kernel, 10},
                             {"[kernel]", "rest", Mode::Kernel, 4990}});
  DiffRun b = make_run("b", {{"[kernel]", "hot", Mode::Kernel, 6000},
                             {"[kernel]", "tiny", Mode::Kernel, 12},
                             {"[kernel]", "rest", Mode::Kernel, 3988}});
  const DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  EXPECT_EQ(r.noise[1], NoiseMethod::Sampling);
  EXPECT_FALSE(find_row(r, "[kernel]", "hot")->vs_base[1].within_noise);
  EXPECT_TRUE(find_row(r, "[kernel]", "tiny")->vs_base[1].within_noise);
  const std::string text = text_of(r);
  EXPECT_NE(text.find("SAMPLING STATISTICS ONLY"), std::string::npos);
  // Within noise is marked, never hidden.
  EXPECT_NE(text.find("noise    tiny"), std::string::npos) << text;
}

TEST(Diff, RunsPerSideUseRunVarianceWithBenjaminiHochberg) {
  // "jittery" moves by 1 pp on average but varies by +-2 pp between runs;
  // "steady" moves by 0.5 pp with almost no spread.
  auto run = [](const std::string& rel, uint64_t jitter, uint64_t steady) {
    return make_run(rel, {{"[kernel]", "jittery", Mode::Kernel, jitter},
                          {"[kernel]", "steady", Mode::Kernel, steady},
                          {"[kernel]", "rest", Mode::Kernel, 100000 - jitter - steady}});
  };
  DiffSide base{"base", {run("k1", 10000, 5000), run("k1", 12000, 5010), run("k1", 8000, 4990)}};
  DiffSide next{"new", {run("k2", 13000, 5500), run("k2", 9000, 5510), run("k2", 11000, 5490)}};
  const DiffResult r = diff_profiles({{base, next}});
  EXPECT_EQ(r.noise[1], NoiseMethod::RunVariance);
  EXPECT_EQ(r.labels, (std::vector<std::string>{"base", "new"}));
  const DiffRow* jittery = find_row(r, "[kernel]", "jittery");
  const DiffRow* steady = find_row(r, "[kernel]", "steady");
  EXPECT_TRUE(jittery->vs_base[1].within_noise);
  EXPECT_FALSE(steady->vs_base[1].within_noise);
  EXPECT_NEAR(steady->vs_base[1].change.delta_pp, 0.5, 1e-9);
  EXPECT_EQ(jittery->cells[0].run_pct.size(), 3u);
  // The summary is per side, with the spread.
  EXPECT_EQ(r.summary[1].runs, 3u);
  const std::string text = text_of(r);
  EXPECT_NE(text.find("run-to-run variance (3 vs 3 runs)"), std::string::npos) << text;
}

// ---------------------------------------------------------------- N-way, labels, scores

TEST(Diff, NWayComparesEverySideAgainstTheFirst) {
  std::vector<DiffSide> sides;
  const uint64_t shares[] = {100, 150, 200, 300};
  for (uint64_t s : shares) {
    sides.push_back({"",
                     {make_run("2.6.11", {{"[kernel]", "sys_call", Mode::Kernel, s},
                                          {"[kernel]", "idle", Mode::Kernel, 1000 - s}})}});
  }
  sides[0].label = "vanilla";
  const DiffResult r = diff_profiles({sides});
  EXPECT_EQ(r.labels, (std::vector<std::string>{"vanilla", "2.6.11", "2.6.11#2", "2.6.11#3"}));
  const DiffRow* sc = find_row(r, "[kernel]", "sys_call");
  ASSERT_EQ(sc->vs_base.size(), 4u);
  EXPECT_NEAR(sc->vs_base[1].change.delta_pp, 5, 1e-9);
  EXPECT_NEAR(sc->vs_base[3].change.delta_pp, 20, 1e-9);
  EXPECT_NEAR(sc->max_abs_delta, 20, 1e-9);
  const std::string text = text_of(r);
  EXPECT_NE(text.find("2.6.11#3 %"), std::string::npos) << text;
  // Wall-time speedup when there are no scores.
  EXPECT_EQ(r.speedup_source, "wall time");
}

// Issue 23, item 15: one kernel on two sides is told apart by file names.
TEST(Diff, SidesOfOneKernelAreLabelledByTheirFiles) {
  auto run = [](const std::string& release, const std::string& file) {
    DiffRun r = make_run(release, {{"[kernel]", "f", Mode::Kernel, 100}});
    r.source = "/data/" + file;
    return r;
  };
  DiffResult r = diff_profiles({{{"", {run("6.18", "a.kprof")}}, {"", {run("6.18", "b.kprof")}}}});
  EXPECT_EQ(r.labels, (std::vector<std::string>{"a.kprof", "b.kprof"}));
  r = diff_profiles({{{"", {run("6.18", "a1.kprof"), run("6.18", "a2.kprof")}},
                      {"", {run("6.18", "b1.kprof"), run("6.18", "b2.kprof")}},
                      {"", {run("6.19", "c.kprof")}}}});
  EXPECT_EQ(r.labels, (std::vector<std::string>{"a1.kprof+1", "b1.kprof+1", "6.19"}));
}

TEST(Diff, ScoreOverrideAndWallTimeSpeedup) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10}});
  DiffRun b = make_run("b", {{"[kernel]", "f", Mode::Kernel, 10}});
  b.summary->real_s = 80;  // 100 s -> 80 s: 1.25x
  DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  EXPECT_NEAR(*r.summary[1].speedup, 1.25, 1e-12);
  a.score = 345.8;
  b.score = 213.2;
  r = diff_profiles({{{"", {a}}, {"", {b}}}});
  EXPECT_EQ(r.speedup_source, "score (--score)");
  EXPECT_NEAR(*r.summary[1].speedup, 213.2 / 345.8, 1e-12);
  EXPECT_TRUE(r.has_work);
}

// Issue 25: the per-work section closes with an account of the change.
TEST(Diff, WorkChangeIsAccountedFor) {
  DiffRun a = make_run(
      "a", {{"[kernel]", "f", Mode::Kernel, 10000}, {"[kernel]", "g", Mode::Kernel, 5000}});
  DiffRun b = make_run(
      "b", {{"[kernel]", "f", Mode::Kernel, 13000}, {"[kernel]", "g", Mode::Kernel, 5000}});
  for (DiffRun* r : {&a, &b}) r->run.event.name = "cpu-clock";
  a.score = 100;
  b.score = 80;
  const DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_TRUE(r.has_work);
  EXPECT_TRUE(r.work_in_ns);
  const std::string text = text_of(r);
  EXPECT_NE(text.find("b: cost per unit of work "), std::string::npos) << text;
  EXPECT_NE(
      text.find(
          "(+50.0%); accounted for by the rows marked changed (by share): 100%, within noise: 0%"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("of which not seen by CPU samples (off-CPU, idle): "), std::string::npos)
      << text;
}

// Issue 25: overweight is a sort key of the per-work table.
TEST(Diff, WorkTableSortsByOverweight) {
  DiffRun a = make_run(
      "a", {{"[kernel]", "big", Mode::Kernel, 10000}, {"[kernel]", "small", Mode::Kernel, 1000}});
  DiffRun b = make_run(
      "b", {{"[kernel]", "big", Mode::Kernel, 12000}, {"[kernel]", "small", Mode::Kernel, 2000}});
  a.score = b.score = 100;
  DiffInput in{{{"", {a}}, {"", {b}}}, {}, {}};
  std::string text = text_of(diff_profiles(in));
  const std::string work = text.substr(text.find("Events per unit of work"));
  EXPECT_LT(work.find(" big "), work.find(" small ")) << "largest change first\n" << work;
  in.options.sort_overweight = true;
  text = text_of(diff_profiles(in));
  const std::string by = text.substr(text.find("Events per unit of work"));
  EXPECT_NE(by.find("by overweight, largest first"), std::string::npos) << by;
  EXPECT_LT(by.find(" small "), by.find(" big ")) << "small doubled: the most overweight\n" << by;
}

// Issue 25: a function renamed between builds (its cost moved, not changed)
// is one pair under its caller, not two findings.
TEST(Diff, CostMovesUnderOneCallerArePaired) {
  auto run = [](const std::string& release, const std::string& helper) {
    DiffRun r = make_run(
        release, {{"/bin/app", helper, Mode::User, 1000}, {"/bin/app", "other", Mode::User, 1000}});
    Stacks st;
    st.images = {{"/bin/app", ""}};
    st.processes = {{1, "app"}};
    st.frames = {{0, helper, Mode::User},
                 {0, "work", Mode::User},
                 {0, "other", Mode::User},
                 {0, "main", Mode::User}};
    st.stacks = {{0, {0, 1, 3}, 1000, 1000}, {0, {2, 3}, 1000, 1000}};
    r.stacks = st;
    return r;
  };
  const DiffResult r =
      diff_profiles({{{"", {run("a", "old_helper")}}, {"", {run("b", "new_helper")}}}});
  ASSERT_EQ(r.moves.size(), 1u);
  EXPECT_EQ(r.moves[0].from, "old_helper");
  EXPECT_EQ(r.moves[0].to, "new_helper");
  EXPECT_EQ(r.moves[0].caller, "work");
  EXPECT_NE(text_of(r).find("b: old_helper -50.0000 pp → new_helper +50.0000 pp, both called by "
                            "work"),
            std::string::npos)
      << text_of(r);
  // Different callers: two findings, no pair.
  DiffRun c = run("c", "new_helper");
  c.stacks->frames[1].function = "elsewhere";
  EXPECT_TRUE(diff_profiles({{{"", {run("a", "old_helper")}}, {"", {c}}}}).moves.empty());
}

TEST(Diff, NeedsTwoSides) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10}});
  EXPECT_THROW(diff_profiles({{{"", {a}}}}), Error);
  EXPECT_THROW(diff_profiles({{{"", {a}}, {"", {}}}}), Error);
}

// ---------------------------------------------------------------- warnings

TEST(DiffWarnings, CpuClockFallbackVersusCycles) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10000}});
  DiffRun b = make_run("b", {{"[kernel]", "f", Mode::Kernel, 10000}});
  b.run.event.name = "cpu-clock";
  b.run.event.fell_back = true;
  const DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "different events: a ran 'cycles', b ran 'cpu-clock' (fell back to it): timer "
            "samples are not cycles, compare shares with care");
  const std::string text = text_of(r);
  EXPECT_LT(text.find("warning: different events"), text.find("Run summary")) << text;
}

// Issue 23, item 4: what ran is compared, not whether a side fell back.
TEST(DiffWarnings, EventsAreWhatRanNotWhatWasAskedFor) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10000}});
  DiffRun b = make_run("b", {{"[kernel]", "f", Mode::Kernel, 10000}});
  a.run.event.name = "cpu-clock";
  a.run.event.fell_back = true;    // asked for cycles
  b.run.event.name = "cpu-clock";  // asked for cpu-clock (perf record -e cpu-clock)
  DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  b.run.event.name = "page-faults";
  b.run.event.use_freq = false;
  b.run.event.rate = 10;
  a.run.event.use_freq = true;
  a.run.event.rate = 999;
  r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0],
            "different events: a ran 'cpu-clock' (fell back to it), b ran 'page-faults': timer "
            "samples are not cycles, compare shares with care");
  EXPECT_EQ(r.warnings[1], "different sampling modes: a 999 Hz, b period 10");
}

// A clock sampled at a fixed period on one side and a dithered one on the
// other (an old recording, or --no-dither): a phase-locked loop can read
// differently, so the diff says which side was dithered.
TEST(DiffWarnings, DitheredAgainstFixedClockPeriod) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10000}});
  DiffRun b = make_run("b", {{"[kernel]", "f", Mode::Kernel, 10000}});
  for (DiffRun* r : {&a, &b}) r->run.event = {"", "cpu-clock", 1, 0, true, 999};
  b.run.event.dither_pct = 50;
  DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "the clock's period was dithered in b only: a loop in step with a fixed period can "
            "read differently in the other");
  a.run.event.dither_pct = 50;
  r = diff_profiles({{{"", {a}}, {"", {b}}}});
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

TEST(DiffWarnings, DifferentPeriodsFrequenciesAndCpus) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10000}});
  DiffRun b = make_run("b", {{"[kernel]", "f", Mode::Kernel, 10000}});
  b.run.event.rate = 200000;
  DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "different sampling periods: a period 100000, b period 200000");
  b.run.event = {"", "cycles", 0, 0, true, 4000};
  b.run.cpu_model = "AMD EPYC 7763";
  r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0], "different sampling modes: a period 100000, b 4000 Hz");
  EXPECT_NE(r.warnings[1].find("different CPU models"), std::string::npos);
  b.run.event.name = "instructions";
  b.run.event.use_freq = false;
  b.run.event.rate = 100000;
  b.run.cpu_model = a.run.cpu_model;
  r = diff_profiles({{{"", {a}}, {"", {b}}}});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "different events: a ran 'cycles', b ran 'instructions'");
}

// Issue 23, item 9: a call-graph view's titles say what its rows are.
TEST(DiffText, CallGraphViewsSayWhatTheRowsAre) {
  DiffRun a = make_run("a", {{"[kernel]", "f", Mode::Kernel, 10000}});
  DiffRun b = make_run("b", {{"[kernel]", "f", Mode::Kernel, 10000}});
  DiffInput in{{{"", {a}}, {"", {b}}}, {}, {}};
  in.options.top = 5;
  EXPECT_EQ(text_of(diff_profiles(in)).rfind("kprof diff by function: base a against b\n", 0), 0u);
  in.options.view = "callers ns::work";
  std::string text = text_of(diff_profiles(in));
  EXPECT_EQ(text.rfind("kprof diff callers of ns::work: base a against b\n", 0), 0u) << text;
  EXPECT_NE(text.find("Top 5 callers of ns::work in each profile"), std::string::npos) << text;
  EXPECT_EQ(text.find("by function"), std::string::npos) << text;
  in.options.view = "children";
  text = text_of(diff_profiles(in));
  EXPECT_NE(text.find("Top 5 functions by total samples (self and children) in each profile"),
            std::string::npos)
      << text;
}

// ---------------------------------------------------------------- exports

TEST(DiffExport, JsonCarriesEveryRowRawNamesAndWarnings) {
  DiffInput in = difftest::seed_oltp_input();
  Histogram& h = in.sides[1].runs[0].histogram;
  const auto kernel = std::find(h.images.begin(), h.images.end(), Image{"[kernel]", ""});
  ASSERT_NE(kernel, h.images.end());
  h.rows.push_back(
      {static_cast<uint32_t>(kernel - h.images.begin()), "kfree.cold", Mode::Kernel, 5, 500000});
  in.warnings.push_back("x.kprof: profile cut short");
  in.options.top = 5;  // text only
  const DiffResult r = diff_profiles(in);
  std::ostringstream s;
  write_diff_json(s, r);
  const nlohmann::json j = nlohmann::json::parse(s.str());
  EXPECT_EQ(j["rows"].size(), r.rows.size());
  EXPECT_GT(j["rows"].size(), 200u);
  EXPECT_EQ(j["warnings"][0], "x.kprof: profile cut short");
  EXPECT_EQ(j["labels"][1], "2.6.33-rc4");
  bool found = false;
  for (const auto& row : j["rows"]) {
    if (row["name"] == "kfree") {
      found = true;
      EXPECT_EQ(row["raw_names"], nlohmann::json({"kfree", "kfree.cold"}));
    }
    if (row["name"] == "pick_next_highest_task_rt") {
      EXPECT_EQ(row["sides"][1]["sided"], "+++");
      EXPECT_TRUE(row["sides"][1]["ratio"].is_null());
    }
  }
  EXPECT_TRUE(found);
}

// Issue 24: what differs besides the workload is in the text (first) and
// in the JSON, every differing option there.
TEST(DiffExport, EnvironmentDifferencesInTextAndJson) {
  DiffRun a = make_run("6.1.0-50-amd64", {{"[kernel]", "f", Mode::Kernel, 10000},
                                          {"[kernel]", "tomoyo_path_perm", Mode::Kernel, 500}});
  DiffRun b = make_run("6.1.0-50-rt-amd64", {{"[kernel]", "f", Mode::Kernel, 10000},
                                             {"[kernel]", "rt_spin_unlock", Mode::Kernel, 900},
                                             {"[kernel]", "migrate_enable", Mode::Kernel, 800},
                                             {"/bin/app", "rt_spin_lock", Mode::User, 100},
                                             {"[kernel]", "tomoyo_path_perm", Mode::Kernel, 500}});
  Environment ea;
  ea.facts = {{"clocksource", "tsc", "/sys/x", true}};
  ea.config = {{"PREEMPT_NONE", "y"}, {"XFS_FS", "m"}, {"SECURITY_TOMOYO", "y"}};
  Environment eb = ea;
  eb.facts[0].value = "hpet";
  eb.config = {{"PREEMPT_RT", "y"}, {"XFS_FS", "y"}, {"SECURITY_TOMOYO", "y"}};
  a.environment = ea;
  b.environment = eb;
  DiffInput in{{{"", {a}}, {"", {b}}}, {}, {}};
  const DiffResult r = diff_profiles(in);
  const std::string text = text_of(r);
  EXPECT_LT(text.find("What differs besides the workload"), text.find("Run summary")) << text;
  EXPECT_NE(text.find("Kernel configuration: 3 of 4 options differ"), std::string::npos) << text;
  // Beside a row only where the function is certainly the differing option's
  // code: not migrate_enable (it exists without PREEMPT_RT too), not a user
  // function of that name, not TOMOYO's hooks (alike on both sides).
  std::map<std::string, std::string> owner;
  for (const DiffRow& row : r.rows) owner[row.image + " " + row.name] = row.config_option;
  EXPECT_EQ(owner["[kernel] rt_spin_unlock"], "PREEMPT_RT");
  EXPECT_EQ(owner["[kernel] migrate_enable"], "");
  EXPECT_EQ(owner["/bin/app rt_spin_lock"], "");
  EXPECT_EQ(owner["[kernel] tomoyo_path_perm"], "");
  EXPECT_NE(text.find("changed CONFIG_PREEMPT_RT"), std::string::npos) << text;
  EXPECT_NE(text.find("CONFIG_PREEMPT_RT beside a row: the function is that option's own code"),
            std::string::npos)
      << text;
  std::ostringstream csv;
  write_diff_csv(csv, r);
  EXPECT_NE(csv.str().find("[kernel],rt_spin_unlock,rt_spin_unlock,,PREEMPT_RT,"),
            std::string::npos)
      << csv.str();
  std::ostringstream env_csv;
  write_environment_csv(env_csv, r.environment, r.labels);
  EXPECT_EQ(env_csv.str(),
            "kind,name,6.1.0-50-amd64,6.1.0-50-rt-amd64,cost\r\n"
            "fact,clocksource,tsc,hpet,\"the cost of every clock read (gettimeofday, timers, "
            "scheduler)\"\r\n"
            "option,PREEMPT_RT,-,y,\"fully preemptible: every spinlock a sleeping rt_mutex, "
            "interrupts in threads\"\r\n"
            "option,PREEMPT_NONE,y,-,no preemption: throughput over latency\r\n"
            "option,XFS_FS,m,y,\r\n"
            "alike,facts,0,,\r\n"
            "alike,options,1,,\r\n");
  std::ostringstream s;
  write_diff_json(s, r);
  const nlohmann::json j = nlohmann::json::parse(s.str());
  const auto& env = j["environment"];
  EXPECT_EQ(env["facts"][0]["key"], "clocksource");
  EXPECT_EQ(env["facts"][0]["values"], nlohmann::json({"tsc", "hpet"}));
  ASSERT_EQ(env["config"].size(), 3u);
  EXPECT_EQ(env["config"][0]["option"], "PREEMPT_RT");
  EXPECT_EQ(env["config"][2]["option"], "XFS_FS") << "every option, the uncurated too";
  EXPECT_EQ(env["config"][2]["cost"], "");
}

TEST(DiffExport, CsvIsRfc4180WithAllRows) {
  DiffRun a =
      make_run("a", {{"/usr/bin/app", "std::map<int, int>::find(int const&)", Mode::User, 10},
                     {"[kernel]", "say \"hi\"", Mode::Kernel, 10}});
  DiffRun b =
      make_run("b", {{"/usr/bin/app", "std::map<int, int>::find(int const&)", Mode::User, 20}});
  const DiffResult r = diff_profiles({{{"", {a}}, {"", {b}}}});
  std::ostringstream s;
  write_diff_csv(s, r);
  const std::string csv = s.str();
  EXPECT_EQ(csv.substr(0, csv.find("\r\n")),
            "image,name,raw_names,irq_skid,config_option,a %,a samples,a period,a pct_at_most,b "
            "%,b samples,b period,"
            "b pct_at_most,b delta_pp,b ci_lo_pp,b ci_hi_pp,b ci_level,b p,b q,b ratio,b sided,"
            "b verdict,b noise_method,b ratio_bound,b bounds_lo_pp,b bounds_hi_pp");
  EXPECT_NE(csv.find("\"std::map<int, int>::find(int const&)\""), std::string::npos);
  EXPECT_NE(csv.find("\"say \"\"hi\"\"\""), std::string::npos);
  size_t lines = 0;
  for (size_t i = csv.find("\r\n"); i != std::string::npos; i = csv.find("\r\n", i + 2)) ++lines;
  EXPECT_EQ(lines, 1 + r.rows.size());
}

TEST(DiffSections, OnlyThePartsAsked) {
  const DiffResult r = diff_profiles(difftest::seed_oltp_input());
  std::ostringstream all, env, matched;
  write_diff_text(all, r);
  write_diff_text(env, r, DiffSections{true, false, false, false});
  write_diff_text(matched, r, DiffSections{false, false, false, true});
  const auto has = [](const std::ostringstream& s, const char* what) {
    return s.str().find(what) != std::string::npos;
  };
  for (const char* part : {"What differs besides", "Run summary", "Matched diff"}) {
    EXPECT_TRUE(has(all, part)) << part;
  }
  EXPECT_TRUE(has(env, "What differs besides"));
  EXPECT_FALSE(has(env, "Run summary"));
  EXPECT_FALSE(has(env, "Matched diff"));
  EXPECT_TRUE(has(matched, "Matched diff"));
  EXPECT_FALSE(has(matched, "What differs besides"));
  EXPECT_FALSE(has(matched, "Run summary"));
}
}  // namespace
}  // namespace kprof

namespace kprof {
namespace {

// Shares are headed by what ran: a run that asked for cycles and fell back to
// cpu-clock has sample shares, not cycle shares (the shipped demo's case).
TEST(DiffShareTitle, NamesWhatWasReallySampled) {
  DiffRun a = difftest::make_run("a", {{"[kernel]", "f", Mode::Kernel, 10}});
  DiffRun b = difftest::make_run("b", {{"[kernel]", "f", Mode::Kernel, 10}});
  EXPECT_EQ(diff_profiles({{{"", {a}}, {"", {b}}}}).share_title, "Cycles%");
  for (DiffRun* r : {&a, &b}) {
    r->run.event.requested = "CPU_CLK_UNHALTED";
    r->run.event.name = "cpu-clock";
    r->run.event.fell_back = true;
  }
  EXPECT_EQ(diff_profiles({{{"", {a}}, {"", {b}}}}).share_title, "Samples%");
}

}  // namespace
}  // namespace kprof
