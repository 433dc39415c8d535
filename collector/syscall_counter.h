// kprof record --syscalls: how many times the recorded work makes each
// system call, counted exactly beside the sampling. One counting perf event
// per syscalls:sys_enter_NAME tracepoint (as `perf stat -e
// 'syscalls:sys_enter_*'` does), on the workload's task with inheritance
// (children and threads counted, summed into the parent's count as they
// exit), on each thread of a -p process, or on every CPU for -a.
//
// Cost: every call pays the tracepoint's slow path while counting is on
// (about 150-200 ns a call on this VM, as perf's; bench/syscall_counts.sh),
// which is why counting is asked for, not the default.
//
// Where it cannot count (tracefs not mounted and no right to mount it, no
// syscall tracepoints in this kernel, no permission to open them, too few
// file descriptors), open() returns nullopt and a one-line notice naming
// the fix; the recording goes on without counts. As root with tracefs not
// mounted it mounts it at /sys/kernel/tracing, as perf does, and says so.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/fd.h"
#include "core/syscall_counts.h"

namespace kprof::collector {

class SyscallCounter {
 public:
  // `pids`: as EventRequest::pids ({-1}: every task, one event per CPU).
  // enable_on_exec: counting starts at the workload's exec (else enable()).
  // `only`: count just these calls ("chdir", "openat"; empty: every one):
  // fewer events to open and, above all, to close (see ~SyscallCounter), and
  // to clone into and free from every thread the work starts and ends; a
  // name with no tracepoint is a notice. Notices (without "kprof: ") go to
  // *notices.
  static std::optional<SyscallCounter> open(const std::vector<pid_t>& pids, bool enable_on_exec,
                                            const std::vector<std::string>& only,
                                            std::vector<std::string>* notices);
  SyscallCounter() = default;
  SyscallCounter(SyscallCounter&&) = default;
  SyscallCounter& operator=(SyscallCounter&&) = default;
  // The last close of each tracepoint's perf event waits for an RCU grace
  // period under the kernel's event_mutex (~36 ms here, one after another:
  // 13 s for 360, as perf stat's exit takes). So a short-lived grandchild
  // process takes the last references and closes them, and kprof goes on.
  ~SyscallCounter();

  void enable();
  void disable();
  // The counts so far (read from every event), calls never made left out.
  SyscallCounts read() const;

 private:
  struct Counted {
    std::string name;     // "chdir"
    std::vector<Fd> fds;  // one per (task, CPU)
  };
  std::vector<Counted> events_;
  std::string source_;
};

}  // namespace kprof::collector
