// cpu-clock skid at interrupt-enable points (report/skid.h): which functions
// are such points, when the notice is said, and the diff's irq-skid rows.
#include "report/skid.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/profile.h"
#include "perfabi/load.h"
#include "report/diff.h"
#include "report/summary.h"
#include "tests/diff/load_run.h"

namespace kprof {
namespace {

TEST(IrqSkid, KnownEnablePoints) {
  for (const char* f :
       {"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq", "rcu_nocb_unlock_irqrestore.part.0",
        "finish_task_switch.isra.0", "exit_to_user_mode_prepare", "syscall_exit_to_user_mode",
        "__do_softirq", "handle_softirqs", "preempt_schedule_irq"}) {
    EXPECT_TRUE(is_irq_enable_point(f)) << f;
  }
  for (const char* f : {"_raw_spin_lock_irq", "_raw_spin_lock_irqsave", "kfree", "main",
                        "do_syscall_64", "irq_exit_rcu_fake", "[unknown]"}) {
    EXPECT_FALSE(is_irq_enable_point(f)) << f;
  }
}

Histogram kernel_histogram(uint64_t at_enable_points, uint64_t elsewhere) {
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/bin/app", ""}};
  h.rows = {{0, "_raw_spin_unlock_irqrestore", Mode::Kernel, at_enable_points, 0},
            {0, "kfree", Mode::Kernel, elsewhere / 2, 0},
            {1, "main", Mode::User, elsewhere - elsewhere / 2, 0}};
  return h;
}

EventInfo cpu_clock_fallback() {
  EventInfo e;
  e.requested = "CPU_CLK_UNHALTED";
  e.name = "cpu-clock";
  e.fell_back = true;
  return e;
}

TEST(IrqSkid, NoticeOnlyWhenMaterialAndTimerSampled) {
  const EventInfo timer = cpu_clock_fallback();
  EXPECT_EQ(irq_skid_notice(kernel_histogram(0, 1000), timer), "") << "no enable points";
  EXPECT_EQ(irq_skid_notice(kernel_histogram(10, 990), timer), "") << "1% is not material";
  const std::string n = irq_skid_notice(kernel_histogram(100, 900), timer);
  EXPECT_EQ(n.rfind("10.0% of samples fell at interrupt-enable points", 0), 0u) << n;
  EventInfo cycles;
  cycles.name = "cycles";
  EXPECT_EQ(irq_skid_notice(kernel_histogram(100, 900), cycles), "")
      << "cycles through an NMI has no such skid";
}

// With each function's peak address kept (new recordings): a known enable
// point counts only when its samples sit at one address; any kernel function
// whose peak follows a popf/sti (read from /proc/kcore) counts too.
TEST(IrqSkid, ConcentrationDecidesWhenThePeakIsKnown) {
  const EventInfo timer = cpu_clock_fallback();
  Histogram spread = kernel_histogram(100, 900);
  spread.rows[0].peak_samples = 5;  // 100 samples over 20-odd addresses
  spread.rows[0].peak_ip = 0xffffffff81000010ULL;
  EXPECT_FALSE(skid_charged(spread.rows[0]));
  EXPECT_EQ(irq_skid_notice(spread, timer), "") << "no concentration, no notice";

  Histogram concentrated = spread;
  concentrated.rows[0].peak_samples = 80;
  EXPECT_TRUE(skid_charged(concentrated.rows[0]));
  EXPECT_NE(irq_skid_notice(concentrated, timer), "");

  Histogram kcore = kernel_histogram(0, 1000);
  FunctionCount& kfree = kcore.rows[1];  // 500 samples, not a known enable point
  kfree.peak_samples = 400;
  kfree.peak_ip = 0xffffffff81000020ULL;
  EXPECT_FALSE(skid_charged(kfree));
  kfree.peak_after_irq_enable = true;
  EXPECT_TRUE(skid_charged(kfree)) << "the kernel text says interrupts came back on there";
  EXPECT_EQ(irq_skid_notice(kcore, timer).rfind("50.0% of samples", 0), 0u);
}

// The shipped syscall profiles (cpu-clock in qemu): the notice, and the diff's
// irq-skid rows and warning.
TEST(IrqSkid, ShippedSyscallProfilesShowIt) {
  const std::string dir = std::string(KPROF_SOURCE_DIR) + "/samples/";
  const Profile p = perfabi::load_profile(dir + "generic.kprof");
  const ProfileHistogram h = histogram_of(p);
  EXPECT_NE(irq_skid_notice(h.histogram, p.run.event), "");

  DiffInput in;
  std::vector<std::string> warnings;
  for (const char* f : {"generic", "rt"}) {
    in.sides.push_back({f, {load_diff_run(dir + f + ".kprof", warnings)}});
  }
  const DiffResult r = diff_profiles(in);
  bool warned = false;
  for (const std::string& w : r.warnings) warned |= w.rfind("irq-skid: ", 0) == 0;
  EXPECT_TRUE(warned);
  for (const DiffRow& row : r.rows) {
    if (row.name == "_raw_spin_unlock_irqrestore") {
      EXPECT_TRUE(row.irq_skid);
    }
    if (row.name == "crunch" || row.name == "kmem_cache_alloc") {
      EXPECT_FALSE(row.irq_skid);
    }
  }
}

}  // namespace
}  // namespace kprof
