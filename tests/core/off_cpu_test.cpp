// Off-CPU time (core/off_cpu.h, core/off_cpu_builder.h): the intervals
// between context switches are split into blocked and run-queue time as the
// header says, the identity on + blocked + run queue = wall holds per
// thread, the stacks lose the scheduler's frames and gain their state, and
// the chunk round-trips and fails clearly on damage.
#include "core/off_cpu.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/off_cpu_builder.h"

namespace kprof {
namespace {

constexpr uint32_t kPid = 100;

Switch out(uint32_t tid, uint64_t t, bool preempted = false) {
  return Switch{t, kPid, tid, 0, true, preempted};
}
Switch in(uint32_t tid, uint64_t t) {
  return Switch{t, kPid, tid, 0, false, false};
}
Sample stack_at(uint32_t tid, uint64_t t, uint64_t ip) {
  Sample s;
  s.kind = SampleKind::SwitchOut;
  s.pid = kPid;
  s.tid = tid;
  s.time = t;
  s.ip = ip;
  s.mode = Mode::Kernel;
  s.callchain = {ip};
  s.kernel_frames = 1;
  return s;
}
Sample wakeup(uint32_t wakee, uint64_t t) {
  Sample s;
  s.kind = SampleKind::Wakeup;
  s.pid = 1;
  s.tid = 1;
  s.time = t;
  s.wakee = wakee;
  return s;
}

const OffCpuThread& thread(const OffCpuCounts& c, uint32_t tid) {
  for (const OffCpuThread& t : c.threads) {
    if (t.tid == tid) return t;
  }
  throw Error("no thread " + std::to_string(tid));
}

TEST(OffCpuBuilder, SplitsBlockedFromRunQueueAtTheWakeup) {
  OffCpuBuilder b;
  b.on_comm(Comm{1000, kPid, kPid, true, "prog"});  // exec: on a CPU from here
  b.on_sample(stack_at(kPid, 1400, 0xffffffff81000100));
  b.on_switch(out(kPid, 1400));        // blocked ...
  b.on_sample(wakeup(kPid, 1700));     // ... woken after 300 ...
  b.on_switch(in(kPid, 1750));         // ... and running 50 later
  b.on_switch(out(kPid, 1900, true));  // preempted: run queue until back
  b.on_switch(in(kPid, 1950));
  b.on_exit(Fork{2000, kPid, 1, kPid, 1});
  const OffCpuCounts c = std::move(b).finish();
  const OffCpuThread& t = thread(c, kPid);
  EXPECT_EQ(t.comm, "prog");
  EXPECT_EQ(t.start_ns, 1000u);
  EXPECT_EQ(t.end_ns, 2000u);
  EXPECT_EQ(t.on_ns, 400u + 150 + 50);
  EXPECT_EQ(t.blocked_ns, 300u);
  EXPECT_EQ(t.runq_ns, 50u + 50);
  EXPECT_EQ(t.on_ns + t.blocked_ns + t.runq_ns, t.wall_ns());
  EXPECT_EQ(t.switches, 2u);
  EXPECT_EQ(c.switches, 2u);
  EXPECT_EQ(c.wakeups, 1u);
  // One blocked interval with its stack; run-queue time in two intervals.
  EXPECT_EQ(c.blocked.samples, 1u);
  EXPECT_EQ(c.runq.samples, 2u);
  ASSERT_EQ(c.blocked.stacks.size(), 1u);
  EXPECT_EQ(c.blocked.stacks.begin()->second.period, 300u);
  EXPECT_EQ(c.stack_samples, 0u) << "a stack of period 1: not sampled";
}

// In workload mode the wakeup event is on system-wide from before the
// workload's exec (stop 38's CI failure: 30 ms of kprof's own set-up under
// load came out as the workload's on-CPU time, never sampled).
TEST(OffCpuBuilder, AWakeupBeforeTheTasksRecordsDoesNotStartTheirTime) {
  OffCpuBuilder b;
  b.on_sample(wakeup(kPid, 500));  // the workload waking for its exec ...
  b.on_sample(wakeup(7, 600));     // ... and another task's wakeup
  b.on_sample(stack_at(kPid, 1400, 0xffffffff81000100));
  b.on_switch(out(kPid, 1400));  // first seen leaving a CPU
  b.on_switch(in(kPid, 1700));
  b.on_exit(Fork{2000, kPid, 1, kPid, 1});
  const OffCpuCounts c = std::move(b).finish();
  const OffCpuThread& t = thread(c, kPid);
  EXPECT_EQ(t.start_ns, 1400u) << "on a CPU since the first record of its own events, not 500";
  EXPECT_EQ(t.on_ns, 300u);
  EXPECT_EQ(t.blocked_ns, 300u);
  EXPECT_EQ(t.on_ns + t.blocked_ns + t.runq_ns, t.wall_ns());
}

TEST(OffCpuBuilder, WithoutWakeupsTheWholeWaitIsBlocked) {
  OffCpuBuilder b;
  b.on_comm(Comm{0, kPid, kPid, false, "from-proc"});  // read from /proc: not a sign of running
  b.on_switch(in(kPid, 500));                          // first seen coming on: followed from here
  b.on_switch(out(kPid, 600));
  b.on_switch(in(kPid, 1000));
  b.on_sample(Sample{.time = 1100, .pid = kPid, .tid = kPid, .period = 77});
  const OffCpuCounts c = std::move(b).finish();  // ends at the last record, 1100
  const OffCpuThread& t = thread(c, kPid);
  EXPECT_EQ(t.comm, "from-proc");
  EXPECT_EQ(t.start_ns, 500u);
  EXPECT_EQ(t.end_ns, 1100u);
  EXPECT_EQ(t.on_ns, 100u + 100);
  EXPECT_EQ(t.blocked_ns, 400u);
  EXPECT_EQ(t.runq_ns, 0u);
  EXPECT_EQ(t.sampled, 77u);
}

TEST(OffCpuBuilder, ForkedThreadsWaitOnTheRunQueueAndIdleOrGoneTasksAreNotFollowed) {
  OffCpuBuilder b(/*leave_out=*/555);
  b.on_comm(Comm{100, kPid, kPid, true, "prog"});
  b.on_fork(Fork{200, kPid, kPid, kPid + 1, kPid});
  b.on_switch(in(kPid + 1, 260));                      // first ran 60 after its fork
  b.on_switch(Switch{300, 0, 0, 0, true, false});      // the idle task
  b.on_switch(Switch{300, 555, 555, 0, true, false});  // kprof itself (-a)
  // A task already released: the kernel writes pid and tid -1 (seen with -a
  // in a storm: a phantom thread on a CPU for the whole recording).
  b.on_switch(Switch{310, UINT32_MAX, UINT32_MAX, 0, true, false});
  b.on_fork(Fork{320, UINT32_MAX, kPid, UINT32_MAX, kPid});
  b.on_exit(Fork{400, kPid, kPid, kPid + 1, kPid});
  const OffCpuCounts c = std::move(b).finish();
  ASSERT_EQ(c.threads.size(), 2u);
  const OffCpuThread& child = thread(c, kPid + 1);
  EXPECT_EQ(child.comm, "prog");
  EXPECT_EQ(child.runq_ns, 60u);
  EXPECT_EQ(child.on_ns, 140u);
  EXPECT_EQ(child.wall_ns(), 200u);
}

TEST(OffCpuBuilder, ContradictoryRecordsKeepTheIdentity) {
  OffCpuBuilder b;
  b.on_comm(Comm{0, kPid, kPid, true, "prog"});
  b.on_switch(out(kPid, 100));
  b.on_switch(out(kPid, 250));  // a switch in was lost
  b.on_switch(in(kPid, 300));
  b.on_switch(in(kPid, 400));  // a switch out was lost
  b.on_lost(Lost{410, 3});
  b.on_switch(out(kPid, 500));
  const OffCpuCounts c = std::move(b).finish();
  const OffCpuThread& t = thread(c, kPid);
  EXPECT_EQ(t.on_ns + t.blocked_ns + t.runq_ns, t.wall_ns());
  EXPECT_EQ(c.lost, 3u);
}

Stacks named_stacks(std::vector<std::vector<std::string>> kernel_frames, uint64_t ns) {
  Stacks s;
  s.images = {Image{"[kernel]", ""}};
  s.processes = {StackProcess{kPid, "prog"}};
  for (auto& names : kernel_frames) {
    Stack st;
    st.process = 0;
    for (const std::string& n : names) {
      st.frames.push_back(static_cast<uint32_t>(s.frames.size()));
      s.frames.push_back(Frame{0, n, Mode::Kernel});
    }
    st.samples = 1;
    st.period = ns;
    s.stacks.push_back(st);
  }
  return s;
}

TEST(OffCpuModel, StacksLoseTheSchedulerAndGainTheirStateInTicks) {
  const Stacks blocked =
      named_stacks({{"__schedule", "schedule", "do_nanosleep", "hrtimer_nanosleep"}}, 30'000'000);
  const Stacks runq = named_stacks(
      {{"__schedule", "preempt_schedule_irq", "irqentry_exit"}, {"schedule", "pipe_read"}},
      1'400'000);  // 0.7 ticks: kept; two stacks
  OffCpuCounts counts;
  counts.threads = {
      OffCpuThread{kPid, kPid, "prog", 0, 32'800'040, 40, 30'000'000, 2'800'000, 3, 40}};
  const OffCpu o = off_cpu_from_stacks(blocked, runq, counts, 2'000'000, true);
  EXPECT_EQ(o.tick_ns, 2'000'000u);
  ASSERT_EQ(o.stacks.stacks.size(), 3u);
  const Stack& first = o.stacks.stacks[0];  // heaviest first
  EXPECT_EQ(first.samples, 15u);
  EXPECT_EQ(first.period, 30'000'000u);
  ASSERT_EQ(first.frames.size(), 3u);
  EXPECT_EQ(o.stacks.frames[first.frames[0]].function, "do_nanosleep");
  EXPECT_EQ(o.stacks.frames[first.frames[2]].function, kBlockedFrame);
  EXPECT_EQ(o.stacks.images[o.stacks.frames[first.frames[2]].image].name, kOffCpuImage);
  EXPECT_EQ(o.stacks.frames[o.stacks.stacks[1].frames[0]].function == "irqentry_exit" ||
                o.stacks.frames[o.stacks.stacks[1].frames[0]].function == "pipe_read",
            true);
  EXPECT_EQ(o.stacks.frames[o.stacks.stacks[1].frames.back()].function, kRunQueueFrame);
  EXPECT_EQ(o.wall_ns(), 32'800'040u);
  EXPECT_EQ(o.on_ns() + o.blocked_ns() + o.runq_ns(), o.wall_ns());
  EXPECT_TRUE(is_scheduler_frame("schedule_timeout"));
  EXPECT_TRUE(is_scheduler_frame("__cond_resched.cold"));
  EXPECT_FALSE(is_scheduler_frame("rt_mutex_slowlock"));
  EXPECT_FALSE(is_scheduler_frame("do_nanosleep"));
}

// --wakers: the wait to run after a wakeup is charged to the woken thread's
// stack, the joint "[woken by]" and the waker's kernel stack, less the
// wakeup's own frames; the blocked part before it, and a wakeup without a
// chain, stay as they were.
TEST(OffCpuModel, TheWaitAfterAWakeupNamesTheWaker) {
  const KernelSymbols kernel = KernelSymbols::parse(
      "ffffffff81000000 T schedule\n"
      "ffffffff81000100 T pipe_read\n"
      "ffffffff81000200 T ksys_read\n"
      "ffffffff81000300 T try_to_wake_up\n"
      "ffffffff81000400 T __wake_up_common\n"
      "ffffffff81000500 T pipe_write\n"
      "ffffffff81000600 T ksys_write\n"
      "ffffffff81000700 T hrtimer_wakeup\n"
      "ffffffff81000800 T hrtimer_interrupt\n"
      "ffffffff81000900 T etext\n",
      "");
  Sample blocked_in = stack_at(kPid, 1400, 0xffffffff81000010);  // in schedule
  blocked_in.callchain = {0xffffffff81000010, 0xffffffff81000110, 0xffffffff81000210};
  blocked_in.kernel_frames = 3;
  Sample woken_by = wakeup(kPid, 1700);  // a writer's pipe_write woke it
  woken_by.pid = woken_by.tid = 7;
  woken_by.mode = Mode::Kernel;
  woken_by.ip = 0xffffffff81000310;
  woken_by.callchain = {0xffffffff81000310, 0xffffffff81000410, 0xffffffff81000510,
                        0xffffffff81000610};
  woken_by.kernel_frames = 4;

  OffCpuBuilder b;
  b.on_comm(Comm{1000, kPid, kPid, true, "prog"});
  b.on_sample(blocked_in);
  b.on_switch(out(kPid, 1400));  // blocked 300 ...
  b.on_sample(woken_by);
  b.on_switch(in(kPid, 1750));  // ... then 50 waiting to run after pipe_write's wakeup
  blocked_in.time = 1800;
  b.on_sample(blocked_in);
  b.on_switch(out(kPid, 1800));  // blocked 100, woken by a timer (no chain) ...
  b.on_sample(wakeup(kPid, 1900));
  b.on_switch(in(kPid, 1930));  // ... then 30 waiting
  b.on_exit(Fork{2000, kPid, 1, kPid, 1});
  OffCpuCounts c = std::move(b).finish();
  const OffCpuThread& t = thread(c, kPid);
  EXPECT_EQ(t.blocked_ns, 400u);
  EXPECT_EQ(t.runq_ns, 80u);
  EXPECT_EQ(t.on_ns + t.blocked_ns + t.runq_ns, t.wall_ns());

  NullUserResolver user;
  const Stacks blocked = *symbolize_counts(c.blocked, kernel, user).stacks;
  const Stacks runq = *symbolize_counts(c.runq, kernel, user).stacks;
  const OffCpu o = off_cpu_from_stacks(blocked, runq, std::move(c), 1, true);
  auto names = [&](const Stack& st) {
    std::vector<std::string> n;
    for (uint32_t f : st.frames) n.push_back(o.stacks.frames[f].function);
    return n;
  };
  std::map<std::vector<std::string>, uint64_t> ns;
  for (const Stack& st : o.stacks.stacks) ns[names(st)] += st.period;
  using V = std::vector<std::string>;
  EXPECT_EQ(ns[(V{"pipe_read", "ksys_read", kBlockedFrame})], 400u);
  EXPECT_EQ(
      ns[(V{"pipe_read", "ksys_read", "[woken by]", "pipe_write", "ksys_write", kRunQueueFrame})],
      50u)
      << "the waker's stack, less try_to_wake_up and __wake_up_common";
  EXPECT_EQ(ns[(V{"pipe_read", "ksys_read", kRunQueueFrame})], 30u) << "no chain: no waker";
  EXPECT_EQ(ns.size(), 3u);
  for (const Frame& f : o.stacks.frames) {
    if (f.function == "[woken by]") {
      EXPECT_EQ(o.stacks.images[f.image].name, kOffCpuImage);
    }
  }
  EXPECT_TRUE(is_wakeup_frame("ttwu_do_activate.constprop.0"));
  EXPECT_TRUE(is_wakeup_frame("__wake_up_sync_key"));
  EXPECT_FALSE(is_wakeup_frame("pipe_write"));
  EXPECT_FALSE(is_wakeup_frame("hrtimer_wakeup")) << "a timer woke it: worth keeping";
}

// record --off-cpu-freq: a stack stands for its thread's switches since its
// last stack (its own included), counted from the switch records (the
// kernel's period says what it meant to skip, not what it skipped: it
// restarts the count when it lowers the period), so its interval counts
// that many times and the intervals without a stack are left to it; a
// thread that never had a stack has its time under "[unknown]". The
// threads' times stay exact; the stacks are the estimate.
TEST(OffCpuModel, SampledStacksStandForTheSwitchesTheyCount) {
  const KernelSymbols kernel = KernelSymbols::parse(
      "ffffffff81000000 T schedule\n"
      "ffffffff81000100 T pipe_read\n"
      "ffffffff81000200 T do_nanosleep\n"
      "ffffffff81000300 T etext\n",
      "");
  constexpr uint64_t kPipeRead = 0xffffffff81000110, kNanosleep = 0xffffffff81000210;
  auto sampled = [](uint32_t tid, uint64_t t, uint64_t ip, uint64_t period) {
    Sample s = stack_at(tid, t, ip);
    s.period = period;
    return s;
  };
  const uint32_t a = kPid, b = kPid + 1;
  OffCpuBuilder builder;
  builder.on_comm(Comm{1000, kPid, a, true, "prog"});
  builder.on_fork(Fork{1000, kPid, kPid, b, a});
  // a: sampled stacks.
  builder.on_sample(sampled(a, 1100, kNanosleep, 1));
  builder.on_switch(out(a, 1100));  // 100 in do_nanosleep
  builder.on_switch(in(a, 1200));
  builder.on_switch(out(a, 1300));  // two switches without a stack: 100 + 100 ...
  builder.on_switch(in(a, 1400));
  builder.on_switch(out(a, 1500));
  builder.on_switch(in(a, 1600));
  builder.on_sample(sampled(a, 1700, kPipeRead, 3));  // ... stood for by this one
  builder.on_switch(out(a, 1700));                    // 100 in pipe_read, counted 3 times
  builder.on_switch(in(a, 1800));
  builder.on_switch(out(a, 1900));  // 50 with no stack after it: "[unknown]"
  builder.on_switch(in(a, 1950));
  // b: the kernel says period 1 after a switch without a stack: it stands
  // for two.
  builder.on_switch(in(b, 1050));
  builder.on_switch(out(b, 1100));  // 100 without a stack, left to the next
  builder.on_switch(in(b, 1200));
  builder.on_sample(sampled(b, 1300, kPipeRead, 1));
  builder.on_switch(out(b, 1300));  // 60 in pipe_read, counted twice
  builder.on_switch(in(b, 1360));
  // c: no stack ever (kernel samples refused): its time is "[unknown]".
  const uint32_t c3 = kPid + 2;
  builder.on_fork(Fork{1000, kPid, kPid, c3, a});
  builder.on_switch(in(c3, 1000));
  builder.on_switch(out(c3, 1100));  // 70 blocked
  builder.on_switch(in(c3, 1170));
  builder.on_exit(Fork{2000, kPid, kPid, a, a});
  builder.on_exit(Fork{2000, kPid, kPid, b, b});
  builder.on_exit(Fork{2000, kPid, kPid, c3, c3});
  OffCpuCounts c = std::move(builder).finish();
  EXPECT_EQ(thread(c, a).blocked_ns, 450u) << "every interval, sampled or not";
  EXPECT_EQ(thread(c, b).blocked_ns, 160u);
  EXPECT_EQ(thread(c, c3).blocked_ns, 70u);
  EXPECT_EQ(c.blocked.samples, 5u) << "a's two stacks, b's, and a's and c's [unknown]";
  EXPECT_EQ(c.stack_samples, 3u);

  NullUserResolver user;
  const Stacks blocked = *symbolize_counts(c.blocked, kernel, user).stacks;
  const Stacks runq = *symbolize_counts(c.runq, kernel, user).stacks;
  std::map<std::vector<std::string>, uint64_t> counted;
  for (const Stack& st : blocked.stacks) {
    std::vector<std::string> n;
    for (uint32_t f : st.frames) n.push_back(blocked.frames[f].function);
    counted[n] += st.period;
  }
  using V = std::vector<std::string>;
  EXPECT_EQ(counted[(V{"do_nanosleep"})], 100u);
  EXPECT_EQ(counted[(V{"pipe_read"})], 300u + 120) << "a's interval 3 times, b's twice";
  EXPECT_EQ(counted[(V{"[unknown]"})], 70u + 50) << "c's, which never had a stack, and a's last";
  EXPECT_EQ(counted.size(), 3u);

  // 640 ns counted for 680 blocked: the process's stacks are scaled by
  // 680/640 to sum to its threads' exact time (a ratio estimate), each in
  // proportion.
  const OffCpu o = off_cpu_from_stacks(blocked, runq, std::move(c), 1, true);
  uint64_t blocked_sum = 0;
  for (const Stack& st : o.stacks.stacks) {
    if (o.stacks.frames[st.frames.back()].function != kBlockedFrame) continue;
    blocked_sum += st.period;
    if (o.stacks.frames[st.frames[0]].function == "do_nanosleep") {
      EXPECT_EQ(st.period, 106u) << "100 of 640, of 680";
    }
  }
  EXPECT_NEAR(static_cast<double>(blocked_sum), 680.0, 1.0);
  EXPECT_EQ(o.blocked_ns(), 680u);
}

// A thread asleep when the recording ends: that wait is charged to the
// stack it fell asleep in, not left out of the stacks (the process's other
// stacks were then scaled up to cover it: its 900 ns went to pipe_read).
TEST(OffCpuModel, TheWaitTheRecordingEndsInIsItsStacks) {
  const KernelSymbols kernel = KernelSymbols::parse(
      "ffffffff81000100 T pipe_read\n"
      "ffffffff81000200 T do_nanosleep\n"
      "ffffffff81000300 T etext\n",
      "");
  const uint32_t a = kPid, b = kPid + 1;
  OffCpuBuilder builder;
  builder.on_comm(Comm{1000, kPid, a, true, "prog"});
  builder.on_fork(Fork{1000, kPid, kPid, b, a});
  builder.on_switch(in(b, 1000));
  builder.on_sample(stack_at(a, 1100, 0xffffffff81000210));
  builder.on_switch(out(a, 1100));  // asleep from here to the end: 900
  builder.on_sample(stack_at(b, 1100, 0xffffffff81000110));
  builder.on_switch(out(b, 1100));  // 100 in pipe_read
  builder.on_switch(in(b, 1200));
  builder.on_sample(Sample{.time = 2000, .pid = kPid, .tid = b, .period = 1});
  OffCpuCounts c = std::move(builder).finish();
  EXPECT_EQ(thread(c, a).blocked_ns, 900u);
  NullUserResolver user;
  const Stacks blocked = *symbolize_counts(c.blocked, kernel, user).stacks;
  const OffCpu o = off_cpu_from_stacks(blocked, Stacks{}, std::move(c), 1, true);
  std::map<std::string, uint64_t> ns;
  for (const Stack& st : o.stacks.stacks) ns[o.stacks.frames[st.frames[0]].function] += st.period;
  EXPECT_EQ(ns["do_nanosleep"], 900u);
  EXPECT_EQ(ns["pipe_read"], 100u);
}

// record --off-cpu-freq samples the wakeups too: a blocked wait whose
// wakeup was not sampled is split as the thread's waits with theirs (as
// far as known when it ends, for its stack; in all at the end, for the
// thread), a wait for a CPU after a preemption stays exact, and so does a
// wait the recording ends in (no wakeup came). Where every wakeup is
// recorded (period 1), a wait without one is blocked, as before.
TEST(OffCpuModel, SampledWakeupsSplitTheWaitsWithoutOne) {
  auto build = [](uint64_t wakeup_period) {
    auto woken = [&](uint64_t t) {
      Sample w = wakeup(kPid, t);
      w.period = wakeup_period;
      return w;
    };
    OffCpuBuilder b;
    b.on_comm(Comm{1000, kPid, kPid, true, "prog"});
    auto leave = [&](uint64_t t, bool preempted = false) {
      b.on_sample(stack_at(kPid, t, 0xffffffff81000100));
      b.on_switch(out(kPid, t, preempted));
    };
    leave(1100);
    b.on_sample(woken(1160));  // 60 blocked, 40 on the run queue
    b.on_switch(in(kPid, 1200));
    leave(1300);  // 100 without its wakeup: 40% run queue so far
    b.on_switch(in(kPid, 1400));
    leave(1500, true);  // preempted: 50 on the run queue
    b.on_switch(in(kPid, 1550));
    leave(1600);
    b.on_sample(woken(1620));  // 20 blocked, 80 on the run queue
    b.on_switch(in(kPid, 1700));
    leave(1800);  // 200 without: 60% so far
    b.on_switch(in(kPid, 2000));
    leave(2100);                   // still blocked at the end: 200 blocked
    b.on_sample(wakeup(7, 2300));  // another task's: the last record
    return std::move(b).finish();
  };
  OffCpuCounts c = build(3);
  EXPECT_TRUE(c.wakeups_sampled);
  const OffCpuThread& t = thread(c, kPid);
  EXPECT_EQ(t.on_ns, 550u);
  // With their wakeups: 80 blocked, 120 run queue (60%); without: 300, so
  // 180 run queue. Blocked: 80 + 120 + the last 200.
  EXPECT_EQ(t.blocked_ns, 400u);
  EXPECT_EQ(t.runq_ns, 350u) << "120 + 180 + the preemption's 50";
  EXPECT_EQ(t.on_ns + t.blocked_ns + t.runq_ns, t.wall_ns());
  EXPECT_EQ(t.wall_ns(), 1300u);

  // The stacks split each wait as known when it ended (40 of the first 100
  // without a wakeup, 120 of the second 200), then are scaled to the
  // thread's times.
  const KernelSymbols kernel = KernelSymbols::parse(
      "ffffffff81000000 T pipe_read\n"
      "ffffffff81000300 T etext\n",
      "");
  NullUserResolver user;
  const Stacks blocked = *symbolize_counts(c.blocked, kernel, user).stacks;
  const Stacks runq = *symbolize_counts(c.runq, kernel, user).stacks;
  auto period = [](const Stacks& st) {
    uint64_t n = 0;
    for (const Stack& x : st.stacks) n += x.period;
    return n;
  };
  EXPECT_EQ(period(blocked), 60u + 60 + 20 + 80 + 200);
  EXPECT_EQ(period(runq), 40u + 40 + 50 + 80 + 120);
  const OffCpu o = off_cpu_from_stacks(blocked, runq, std::move(c), 1, true);
  EXPECT_TRUE(o.wakeups_sampled);
  uint64_t blocked_sum = 0, runq_sum = 0;
  for (const Stack& st : o.stacks.stacks) {
    const bool is_blocked = o.stacks.frames[st.frames.back()].function == kBlockedFrame;
    (is_blocked ? blocked_sum : runq_sum) += st.period;
  }
  EXPECT_NEAR(static_cast<double>(blocked_sum), 400.0, 1.0);
  EXPECT_NEAR(static_cast<double>(runq_sum), 350.0, 1.0);

  // Every wakeup recorded: a wait without one was not woken, so blocked.
  c = build(1);
  EXPECT_FALSE(c.wakeups_sampled);
  EXPECT_EQ(thread(c, kPid).blocked_ns, 60u + 100 + 20 + 200 + 200);
  EXPECT_EQ(thread(c, kPid).runq_ns, 40u + 50 + 80);
}

TEST(OffCpuModel, TickIsTheSamplingPeriod) {
  EventInfo clock{.name = "cpu-clock", .type = 1, .config = 0, .use_freq = true, .rate = 499};
  EXPECT_EQ(off_cpu_tick_ns(clock), 1'000'000'000u / 499);
  clock.use_freq = false;
  clock.rate = 250'000;
  EXPECT_EQ(off_cpu_tick_ns(clock), 250'000u);
  EventInfo cycles{.name = "cycles", .type = 0, .config = 0, .use_freq = false, .rate = 100'000};
  EXPECT_EQ(off_cpu_tick_ns(cycles), 1'000'000u);  // a count of events is no time
  EXPECT_TRUE(is_clock_event(clock));
  EXPECT_FALSE(is_clock_event(cycles));
}

OffCpu model() {
  OffCpuCounts counts;
  counts.threads = {
      OffCpuThread{kPid, kPid, "prog", 10, 4'000'690, 500, 3'999'980, 200, 40, 490'000},
      OffCpuThread{kPid, kPid + 1, "", 20, 30, 5, 5, 0, 1, 0}};
  counts.switches = 41;
  counts.wakeups = 12;
  counts.lost = 2;
  counts.stack_samples = 33;
  counts.wakeups_sampled = true;
  OffCpu o = off_cpu_from_stacks(named_stacks({{"schedule", "pipe_read"}}, 4'000'000), Stacks{},
                                 counts, 1'000'000, true);
  o.source = "context switches of the recorded tasks";
  return o;
}

TEST(OffCpuChunk, RoundTrips) {
  const OffCpu o = model();
  EXPECT_EQ(decode_off_cpu(encode_off_cpu(o)), o);
}

TEST(OffCpuChunk, DamageIsAClearError) {
  const std::vector<uint8_t> bytes = encode_off_cpu(model());
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    try {
      decode_off_cpu(std::span(bytes).first(cut));
      ADD_FAILURE() << "a chunk cut at " << cut << " of " << bytes.size() << " decoded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("off-cpu"), std::string::npos) << e.what();
    }
  }
  // A thread that ends before it starts is a lie about the lengths.
  OffCpu liar = model();
  liar.threads[0].end_ns = 1;
  EXPECT_THROW(decode_off_cpu(encode_off_cpu(liar)), Error);
  OffCpu no_tick = model();
  no_tick.tick_ns = 0;
  EXPECT_THROW(decode_off_cpu(encode_off_cpu(no_tick)), Error);
}

}  // namespace
}  // namespace kprof
