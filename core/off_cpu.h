// Off-CPU time: where the recorded threads' wall time went while no CPU ran
// them (kprof record --off-cpu; built by core/off_cpu_builder.h from the
// context switches, named by symbolizer/finish.h). Stored as one chunk
// (core/file_layout.h ChunkType::OffCpu), written when recording ends.
//
// Every followed thread's time is split three ways, so that per thread
//   on-CPU + blocked + run queue = wall (from when it was first followed
//   to its exit or the end of the recording):
// - on-CPU: between a switch in and the next switch out;
// - blocked: switched out not runnable (sleep, I/O, a lock), until woken;
// - run queue: runnable but not running: switched out while runnable
//   (preempted), or woken and not yet switched in; where wakeups were not
//   recorded (no sched:sched_wakeup), a blocked thread's wait after its
//   wakeup counts as blocked.
// The stacks charge each off-CPU interval to the stack the thread left the
// CPU in (the scheduler's own frames removed: its first frame is where the
// thread blocked or was preempted), under an outermost frame "[blocked]"
// or "[run queue]" of image "[off-cpu]". A stack's `period` is its
// nanoseconds, its `samples` those nanoseconds in ticks of `tick_ns` (the
// recording's sampling period), rounded: on the same scale as the on-CPU
// samples, so every view of stacks (report, diff, exports, the page) reads
// off-CPU time as a profile of "samples" (off_cpu_view, report/off_cpu.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/stacks.h"

namespace kprof {

inline constexpr const char* kOffCpuImage = "[off-cpu]";
inline constexpr const char* kBlockedFrame = "[blocked]";
inline constexpr const char* kRunQueueFrame = "[run queue]";

struct OffCpuThread {
  uint32_t pid = 0, tid = 0;
  std::string comm;  // as last seen; "" when never seen
  // Perf time (CLOCK_MONOTONIC ns) the thread was first followed (its fork,
  // exec, or first record) and last (its exit, or the recording's last record).
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t on_ns = 0, blocked_ns = 0, runq_ns = 0;
  uint64_t switches = 0;  // times it left a CPU
  // The sampling event's samples of this thread times their period: ns of
  // CPU time for cpu-clock, an estimate of on_ns made independently of it.
  uint64_t sampled = 0;
  uint64_t wall_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  auto operator<=>(const OffCpuThread&) const = default;
};

struct OffCpu {
  uint64_t tick_ns = 0;  // ns one stack sample stands for; > 0
  Stacks stacks;
  std::vector<OffCpuThread> threads;  // by pid, then tid
  uint64_t switches = 0, wakeups = 0;
  // Where the stacks were sampled (record --off-cpu-freq: some stack stood
  // for more than one switch), how many switches came with theirs: the
  // stacks are then an estimate (core/off_cpu_builder.h). 0 where every
  // switch had its stack, and in files from before it was kept.
  uint64_t stack_samples = 0;
  bool stacks_sampled() const { return stack_samples != 0; }
  // Where the wakeups were sampled too (record --off-cpu-freq): the split
  // of a blocked wait into blocked and run queue is then an estimate, from
  // the waits whose wakeup was sampled; each thread's off-CPU total stays
  // exact. false in files from before it was kept.
  bool wakeups_sampled = false;
  // Records the kernel could not write (ring full) while off-CPU was
  // recorded: some intervals are then missing or merged.
  uint64_t lost = 0;
  std::string source;          // how it was recorded, for kprof info
  bool sampled_is_ns = false;  // OffCpuThread::sampled is in ns (cpu-clock)
  uint64_t on_ns() const;
  uint64_t blocked_ns() const;
  uint64_t runq_ns() const;
  uint64_t wall_ns() const;  // summed over threads
  auto operator<=>(const OffCpu&) const = default;
};

// The chunk's payload; decode throws kprof::Error on damage (bounds-checked;
// fuzzed: fuzz/off_cpu_fuzzer.cpp).
std::vector<uint8_t> encode_off_cpu(const OffCpu&);
OffCpu decode_off_cpu(std::span<const uint8_t>);

}  // namespace kprof
