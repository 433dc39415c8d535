// The pprof writer, checked by decoding its output here (gunzip, then the
// protobuf fields; export_support.h). pprof_go_test.cpp checks the same files
// with `go tool pprof`.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "export/export.h"
#include "report/summary.h"
#include "tests/export/export_support.h"
#include "tests/report/test_support.h"

namespace kprof {
namespace {

Profile cycles_profile() {
  Profile p;
  p.path = "bench.kprof";
  p.run = test::sample_run();  // cycles @ 4000 Hz, "./bench --iterations 3"
  p.summary = test::sample_summary();
  return p;
}

test::PprofProfile exported(const Stacks& st, const Profile& profile) {
  std::ostringstream out;
  write_pprof(out, st, profile);
  return test::parse_pprof(test::gunzip(out.str()));
}

TEST(Pprof, IsGzipAndStringTableStartsEmpty) {
  std::ostringstream out;
  write_pprof(out, test::bench_stacks(), cycles_profile());
  const std::string gz = out.str();
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  const std::string raw = test::gunzip(gz);
  EXPECT_EQ(raw, encode_pprof(test::bench_stacks(), cycles_profile()));
  const test::PprofProfile p = test::parse_pprof(raw);
  ASSERT_FALSE(p.string_table.empty());
  EXPECT_EQ(p.string_table[0], "");
  // Every string once.
  EXPECT_EQ(std::set<std::string>(p.string_table.begin(), p.string_table.end()).size(),
            p.string_table.size());
}

TEST(Pprof, SampleTypesForAHardwareEvent) {
  const test::PprofProfile p = exported(test::bench_stacks(), cycles_profile());
  using VT = std::pair<std::string, std::string>;
  EXPECT_EQ(p.sample_types, (std::vector<VT>{{"samples", "count"}, {"cycles", "count"}}));
  EXPECT_EQ(p.period_type, (VT{"cycles", "count"}));
  EXPECT_EQ(p.default_sample_type, 0);  // unset: pprof shows the last type, cycles
  EXPECT_EQ(p.period, 1000);            // -F: the mean period per sample
}

TEST(Pprof, SampleTypesForCpuClock) {
  Profile prof = cycles_profile();
  prof.run.event.name = "cpu-clock";
  prof.run.event.fell_back = true;
  prof.run.event.rate = 250;  // Hz
  const test::PprofProfile p = exported(test::bench_stacks(), prof);
  using VT = std::pair<std::string, std::string>;
  EXPECT_EQ(p.sample_types, (std::vector<VT>{{"samples", "count"}, {"cpu", "nanoseconds"}}));
  EXPECT_EQ(p.period_type, (VT{"cpu", "nanoseconds"}));
  EXPECT_EQ(p.period, 4000000);  // 1e9 / 250 Hz
  prof.run.event.name = "task-clock";
  EXPECT_EQ(exported(test::bench_stacks(), prof).sample_types[1], (VT{"cpu", "nanoseconds"}));
}

TEST(Pprof, FixedPeriodIsThePeriod) {
  Profile prof = cycles_profile();
  prof.run.event.use_freq = false;
  prof.run.event.rate = 100003;
  prof.run.event.name = "instructions";
  const test::PprofProfile p = exported(test::bench_stacks(), prof);
  EXPECT_EQ(p.period, 100003);
  EXPECT_EQ(p.sample_types[1], (std::pair<std::string, std::string>{"instructions", "count"}));
  EXPECT_EQ(pprof_period(test::bench_stacks(), prof), 100003);
}

TEST(Pprof, LocationIdsStartAtOneAndSamplesAreLeafFirst) {
  const Stacks st = test::bench_stacks();
  const test::PprofProfile p = exported(st, cycles_profile());
  ASSERT_EQ(p.locations.size(), st.frames.size());
  for (size_t i = 0; i < p.locations.size(); ++i) {
    EXPECT_EQ(p.locations[i].id, i + 1);
    EXPECT_EQ(p.locations[i].mapping_id, st.frames[i].image + 1u);
    ASSERT_EQ(p.locations[i].function_ids.size(), 1u);
    EXPECT_NE(p.locations[i].function_ids[0], 0u);
  }
  ASSERT_EQ(p.samples.size(), st.stacks.size());
  for (size_t i = 0; i < p.samples.size(); ++i) {
    const Stack& s = st.stacks[i];
    const test::PprofSample& ps = p.samples[i];
    ASSERT_EQ(ps.location_ids.size(), s.frames.size());
    for (size_t k = 0; k < s.frames.size(); ++k) EXPECT_EQ(ps.location_ids[k], s.frames[k] + 1u);
  }
  // The first sample: hash_block <- compute <- main <- __libc_start_main.
  std::vector<std::string> names;
  for (uint64_t id : p.samples[0].location_ids) names.push_back(p.function_name(id));
  EXPECT_EQ(names,
            (std::vector<std::string>{"hash_block", "compute", "main", "__libc_start_main"}));
}

TEST(Pprof, TotalsAgreeWithTheStacks) {
  const Stacks st = test::bench_stacks();
  const test::PprofProfile p = exported(st, cycles_profile());
  int64_t samples = 0, period = 0;
  std::map<std::string, int64_t> flat;
  for (const test::PprofSample& s : p.samples) {
    ASSERT_EQ(s.values.size(), 2u);
    samples += s.values[0];
    period += s.values[1];
    flat[p.function_name(s.location_ids.front())] += s.values[0];
  }
  EXPECT_EQ(samples, 100);
  EXPECT_EQ(period, 100000);
  EXPECT_EQ(flat, (std::map<std::string, int64_t>{{"hash_block", 55},
                                                  {"compute", 20},
                                                  {"recurse", 12},
                                                  {"ksys_write", 10},
                                                  {"[libc.so.6]", 3}}));
}

TEST(Pprof, LabelsMappingsAndFunctions) {
  const Stacks st = test::bench_stacks();
  const test::PprofProfile p = exported(st, cycles_profile());
  const test::PprofSample& sys = p.samples[2];  // bench's write syscall
  ASSERT_NE(sys.label("pid"), nullptr);
  EXPECT_TRUE(sys.label("pid")->has_num);
  EXPECT_EQ(sys.label("pid")->num, 1234);
  ASSERT_NE(sys.label("comm"), nullptr);
  EXPECT_EQ(sys.label("comm")->str, "bench");
  ASSERT_NE(sys.label("mode"), nullptr);
  EXPECT_EQ(sys.label("mode")->str, "kernel");
  EXPECT_EQ(p.samples[0].label("mode")->str, "user");
  EXPECT_EQ(p.samples[3].label("pid")->num, 1235);
  EXPECT_EQ(p.samples[4].label("comm")->str, "sh");

  ASSERT_EQ(p.mappings.size(), 3u);
  for (size_t i = 0; i < p.mappings.size(); ++i) {
    EXPECT_EQ(p.mappings[i].id, i + 1);
    EXPECT_EQ(p.mappings[i].filename, st.images[i].name);
    EXPECT_EQ(p.mappings[i].build_id, st.images[i].build_id);
    EXPECT_TRUE(p.mappings[i].has_functions);
  }
  // One function per (image, name), ids from 1.
  ASSERT_EQ(p.functions.size(), 10u);  // one per frame here: no (image, name) twice
  std::set<uint64_t> ids;
  for (const test::PprofFunction& f : p.functions) ids.insert(f.id);
  EXPECT_EQ(*ids.begin(), 1u);
  EXPECT_EQ(*ids.rbegin(), 10u);
  const test::PprofFunction* unknown = p.function(p.location(8)->function_ids[0]);  // frame 7
  ASSERT_NE(unknown, nullptr);
  EXPECT_EQ(unknown->name, "[libc.so.6]");
  EXPECT_EQ(unknown->system_name, "[unknown]");
  EXPECT_EQ(unknown->filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

// Issue 23, item 14: pprof takes the first mapping as the program, so the
// command's executable comes first whatever order the images are in; without
// a command (-a), the user image with the most samples.
TEST(Pprof, TheCommandsExecutableIsTheFirstMapping) {
  Stacks st = test::bench_stacks();
  std::swap(st.images[0], st.images[2]);  // [kernel] first, bench last
  for (Frame& f : st.frames) f.image = f.image == 0 ? 2 : f.image == 2 ? 0 : f.image;
  Profile profile = cycles_profile();
  test::PprofProfile p = exported(st, profile);
  ASSERT_EQ(p.mappings.size(), 3u);
  EXPECT_EQ(p.mappings[0].filename, "/usr/bin/bench");
  EXPECT_EQ(p.mappings[0].id, 3u) << "ids are unchanged: locations still refer to them";
  for (const test::PprofMapping& m : p.mappings) {
    EXPECT_EQ(m.filename, st.images[m.id - 1].name);
  }
  profile.run.command.clear();
  profile.run.target = "system-wide";
  p = exported(st, profile);
  EXPECT_EQ(p.mappings[0].filename, "/usr/bin/bench") << "most user samples";
  st.images[2].name = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
  p = exported(st, profile);
  EXPECT_EQ(p.mappings[0].filename, "/usr/lib/x86_64-linux-gnu/libc.so.6")
      << "the dynamic loader is not the program";
}

TEST(Pprof, CommentsAndTimes) {
  const Profile prof = cycles_profile();
  const test::PprofProfile p = exported(test::bench_stacks(), prof);
  EXPECT_EQ(p.time_nanos, static_cast<int64_t>(prof.run.start_realtime_ns));
  EXPECT_EQ(p.duration_nanos, 2000000000);
  EXPECT_EQ(p.comments,
            (std::vector<std::string>{"kernel 6.18.0-kprof", "command: ./bench --iterations 3",
                                      "event: " + describe_event(prof.run.event)}));
  Profile no_summary = prof;
  no_summary.summary.reset();
  EXPECT_EQ(exported(test::bench_stacks(), no_summary).duration_nanos, 0);
}

TEST(Pprof, HistogramOnlyProfileHasNoProcessLabels) {
  ProfileHistogram hist;
  hist.histogram.images = {{"/usr/bin/bench", ""}, {"[kernel]", ""}};
  hist.histogram.rows = {{0, "compute", Mode::User, 60, 60000},
                         {1, "do_syscall_64", Mode::Kernel, 40, 40000}};
  std::ostringstream out;
  write_export(out, ExportFormat::Pprof, cycles_profile(), hist);
  const test::PprofProfile p = test::parse_pprof(test::gunzip(out.str()));
  ASSERT_EQ(p.samples.size(), 2u);
  for (const test::PprofSample& s : p.samples) {
    EXPECT_EQ(s.location_ids.size(), 1u);
    EXPECT_EQ(s.label("pid"), nullptr);
    EXPECT_EQ(s.label("comm"), nullptr);
    EXPECT_NE(s.label("mode"), nullptr);
  }
  EXPECT_EQ(p.samples[0].values, (std::vector<int64_t>{60, 60000}));
  EXPECT_EQ(p.samples[1].label("mode")->str, "kernel");
}

TEST(Pprof, EmptyProfileStillParses) {
  const test::PprofProfile p = exported(Stacks{}, cycles_profile());
  EXPECT_TRUE(p.samples.empty());
  EXPECT_EQ(p.sample_types.size(), 2u);
  EXPECT_EQ(p.period, 0);  // no samples: no mean period
}

}  // namespace
}  // namespace kprof
