// kprof record --off-cpu: the events that see the recorded threads leave and
// come back to a CPU, written into the sampling events' rings (one layout
// for all, PERF_SAMPLE_IDENTIFIER telling them apart: perfabi's
// SampleLayout::kinds):
// - per (task, CPU) as the sampling event (inherited by children, enabled at
//   the workload's exec), the software event context-switches with its call
//   chain (the stack the thread leaves the CPU in: kernel, and with -g
//   user), and attr.context_switch, which adds a PERF_RECORD_SWITCH at every
//   switch out (flagged when still runnable) and in: what `perf record -e cs
//   --switch-events` records. The times come from the switch records, every
//   one; the stacks, at every switch by default, or (OffCpuOptions::
//   stack_freq) in the kernel's frequency mode, so that a thread switching
//   faster than that gives a stack every Nth switch or so
//   (core/off_cpu_builder.h weighs its interval by the switches since the
//   thread's last stack);
// - per CPU, system-wide (root or CAP_PERFMON), the sched:sched_wakeup
//   tracepoint with its raw fields (the woken task's pid), so that a blocked
//   thread's wait after its wakeup counts as run-queue delay, not blocked;
//   with OffCpuOptions::waker_stacks also its kernel call chain (the waker's: who woke
//   the thread, and how); with stack_freq, in the frequency mode too (about
//   that many a second per CPU): the waits whose wakeup came then estimate
//   how the others split (core/off_cpu_builder.h).
// Neither needs tracefs but the wakeups' tracepoint id. Where the switch
// events cannot open, one notice and the recording goes on on-CPU only;
// where the wakeups cannot, one notice and blocked time includes the wait
// after a wakeup.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/fd.h"
#include "core/model.h"
#include "perfabi/perf_record.h"

namespace kprof::collector {

// The sched:sched_wakeup tracepoint: its id and where its `pid` field lies in
// the raw data; nullopt (and *why) where tracefs, the tracepoint or the right
// to read it is missing, or where system-wide events are not allowed.
struct WakeupTracepoint {
  uint64_t id = 0;
  uint32_t pid_offset = 0;
};
std::optional<WakeupTracepoint> find_wakeup_tracepoint(std::string* why);

// What the events take beside the times: the stack a thread leaves the CPU
// in (kernel frames always; user frames with -g, `user_stacks`: walking the
// user stack at every switch is the dearer half, bench/off_cpu.sh), and with
// `waker_stacks` (--wakers) each wakeup's kernel call chain.
// `stack_freq` > 0: a stack at about this many switches a second per thread
// and a wakeup at about as many a second per CPU (capped at
// kernel.perf_event_max_sample_rate); 0: at every switch and wakeup.
// Unwinding at every switch is most of what recording off-CPU time costs a
// thread that switches 100k times a second (bench/off_cpu_chains.sh). The
// kernel's frequency mode raises the period on any burst of switches (two
// within 1/(2 stack_freq) s), so sampled stacks are not kept to storms: an
// opt-in, not the default.
struct OffCpuOptions {
  bool user_stacks = true;
  bool waker_stacks = false;
  uint32_t stack_freq = 0;
};

struct OffCpuEvents {
  std::vector<Fd> fds;
  std::vector<size_t> ring;  // per fd, the index of the CPU (into `cpus`) whose ring it writes to
  std::vector<perfabi::EventId> kinds;  // event ids (PERF_EVENT_IOC_ID)
  uint32_t wakee_offset = 0;
  std::string source;  // what was opened, for OffCpu::source
};

// `base`: the sampling event's attr as opened (its sample_type, clock,
// exclusions); `pids` and `cpus` as it was opened on. Notices (without
// "kprof: ") go to *notices. Empty fds: off-CPU could not be recorded.
OffCpuEvents open_off_cpu_events(const perf_event_attr& base, const std::vector<pid_t>& pids,
                                 const std::vector<int>& cpus,
                                 const std::optional<WakeupTracepoint>& wakeup,
                                 const OffCpuOptions& options, std::vector<std::string>* notices);

}  // namespace kprof::collector
