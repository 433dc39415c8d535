// The sampling events of one recording: one perf event per (target task, CPU)
// with one ring buffer per CPU (the other events of that CPU write into it
// through PERF_EVENT_IOC_SET_OUTPUT).
//
// Opening adapts to the machine, and says so:
// - a hardware event that does not exist here (ENOENT/EOPNOTSUPP/ENODEV: no
//   PMU, as in most VMs) falls back to cpu-clock, with a notice on stderr and
//   EventInfo.fell_back/fallback_reason;
// - a kernel refusing kernel samples (EACCES/EPERM under perf_event_paranoid
//   >= 2, not root) retries with exclude_kernel and adds a notice;
// - a kernel without MMAP2 build-ids (EINVAL) retries without them.
// Anything else throws kprof::Error naming the event and the fix.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "collector/events.h"
#include "collector/perf_event.h"
#include "core/model.h"

namespace kprof::collector {

struct EventRequest {
  ResolvedEvent event;
  std::string requested;  // as typed ("" = default), for EventInfo
  uint64_t freq = 499;    // samples/s, used when period == 0
  uint64_t period = 0;    // events per sample
  bool callchains = false;
  std::vector<pid_t> pids;      // tasks to follow; {-1} = every task (system-wide)
  bool enable_on_exec = false;  // workload mode: counting starts at the child's exec
  size_t mmap_pages = 128;      // data pages per ring (power of two)
};

class EventSet {
 public:
  // Opens and maps everything; appends notices (without "kprof: ") to
  // *notices and prints each to stderr.
  static EventSet open(const EventRequest& req, EventInfo* info, std::vector<std::string>* notices);

  void enable();   // PERF_EVENT_IOC_ENABLE on every event
  void disable();  // PERF_EVENT_IOC_DISABLE on every event
  std::vector<RingBuffer>& rings() { return rings_; }
  const SampleLayout& layout() const { return layout_; }

 private:
  std::vector<Fd> fds_;
  std::vector<RingBuffer> rings_;  // after fds_: unmapped before the fds close
  SampleLayout layout_;
};

}  // namespace kprof::collector
