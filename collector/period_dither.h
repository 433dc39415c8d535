// Dithering the sampling clock's period, so no loop can lock in phase with it.
//
// A clock event (cpu-clock, task-clock: the VMs' fallback) sampled at a rate
// (-F) is a fixed-period hrtimer: the kernel turns the rate into a period
// and forwards the timer by exactly that period. A workload whose loop takes
// a near multiple (or simple fraction) of it is then seen at the same few
// points of its loop all run long, and a function's share lands anywhere
// between 0 and 100% depending on the phase the run happened to start at:
// the hot-cold test program (a ~0.21 ms round, -F 999) spread 3.5-12x as
// much as binomial sampling between runs, and a +2 pp change was lost in it
// (issue 22). perf has the same aliasing; hardware events in frequency mode
// escape it because the kernel retunes their period every tick.
//
// PeriodDither restarts each sampling event of the clock with a fresh
// rate, drawn uniformly within ±kSpread of the nominal one, once the event
// has taken a window of samples of its own since its last restart
// (PERF_EVENT_IOC_PERIOD: the kernel restarts the timer from the moment of
// the call, at a phase no loop can follow). No loop stays locked for more
// than a window, and within a window the samples still sweep the loop's
// phases evenly.
//
// The mean rate stays -F, for every task alike:
// - a restart waits for the event's own samples, not for time: a restart
//   drops what the event had counted towards its next sample, so a task
//   that runs less than a period between restarts would never be sampled.
//   It waits for kMinWindow samples at the nominal rate, times the drawn
//   rate's factor (so about the same CPU time at any rate);
// - the recorder looks at the rings every 2 x kMinWindow nominal periods
//   (poll_ms), so a busy task's window always ends at the first look: its
//   windows last the same time whatever their rate, and the rates average
//   to -F. (Windows of a fixed count of samples, or ones that sometimes
//   wait for a second look when slow, weigh slow rates more: ln 3 = 10% low
//   at ±50% for fixed counts; 2% low for the latter, measured);
// - a restart drops half a sample on average (the part of a period already
//   counted), so the rates are raised by half a sample's share of a window.
// The windows' random rates do add noise to a recording's count of samples
// (SD ~40 in 1,000 against Poisson's 32, bench/dither.sh); it scales every
// row of a window alike, so shares do not see it, but a count times the
// period is a rougher measure of CPU time than at a fixed period.
//
// What it reaches: the events kprof opened itself: every CPU's with -a, each
// listed thread's with -p, and for a workload every CPU's limited to the
// workload's own cgroup (collector/workload_cgroup.h), so the processes and
// threads it starts are dithered too. Where kprof cannot make that cgroup
// (not root, no cgroup2), or with --off-cpu, it follows the workload's first
// task, whose event the tasks it starts inherit: the kernel does not let
// kprof retune those copies, so they sample at the nominal period (a notice
// says so).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "perfabi/perf_record.h"

namespace kprof::collector {

// One sampling event to dither: its fd, the ring (CPU) its records go to,
// and the task it follows (-1: every task on that CPU).
struct DitherTarget {
  int fd = -1;
  size_t ring = 0;
  pid_t pid = -1;
};

class PeriodDither {
 public:
  static constexpr double kSpread = 0.5;     // rates within ±50% of nominal
  static constexpr uint64_t kMinWindow = 8;  // own samples before a restart, at the nominal rate
  static constexpr uint64_t kMinPeriodNs = 10'000;  // the kernel's floor for clock timers
  // kSpread as EventInfo::dither_pct.
  static constexpr auto kDisplayPercent = static_cast<unsigned>(kSpread * 100);
  static constexpr double kMaxRaise = 0.1;  // the half-sample raise, at most
  // The highest rate drawn, over the nominal one: a -F this many times
  // below kernel.perf_event_max_sample_rate is dithered (above, the kernel
  // would throttle the fastest windows).
  static constexpr double kMaxRateFactor = (1 + kSpread) * (1 + kMaxRaise);

  // Sets an event's period; returns 0 or an errno. The default is the ioctl.
  using SetPeriod = std::function<int(int fd, uint64_t period)>;

  // `period_ns` is the nominal period (1 s / -F); `layout` the rings' sample
  // layout (to find a sample's task and event).
  PeriodDither(const std::vector<DitherTarget>& targets, uint64_t period_ns,
               const perfabi::SampleLayout& layout, uint64_t seed, SetPeriod set = {});

  // Sets every target's period to the nominal one, as a check that the
  // kernel takes PERF_EVENT_IOC_PERIOD on these events; "" when it did, else
  // why not (then dithering is off).
  std::string probe();

  // Counts, per target, the samples among `records` (whole perf records of
  // ring `ring`, in the two parts a ring's wrap may cut them into) that are
  // the target's own: on its CPU, of its task, of the dithered event.
  void saw(size_t ring, std::span<const uint8_t> first, std::span<const uint8_t> second = {});

  // Restarts, with a fresh rate, every target that has taken its window of
  // samples since its last restart. Returns how many.
  size_t restart_due();

  // A fresh rate, as a period (ns), and the window of samples to take at it.
  struct Draw {
    uint64_t period_ns = 0;
    uint64_t window = 0;
  };
  Draw draw();

  // How often the recorder should look at the rings (ms): 2 x kMinWindow
  // nominal periods, 10-100 ms.
  int poll_ms() const;

  uint64_t restarts() const { return restarts_; }
  uint64_t nominal_ns() const { return period_ns_; }
  const std::string& failure() const { return failure_; }  // "" while it works

 private:
  struct State {
    DitherTarget target;
    uint64_t seen = 0;             // own samples since the last restart
    uint64_t window = kMinWindow;  // to take before the next
  };
  std::vector<State> states_;
  // Per ring, its targets' (pid, index in states_), sorted: -1 (every
  // task) comes first.
  std::vector<std::vector<std::pair<pid_t, size_t>>> rings_;
  uint64_t period_ns_;
  uint64_t sample_type_;
  std::vector<uint64_t> other_ids_;  // sorted: the other events' samples (layout's kinds)
  std::mt19937_64 rng_;
  SetPeriod set_;
  uint64_t restarts_ = 0;
  uint64_t window_samples_ = 0;  // own samples in the windows restarted so far
  std::string failure_;
};

}  // namespace kprof::collector
