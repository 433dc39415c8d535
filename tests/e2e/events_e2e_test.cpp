// kprof record with several events (-e A,B) in one recording: the tables are
// the first event's as before, --event NAME shows another in report,
// script and annotate (counted exactly where it is a tracepoint), a name
// the recording lacks lists those it has, and the fallback rule holds per
// event.
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "collector/tracefs.h"
#include "core/error.h"
#include "core/profile.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

class Events : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  TempDir dir_;
  std::string profile_ = dir_.file("events.kprof");
};

uint64_t table_total(const std::string& report) {
  std::smatch m;
  static const std::regex samples(
      R"(# samples: +([0-9]+) \(of all 2 events; ([0-9]+) in the table\))");
  return std::regex_search(report, m, samples) ? std::stoull(m[2]) : 0;
}

// cpu-clock and syscalls:sys_enter_getppid together: the file's tables are
// cpu-clock's (not one getppid hit among them), and --event shows the
// tracepoint's: one sample per getppid call, as when it is recorded alone
// (E2E.TracepointSamplesAreTheEventsHits).
TEST_F(Events, TwoEventsInOneRecordingEachShownByItself) {
  bool mounted = false;
  if (collector::find_tracefs(&mounted).empty()) {
    GTEST_SKIP() << "tracefs is not mounted and cannot be here (not root)";
  }
  const std::string tp = "syscalls:sys_enter_getppid";
  RunResult r = run({kprof_binary(), "record", "-e", "cpu-clock," + tp, "-o", profile_, "--",
                     program("kprof_prog_syscalls"), "0.3"},
                    dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  std::smatch calls, samples;
  ASSERT_TRUE(std::regex_search(r.out, calls, std::regex(R"(syscalls (\d+) )"))) << r.describe();
  ASSERT_TRUE(std::regex_search(r.err, samples, std::regex(R"((\d+) samples \((\d+) lost\))")))
      << r.describe();
  const uint64_t getppid = std::stoull(calls[1]) / 2, lost = std::stoull(samples[2]);
  // Every hit counts from the exec on: the task's events, not a cgroup's
  // (enabled only once the exec is done), and the notice says what that costs.
  EXPECT_NE(r.err.find(tp + " is counted from the exec on"), std::string::npos) << r.describe();

  const Profile p = perfabi::load_profile(profile_);
  ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
  EXPECT_EQ(p.run.event.name, "cpu-clock");
  ASSERT_EQ(p.run.more_events.size(), 1u);
  EXPECT_EQ(p.run.more_events[0].name, tp);
  EXPECT_EQ(p.run.more_events[0].rate, 1u);
  const uint64_t clock = p.histogram->total_samples();
  EXPECT_GT(clock, 20u) << "0.3 s at 499 Hz";
  EXPECT_LT(clock * 10, getppid) << "the tracepoint's hits are not among cpu-clock's samples";

  r = run({kprof_binary(), "report", profile_}, dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("# also recorded:  " + tp + ", period 1"), std::string::npos)
      << r.describe();
  EXPECT_EQ(table_total(r.out), clock) << r.describe();

  r = run({kprof_binary(), "report", "--event", tp, profile_}, dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("# event:          " + tp), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("# also recorded:  cpu-clock"), std::string::npos) << r.describe();
  if (lost == 0) {
    EXPECT_EQ(table_total(r.out), getppid) << r.describe();
  } else {
    EXPECT_LE(table_total(r.out), getppid) << r.describe();
  }
  EXPECT_NE(r.out.find("syscall"), std::string::npos) << "libc's syscall() makes the calls";

  // With --event and a key only the records hold (--time), the records are
  // counted once, for both: one notice, and every hit in the whole range.
  r = run({kprof_binary(), "report", "--event", tp, "--time", "0%,100%", profile_}, dir_.path(),
          60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("# notice:         filtered (--time 0%,100%)"), std::string::npos)
      << r.describe();
  EXPECT_EQ(r.out.find("samples, counted from the records"), std::string::npos)
      << "counted a second time for --event alone\n"
      << r.describe();
  EXPECT_EQ(
      table_total(r.out),
      table_total(run({kprof_binary(), "report", "--event", tp, profile_}, dir_.path(), 60).out))
      << r.describe();

  // kprof script prints the chosen event's samples, named as it.
  r = run({kprof_binary(), "script", "--event", tp, "--fields", "event", "--no-pager", profile_},
          dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  size_t lines = 0, named = 0;
  for (size_t at = 0; (at = r.out.find('\n', at)) != std::string::npos; ++at) ++lines;
  for (size_t at = 0; (at = r.out.find(tp, at)) != std::string::npos; ++at) ++named;
  EXPECT_EQ(named, lines);
  EXPECT_EQ(
      lines,
      table_total(run({kprof_binary(), "report", "--event", tp, profile_}, dir_.path(), 60).out));

  r = run({kprof_binary(), "report", "--event", "page-faults", profile_}, dir_.path(), 60);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("has no event 'page-faults'; it holds: cpu-clock, " + tp), std::string::npos)
      << r.describe();
}

// The fallback rule per event: without a hardware PMU, cycles falls back to
// cpu-clock and instructions, which would fall back to it too, is left out
// with a notice; a software event beside them opens as it is. With a PMU
// all three are sampled.
TEST_F(Events, EachEventFallsBackOrIsLeftOutByItself) {
  RunResult r = run({kprof_binary(), "record", "-e", "cycles,instructions", "-e", "page-faults",
                     "-o", profile_, "--", program("kprof_prog_hotcold"), "0.3"},
                    dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const Profile p = perfabi::load_profile(profile_);
  if (p.run.event.fell_back) {
    EXPECT_EQ(p.run.event.name, "cpu-clock");
    EXPECT_NE(r.err.find("instructions cannot be sampled here (no hardware PMU"), std::string::npos)
        << r.describe();
    EXPECT_NE(r.err.find("and cpu-clock is sampled already: left out"), std::string::npos)
        << r.describe();
    ASSERT_EQ(p.run.more_events.size(), 1u);
    EXPECT_EQ(p.run.more_events[0].name, "page-faults");
  } else {
    ASSERT_EQ(p.run.more_events.size(), 2u) << r.describe();
    EXPECT_EQ(p.run.more_events[0].requested, "instructions");
    EXPECT_EQ(p.run.more_events[1].name, "page-faults");
  }
  // The program's start faults its pages in: page-faults has samples.
  r = run({kprof_binary(), "report", "--event", "page-faults", profile_}, dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_GT(table_total(r.out), 0u) << r.describe();
}

}  // namespace
}  // namespace kprof::e2e
