#include "core/model.h"

#include <gtest/gtest.h>

#include <string>

namespace kprof {
namespace {

TEST(Model, ModeNames) {
  EXPECT_EQ(std::string(mode_name(Mode::User)), "user");
  EXPECT_EQ(std::string(mode_name(Mode::Kernel)), "kernel");
  EXPECT_EQ(std::string(mode_name(Mode::Unknown)), "unknown");
  EXPECT_EQ(std::string(mode_name(static_cast<Mode>(77))), "unknown");
}

TEST(Model, RatesBetween) {
  ProcStat a, b;
  a.time_ns = 1'000'000'000;
  b.time_ns = 3'000'000'000;  // 2 s
  b.user = 30;
  b.nice = 10;  // us = 40
  b.system = 10;
  b.irq = 5;
  b.softirq = 5;  // sys = 20
  b.idle = 30;
  b.iowait = 10;  // total 100
  a.intr = 100;
  b.intr = 1100;
  b.ctxt = 400;
  const auto r = rates_between(a, b);
  EXPECT_DOUBLE_EQ(r.user_pct, 40);
  EXPECT_DOUBLE_EQ(r.sys_pct, 20);
  EXPECT_DOUBLE_EQ(r.idle_pct, 30);
  EXPECT_DOUBLE_EQ(r.iowait_pct, 10);
  EXPECT_DOUBLE_EQ(r.interrupts_per_s, 500);
  EXPECT_DOUBLE_EQ(r.ctxsw_per_s, 200);
}

TEST(Model, RatesBetweenIsZeroSafe) {
  ProcStat a;
  const auto r = rates_between(a, a);
  EXPECT_EQ(r.user_pct, 0);
  EXPECT_EQ(r.interrupts_per_s, 0);
  ProcStat later;
  later.time_ns = 5;
  later.user = 0;
  ProcStat earlier = later;
  earlier.user = 10;  // counter went backwards
  const auto back = rates_between(earlier, later);
  EXPECT_EQ(back.user_pct, 0);
}

TEST(Model, HistogramTotalSamples) {
  Histogram h;
  EXPECT_EQ(h.total_samples(), 0u);
  h.images.push_back({"[kernel]", ""});
  h.rows.push_back({0, "a", Mode::Kernel, 3, 30});
  h.rows.push_back({0, "b", Mode::Kernel, 4, 40});
  EXPECT_EQ(h.total_samples(), 7u);
}

TEST(Model, ExitShellCode) {
  EXPECT_EQ((ExitStatus{ExitStatus::Kind::Signaled, 9}.shell_code()), 137);
  EXPECT_EQ((ExitStatus{ExitStatus::Kind::Exited, 3}.shell_code()), 3);
}

}  // namespace
}  // namespace kprof
