// From the context switches of a --off-cpu recording to off-CPU time per
// thread and per stack (core/off_cpu.h), in two steps as for CPU samples
// (core/aggregate.h):
// 1. OffCpuBuilder (a RecordSink, fed every record of the profile in time
//    order, CPU samples included) follows each thread: a SwitchOut sample
//    gives the stack it leaves the CPU in, the PERF_RECORD_SWITCH that
//    follows says whether it was still runnable (preempted), a Wakeup
//    sample when it was woken (with, where recorded, the waker's kernel
//    stack: the wait that follows is charged to the woken thread's stack,
//    then a kStackJoint frame "[woken by]", then the waker's), the switch
//    in ends the interval. Each interval is counted as one sample of its
//    stack, of period = its ns times the switches the stack stands for (1
//    where every switch has its stack), in one
//    AddressAggregator for blocked time and one for run-queue time, which
//    replay the side-band records as the CPU samples' aggregator does, so
//    user frames are named from the mappings of their time. Where the
//    stacks were sampled (record --off-cpu-freq), a stack stands for its
//    thread's switches since its last stack, its own included, counted
//    from the switch records (the kernel's sample period is what it meant
//    to skip: it restarts the count when it lowers the period), and the
//    intervals without one are left to it (they are in their thread's
//    times all the same): the stacks estimate where the time went
//    (Horvitz-Thompson: unbiased where which switch gets a stack does not
//    depend on the intervals' lengths) while the threads' times stay exact.
//    Intervals no stack comes after (a thread's last, or all of a thread
//    whose stacks were never written: kernel samples refused) are charged
//    to "[unknown]". Where the wakeups were sampled too (a Wakeup sample of
//    period > 1), a blocked interval whose wakeup was not is split as the
//    thread's with theirs so far, and when all are in, its blocked and
//    run-queue times are set to split those intervals as the ones with a
//    wakeup split theirs, in all (a ratio estimate; the off-CPU total
//    stays exact). A thread still blocked when the recording ends was not
//    woken: that interval stays blocked.
// 2. off_cpu_from_stacks() turns the two symbolized Stacks (symbolize_counts)
//    into the OffCpu model: the scheduler's own frames stripped from each
//    stack's leaf end and the wakeup's own frames from the waker's, an
//    outermost "[blocked]" / "[run queue]" frame, each process's stacks
//    scaled to sum to its threads' blocked and run-queue times (the same
//    where every switch had its stack; a ratio estimate where they were
//    sampled), and samples in ticks of the recording's sampling period.
// A thread first seen leaving a CPU was on one since the first record of the
// recorded tasks (wakeups, seen system-wide, do not count); one
// first seen coming on, from then; a forked one waits on the run queue from
// its fork. Records that contradict the state (two switches out in a row,
// as when records were lost) close the interval at hand, so per thread
// on + blocked + run queue = wall always holds; `lost` says when to doubt it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/aggregate.h"
#include "core/model.h"
#include "core/off_cpu.h"
#include "core/thread_map.h"

namespace kprof {

struct OffCpuCounts {
  AddressCounts blocked, runq;        // one sample per interval, period = ns
  std::vector<OffCpuThread> threads;  // by pid, then tid
  uint64_t switches = 0, wakeups = 0, lost = 0;
  // SwitchOut samples of followed threads, where one stood for more than
  // one switch (OffCpu::stack_samples); else 0.
  uint64_t stack_samples = 0;
  bool wakeups_sampled = false;  // OffCpu::wakeups_sampled
};

class OffCpuBuilder : public RecordSink {
 public:
  // Threads of `leave_out` (kprof's own process with -a; 0: none), the idle
  // task (pid 0) and a released task (pid -1) are not followed.
  explicit OffCpuBuilder(uint32_t leave_out = 0) : leave_out_(leave_out) {
    blocked_.cache_stacks();  // a thread blocks in the same few places over and over
    runq_.cache_stacks();
  }
  void on_sample(const Sample&) override;
  void on_switch(const Switch&) override;
  void on_mmap(const Mmap&) override;
  void on_comm(const Comm&) override;
  void on_fork(const Fork&) override;
  void on_exit(const Fork&) override;
  void on_lost(const Lost&) override;
  // Whether any context switch was seen (the recording had --off-cpu).
  bool any() const { return switches_seen_; }
  // Closes every open interval at the last record's time.
  OffCpuCounts finish() &&;

