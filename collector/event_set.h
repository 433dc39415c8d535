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
#include "collector/off_cpu_events.h"
#include "collector/perf_event.h"
#include "collector/period_dither.h"
#include "core/model.h"

namespace kprof::collector {

// An event sampled beside the first (kprof record -e A,B): into the same
// rings, told apart by PERF_SAMPLE_IDENTIFIER (SampleKind::Event).
struct MoreEvent {
  ResolvedEvent event;
  std::string requested;  // as typed, for EventInfo
  uint64_t period = 0;    // events per sample; 0: the request's rate (period or freq)
};

struct EventRequest {
  ResolvedEvent event;
  std::string requested;  // as typed ("" = default), for EventInfo
  // The events after the first, each opened as it is (same tasks, CPUs,
  // stacks and exclusions): a hardware one that does not exist here falls
  // back to cpu-clock as the first does, or is left out with a notice where
  // cpu-clock is sampled already.
  std::vector<MoreEvent> more;
  uint64_t freq = 499;  // samples/s, used when period == 0
  uint64_t period = 0;  // events per sample
  bool callchains = false;
  // --call-graph dwarf: bytes of user stack copied with each sample (with
  // the user registers; the kernel walks only its own part of the stack).
  // 0: frame pointers.
  uint32_t user_stack = 0;
  std::vector<pid_t> pids;  // tasks to follow; {-1} = every task (system-wide)
  // pids = {a cgroup directory's fd}: every task in that cgroup, one event
  // per CPU (PERF_FLAG_PID_CGROUP), not inherited, so each event is kprof's
  // to retune (collector/period_dither.h), where an inherited one is not.
  bool cgroup = false;
  bool enable_on_exec = false;  // workload mode: counting starts at the child's exec
  size_t mmap_pages = 0;        // data pages per ring (power of two); 0: auto_ring_pages()
  // --off-cpu: also the context-switch and wakeup events of
  // collector/off_cpu_events.h, into the same rings.
  bool off_cpu = false;
  bool off_cpu_wakers = false;      // and the wakeups' kernel call chains
  uint32_t off_cpu_stack_freq = 0;  // OffCpuOptions::stack_freq
};

// Ring data pages per CPU for sampling at `freq` Hz (per CPU), so that a
// burst of kRingBurstMs of samples fits while kprof is not scheduled (the
// moment a loaded machine is profiled): an estimated 48 bytes per sample
// record (ip, tid, time, cpu, period, header), 304 with -g (32 frames),
// and the copied stack and registers more with --call-graph dwarf. A
// power of two, at least 128 pages (perf's default, 512 KiB) and at most
// 64 MiB per CPU and 512 MiB over all CPUs. E.g. 100 kHz: 1024 pages
// (4 MiB) a CPU, 4096 with -g; the default 499 Hz: 128.
inline constexpr uint64_t kRingBurstMs = 500;
size_t auto_ring_pages(uint64_t freq, bool callchains, unsigned ncpus, size_t page_bytes,
                       uint32_t user_stack = 0);

class EventSet {
 public:
  // Opens and maps everything; fills run->event and run->more_events with
  // what opened, appends notices (without "kprof: ") to run->notices and
  // prints each to stderr.
  static EventSet open(const EventRequest& req, RunInfo* run);

  void enable();   // PERF_EVENT_IOC_ENABLE on every event
  void disable();  // PERF_EVENT_IOC_DISABLE on every event
  std::vector<RingBuffer>& rings() { return rings_; }
  const SampleLayout& layout() const { return layout_; }
  // The data pages each ring got: the request's, or when it asked for auto,
  // what auto_ring_pages() gave, halved until the kernel allowed it.
  size_t ring_pages() const { return ring_pages_; }
  // What --off-cpu opened (OffCpu::source); "" when nothing (a notice said why).
  const std::string& off_cpu_source() const { return off_cpu_source_; }
  // The first event's fds when it is a clock event sampled at a rate (-F):
  // what collector/period_dither.h may retune. Empty otherwise (a hardware
  // event, whose rate the kernel keeps by retuning its period itself, or a
  // period the user fixed with -c).
  std::vector<DitherTarget> clock_targets() const;

 private:
  std::vector<Fd> fds_;
  size_t first_fds_ = 0;  // fds_[0, first_fds_): the first event's, CPU by CPU, task by task
  std::vector<pid_t> pids_;
  bool cgroup_ = false;  // EventRequest::cgroup
  bool clock_at_rate_ = false;
  std::vector<RingBuffer> rings_;  // after fds_: unmapped before the fds close
  SampleLayout layout_;
  size_t ring_pages_ = 0;
  std::string off_cpu_source_;
};

}  // namespace kprof::collector
