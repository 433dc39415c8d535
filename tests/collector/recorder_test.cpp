// Real, short recordings through the Recorder into a temporary profile.
#include <linux/perf_event.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "collector/event_set.h"
#include "collector/perf_event.h"
#include "collector/recorder.h"
#include "collector/workload.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "tests/support/sampling.h"

namespace kprof::collector {
namespace {

const char* kLoop = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done";

// 0 when a hardware cycles event opens on this process, else the errno.
int hardware_cycles_error() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.exclude_kernel = 1;
  int err = 0;
  Fd fd = open_perf_event(attr, 0, -1, -1, &err);
  return err;
}

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KPROF_REQUIRE_SAMPLING();
    path_ = std::string(KPROF_TEST_BINARY_DIR) + "/recorder_test_" + std::to_string(::getpid()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".kprof";
  }
  void TearDown() override {
    if (!path_.empty()) std::filesystem::remove(path_);
  }

  struct Result {
    Summary summary;
    Profile profile;
    AddressAggregator agg;
  };
  Result record(RecordOptions opt) {
    Result r;
    Recorder rec(opt);
    ProfileWriter w = ProfileWriter::create(path_);
    r.summary = rec.run(w);
    w.write_end();
    r.profile = perfabi::load_profile(path_, {.records = &r.agg});
    return r;
  }
  std::string path_;
};

TEST_F(RecorderTest, ShellLoopHasSamplesAndSummary) {
  RecordOptions opt;
  opt.command = {"/bin/sh", "-c", kLoop};
  opt.freq = 997;
  Result r = record(opt);
  EXPECT_GT(r.summary.samples, 0u);
  EXPECT_EQ(r.summary.exit, (ExitStatus{ExitStatus::Kind::Exited, 0}));
  EXPECT_EQ(r.summary.stop_reason, "workload exited");
  EXPECT_GT(r.summary.user_s + r.summary.sys_s, 0.0);
  EXPECT_GT(r.summary.duration_ns, 0u);
  EXPECT_EQ(r.agg.counts().samples, r.summary.samples);

  EXPECT_TRUE(r.profile.status.complete) << r.profile.status.problem;
  ASSERT_TRUE(r.profile.summary.has_value());
  EXPECT_EQ(r.profile.summary->samples, r.summary.samples);
  EXPECT_EQ(r.profile.run.command, opt.command);
  EXPECT_EQ(r.profile.run.target, "command");
  EXPECT_FALSE(r.profile.kallsyms.empty());
  EXPECT_GT(r.profile.run.stat_before.ctxt, 0u);
  EXPECT_GE(r.profile.summary->stat_after.ctxt, r.profile.run.stat_before.ctxt);
  EXPECT_EQ(r.profile.run.event.rate, 997u);
  EXPECT_TRUE(r.profile.run.event.use_freq);
}