 private:
  struct Thread {
    OffCpuThread t;
    bool on = true;
    bool exited = false;
    bool preempted = false;  // the current off interval began runnable
    uint64_t since = 0;      // when the current on or off interval began
    uint64_t woken = 0;      // when the current blocked interval's wakeup came; 0: none yet
    bool has_stack = false;  // `stack` is the current (or next) off interval's
    Sample stack;
    bool has_waker = false;  // `waker`: the current blocked interval's wakeup, with its chain
    Sample waker;
    // How many switches `stack` stands for (its own and those since the
    // thread's last stack), the switches out since that had none, and their
    // intervals' ns: left to the next stack, or "[unknown]" when none comes.
    uint64_t weight = 1;
    uint64_t unstacked_switches = 0;
    uint64_t unstacked_blocked = 0, unstacked_runq = 0;
    // Its blocked intervals' ns: of those whose wakeup came, until it and
    // after it; of those without one (a wakeup not sampled), in all and
    // the part charged to the run queue as the split so far says.
    uint64_t woken_blocked = 0, woken_runq = 0;
    uint64_t unwoken = 0, unwoken_runq = 0;
  };
  bool followed(uint32_t pid, uint32_t tid) const;
  Thread* follow(uint32_t pid, uint32_t tid, uint64_t time, bool on);
  void seen(uint64_t time);
  void go_off(Thread& th, uint64_t time, bool preempted);
  void go_on(Thread& th, uint64_t time);
  // Ends the current off interval at `end`; `open` when the recording
  // ends with it (a thread blocked then was not woken, sampled or not).
  void charge(Thread& th, uint64_t end, bool open = false);
  // Where wakeups were sampled: the thread's waits without their wakeup
  // split as those with theirs (a ratio estimate).
  static void settle_unwoken(Thread& th);
  // Counts `ns` of the thread's as a sample of stack `s` (with the waker's
  // chain after a joint, where given; `s` is left as it was).
  void add(AddressAggregator& agg, const Thread& th, Sample& s, uint64_t ns, uint64_t time,
           const Sample* waker = nullptr);
  Sample& unknown();  // scratch_, made the "[unknown]" stack
  void settle_unstacked(Thread& th, bool represented, uint64_t time);

  uint32_t leave_out_ = 0;
  bool switches_seen_ = false;
  uint64_t first_ = 0, last_ = 0;
  uint64_t switches_ = 0, wakeups_ = 0, lost_ = 0, stack_samples_ = 0;
  bool stacks_sampled_ = false;   // a SwitchOut sample of period > 1 was seen
  bool wakeups_sampled_ = false;  // a Wakeup sample of period > 1 was seen
  ThreadMap<Thread> threads_;
  std::unordered_map<uint32_t, std::string> comms_;  // by tid, as read from /proc at the start
  AddressAggregator blocked_{true}, runq_{true};
  Sample scratch_;  // unknown()'s
};

// The recording's sampling period in ns, the unit off-CPU stacks are counted
// in: the period of a clock event (cpu-clock, task-clock), else 1 s / rate
// of a frequency-driven event, else 1 ms.
uint64_t off_cpu_tick_ns(const EventInfo& event);

// Whether a kernel function is the scheduler's own (schedule, __schedule,
// preempt_schedule*, schedule_timeout, ...): stripped from off-CPU stacks.
bool is_scheduler_frame(const std::string& function);
// Whether a kernel function is the wakeup's own (try_to_wake_up, ttwu_*,
// __wake_up_common, the sched_wakeup tracepoint's, ...): stripped from the
// leaf end of a waker's stack. hrtimer_wakeup is kept: it says a timer
// woke the thread.
bool is_wakeup_frame(const std::string& function);

// The OffCpu model from the symbolized blocked and run-queue stacks.
OffCpu off_cpu_from_stacks(const Stacks& blocked, const Stacks& runq, OffCpuCounts counts,
                           uint64_t tick_ns, bool sampled_is_ns);

}  // namespace kprof
