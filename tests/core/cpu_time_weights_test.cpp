// CpuTimeWeights and AddressAggregator::weigh_by_cpu_time: a clock event's
// samples carry their thread's on-CPU time since its previous sample once its
// switches are known, so periods add up to the CPU time used even when the
// timer's samples came late or were dropped.
#include "core/cpu_time_weights.h"

#include <gtest/gtest.h>

#include "core/aggregate.h"

namespace kprof {
namespace {

Sample cpu(uint32_t tid, uint64_t time, uint64_t ip = 0x1000) {
  Sample s;
  s.pid = 7;
  s.tid = tid;
  s.time = time;
  s.ip = ip;
  s.mode = Mode::Kernel;
  s.period = 1'000'000;  // the timer's fixed 1 ms
  return s;
}

Switch sw(uint32_t tid, uint64_t time, bool out) {
  Switch w;
  w.pid = 7;
  w.tid = tid;
  w.time = time;
  w.out = out;
  return w;
}

TEST(CpuTimeWeights, BeforeAnySwitchASampleKeepsItsOwnPeriod) {
  CpuTimeWeights w;
  EXPECT_EQ(w.period_of(cpu(1, 10'000'000)), 1'000'000u);
  EXPECT_EQ(w.period_of(cpu(1, 13'000'000)), 1'000'000u);  // the time between is not known on-CPU
  EXPECT_EQ(w.weighted(), 0u);
}

TEST(CpuTimeWeights, ASampleStandsForTheOnCpuTimeSinceThePreviousOne) {
  CpuTimeWeights w;
  w.on_switch(sw(1, 1'000'000, false));                   // on from 1 ms
  EXPECT_EQ(w.period_of(cpu(1, 2'000'000)), 1'000'000u);  // 1 ms on
  EXPECT_EQ(w.period_of(cpu(1, 5'500'000)), 3'500'000u);  // late: 3.5 ms since
  w.on_switch(sw(1, 6'000'000, true));                    // 0.5 ms more, then off
  w.on_switch(sw(1, 20'000'000, false));                  // 14 ms off: not counted
  EXPECT_EQ(w.period_of(cpu(1, 20'250'000)), 750'000u);   // 0.5 + 0.25
  EXPECT_EQ(w.weighted(), 3u);
}

TEST(CpuTimeWeights, ThreadsAreWeighedApart) {
  CpuTimeWeights w;
  w.on_switch(sw(1, 0 + 1, false));
  w.on_switch(sw(2, 0 + 1, false));
  EXPECT_EQ(w.period_of(cpu(1, 2'000'001)), 2'000'000u);
  EXPECT_EQ(w.period_of(cpu(2, 4'000'001)), 4'000'000u);
  EXPECT_EQ(w.period_of(cpu(1, 3'000'001)), 1'000'000u);
}

TEST(CpuTimeWeights, TheIdleTasksKeepTheirOwnPeriods) {
  // tid 0 is every CPU's idle task: switches of one CPU's say nothing of another's.
  CpuTimeWeights w;
  w.on_switch(sw(0, 1'000'000, false));
  EXPECT_EQ(w.period_of(cpu(0, 9'000'000)), 1'000'000u);
  EXPECT_EQ(w.period_of(cpu(0, 9'500'000)), 1'000'000u);
  EXPECT_EQ(w.weighted(), 0u);
}

TEST(CpuTimeWeights, ASampleWhileBelievedOffKeepsItsPeriod) {
  // Its switch in was lost: how long it has been on is not known.
  CpuTimeWeights w;
  w.on_switch(sw(1, 1'000'000, false));
  w.on_switch(sw(1, 2'000'000, true));
  EXPECT_EQ(w.period_of(cpu(1, 9'000'000)), 1'000'000u);
  EXPECT_EQ(w.period_of(cpu(1, 10'500'000)), 1'500'000u);  // on since that sample
}

TEST(CpuTimeWeights, ASwitchInWhileBelievedOnDropsTheUnknownTime) {
  // Its switch out was lost: the time before this switch in may be off CPU.
  CpuTimeWeights w;
  w.on_switch(sw(1, 1'000'000, false));
  w.on_switch(sw(1, 50'000'000, false));
  EXPECT_EQ(w.period_of(cpu(1, 51'000'000)), 1'000'000u);
}

TEST(CpuTimeWeights, AggregatorPeriodsSumToTheOnCpuTimeOnlyWhenAsked) {
  auto feed = [](AddressAggregator& a) {
    a.on_switch(sw(1, 1'000'000, false));
    a.on_sample(cpu(1, 2'000'000));
    a.on_sample(cpu(1, 6'000'000, 0x2000));  // 4 ms: three periods were dropped
    a.on_switch(sw(1, 6'500'000, true));
  };
  AddressAggregator plain(true);
  feed(plain);
  AddressAggregator weighed(true);
  weighed.weigh_by_cpu_time();
  feed(weighed);
  auto period = [](const AddressAggregator& a, uint64_t ip) {
    for (const auto& [k, c] : a.counts().counts)
      if (k.ip == ip) return c.period;
    return uint64_t{0};
  };
  EXPECT_EQ(period(plain, 0x2000), 1'000'000u);
  EXPECT_EQ(period(weighed, 0x2000), 4'000'000u);
  EXPECT_EQ(period(weighed, 0x1000), 1'000'000u);
  uint64_t stacks = 0;
  for (const auto& [k, c] : weighed.counts().stacks) stacks += c.period;
  EXPECT_EQ(stacks, 5'000'000u);  // the stacks carry the same weights
  EXPECT_EQ(weighed.weighted(), 2u);
  EXPECT_EQ(plain.weighted(), 0u);
}

}  // namespace
}  // namespace kprof