TEST_F(RecorderTest, FallbackRecordedWhenCyclesDoNotOpen) {
  if (hardware_cycles_error() == 0) {
    GTEST_SKIP() << "this machine has a hardware PMU: cycles open, so there is no fallback";
  }
  RecordOptions opt;
  opt.command = {"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"};
  Result r = record(opt);
  const EventInfo& e = r.profile.run.event;
  EXPECT_TRUE(e.fell_back);
  EXPECT_EQ(e.name, "cpu-clock");
  EXPECT_EQ(e.type, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_NE(e.fallback_reason.find("no hardware PMU"), std::string::npos) << e.fallback_reason;
  ASSERT_FALSE(r.profile.run.notices.empty());
  EXPECT_NE(r.profile.run.notices[0].find("sampling cpu-clock instead"), std::string::npos);
}

// Where the machine has a hardware PMU, the default CPU_CLK_UNHALTED samples
// unhalted cycles itself: no fallback, a hardware event, samples in the
// workload. (On VMs without a virtual PMU this skips: the test above covers them.)
TEST_F(RecorderTest, HardwareCyclesSampleWithoutFallback) {
  if (const int err = hardware_cycles_error(); err != 0) {
    GTEST_SKIP() << "no hardware PMU: cycles cannot open (" << test::errno_text(err) << ")";
  }
  RecordOptions opt;
  opt.command = {"/bin/sh", "-c", kLoop};
  Result r = record(opt);
  const EventInfo& e = r.profile.run.event;
  EXPECT_FALSE(e.fell_back) << e.fallback_reason;
  EXPECT_NE(e.type, uint32_t{PERF_TYPE_SOFTWARE}) << e.name;
  EXPECT_EQ(e.name, "CPU_CLK_UNHALTED");
  EXPECT_GT(r.summary.samples, 0u);
  EXPECT_EQ(r.agg.counts().samples, r.summary.samples);
}

TEST_F(RecorderTest, PeriodFromEventSpec) {
  RecordOptions opt;
  opt.event = "task-clock:500000";  // every 0.5 ms of task time
  opt.command = {"/bin/sh", "-c", kLoop};
  Result r = record(opt);
  EXPECT_FALSE(r.profile.run.event.use_freq);
  EXPECT_EQ(r.profile.run.event.rate, 500000u);
  EXPECT_EQ(r.profile.run.event.name, "task-clock");
  EXPECT_GT(r.summary.samples, 0u);
}

TEST_F(RecorderTest, ExitCodePassedThrough) {
  RecordOptions opt;
  opt.command = {"/bin/sh", "-c", "exit 7"};
  Result r = record(opt);
  EXPECT_EQ(r.summary.exit, (ExitStatus{ExitStatus::Kind::Exited, 7}));
  EXPECT_EQ(r.summary.exit.shell_code(), 7);
  ASSERT_TRUE(r.profile.summary.has_value());
  EXPECT_EQ(r.profile.summary->exit.value, 7);
}

TEST_F(RecorderTest, KilledWorkloadIsSignaled) {
  RecordOptions opt;
  opt.command = {"/bin/sh", "-c", "kill -TERM $$"};
  Result r = record(opt);
  EXPECT_EQ(r.summary.exit, (ExitStatus{ExitStatus::Kind::Signaled, SIGTERM}));
  EXPECT_EQ(r.summary.exit.shell_code(), 128 + SIGTERM);
}

TEST_F(RecorderTest, MissingCommandIsCleanError) {
  RecordOptions opt;
  opt.command = {"/nonexistent/kprof-no-such-program"};
  Recorder rec(opt);
  ProfileWriter w = ProfileWriter::create(path_);
  try {
    rec.run(w);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot run '/nonexistent/kprof-no-such-program': No such file or directory");
  }
  EXPECT_FALSE(rec.started());
  EXPECT_TRUE(rec.exec_failed());
}

TEST_F(RecorderTest, NothingToRecordIsError) {
  EXPECT_THROW(Recorder(RecordOptions{}), Error);
}

TEST(FindInPath, FindsShell) {
  EXPECT_FALSE(find_in_path("sh").empty());
  EXPECT_EQ(find_in_path("/bin/sh"), "/bin/sh");
  EXPECT_EQ(find_in_path("kprof-no-such-program-xyz"), "");
  EXPECT_EQ(find_in_path(""), "");
}

// The ring each CPU gets when --mmap-pages is not given: half a second of
// samples at the rate, within perf's default and the caps.
TEST(AutoRingPages, FitHalfASecondOfSamplesWithinTheCaps) {
  constexpr size_t kPage = 4096;
  EXPECT_EQ(auto_ring_pages(499, false, 2, kPage), 128u);      // the default rate: perf's 512 KiB
  EXPECT_EQ(auto_ring_pages(100000, false, 2, kPage), 1024u);  // 2.4 MB of 48-byte samples
  EXPECT_EQ(auto_ring_pages(100000, true, 2, kPage), 4096u);   // 15.2 MB with call chains
  EXPECT_EQ(auto_ring_pages(0, false, 2, kPage), 128u);        // -c PERIOD: sized for 1 kHz
  for (uint64_t freq : {1ull, 999ull, 4000ull, 25000ull, 100000ull, 1000000ull}) {
    for (bool g : {false, true}) {
      for (unsigned cpus : {1u, 2u, 64u, 1024u}) {
        const size_t pages = auto_ring_pages(freq, g, cpus, kPage);
        SCOPED_TRACE(std::to_string(freq) + " Hz, -g " + std::to_string(g) + ", " +
                     std::to_string(cpus) + " CPUs: " + std::to_string(pages));
        EXPECT_EQ(pages & (pages - 1), 0u);  // a power of two
        EXPECT_GE(pages, 128u);
        EXPECT_LE(pages * kPage, 64u << 20);
        if (pages > 128) {
          EXPECT_LE(pages * kPage * cpus, 512ull << 20);
        }
        const uint64_t burst = freq * kRingBurstMs / 1000 * (g ? 304 : 48);
        // Big enough for the burst unless a cap stopped it.
        if (pages * kPage < burst) {
          EXPECT_TRUE(pages * 2 * kPage > (64u << 20) || pages * 2 * kPage * cpus > (512ull << 20));
        }
      }
    }
  }
}

TEST_F(RecorderTest, RingPagesAreChosenFromTheRateAndStored) {
  RecordOptions opt;
  opt.command = {"/bin/true"};
  opt.freq = 20000;
  Result r = record(opt);
  EXPECT_TRUE(r.profile.run.ring_pages_auto);
  EXPECT_EQ(r.profile.run.ring_pages,
            auto_ring_pages(20000, false, r.profile.run.ncpus,
                            static_cast<size_t>(::sysconf(_SC_PAGESIZE))));
  opt.mmap_pages = 8;
  Result given = record(opt);
  EXPECT_FALSE(given.profile.run.ring_pages_auto);
  EXPECT_EQ(given.profile.run.ring_pages, 8u);
}

}  // namespace
}  // namespace kprof::collector
