#include "core/model.h"

namespace kprof {

bool is_clock_event(const EventInfo& event) {
  constexpr uint32_t kSoftware = 1;                  // PERF_TYPE_SOFTWARE
  constexpr uint64_t kCpuClock = 0, kTaskClock = 1;  // PERF_COUNT_SW_CPU_CLOCK, _TASK_CLOCK
  return (event.type == kSoftware && (event.config == kCpuClock || event.config == kTaskClock)) ||
         event.name == "cpu-clock" || event.name == "task-clock";  // a listing's: by name alone
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::User:
      return "user";
    case Mode::Kernel:
      return "kernel";
    case Mode::Hypervisor:
      return "hypervisor";
    case Mode::GuestKernel:
      return "guest-kernel";
    case Mode::GuestUser:
      return "guest-user";
    case Mode::Unknown:
      break;
  }
  return "unknown";
}

namespace {

// Counters can go backwards (CPU hotplug, a snapshot from another boot): clamp to zero.
uint64_t delta(uint64_t before, uint64_t after) {
  return after > before ? after - before : 0;
}

}  // namespace

ProcStatRates rates_between(const ProcStat& before, const ProcStat& after) {
  ProcStatRates r;
  const uint64_t us = delta(before.user, after.user) + delta(before.nice, after.nice);
  const uint64_t sys = delta(before.system, after.system) + delta(before.irq, after.irq) +
                       delta(before.softirq, after.softirq);
  const uint64_t idle = delta(before.idle, after.idle);
  const uint64_t iowait = delta(before.iowait, after.iowait);
  const uint64_t total = us + sys + idle + iowait + delta(before.steal, after.steal);
  if (total > 0) {
    r.user_pct = 100.0 * static_cast<double>(us) / static_cast<double>(total);
    r.sys_pct = 100.0 * static_cast<double>(sys) / static_cast<double>(total);
    r.idle_pct = 100.0 * static_cast<double>(idle) / static_cast<double>(total);
    r.iowait_pct = 100.0 * static_cast<double>(iowait) / static_cast<double>(total);
  }
  const uint64_t ns = delta(before.time_ns, after.time_ns);
  if (ns > 0) {
    const double s = static_cast<double>(ns) / 1e9;
    r.interrupts_per_s = static_cast<double>(delta(before.intr, after.intr)) / s;
    r.ctxsw_per_s = static_cast<double>(delta(before.ctxt, after.ctxt)) / s;
  }
  return r;
}

uint64_t Histogram::total_samples() const {
  uint64_t n = 0;
  for (const auto& r : rows) n += r.samples;
  return n;
}

std::vector<uint64_t> Histogram::slice_totals() const {
  if (rows.empty() || rows[0].slices.empty()) return {};
  std::vector<uint64_t> t(rows[0].slices.size(), 0);
  for (const auto& r : rows) {
    if (r.slices.size() != t.size()) return {};
    for (size_t j = 0; j < t.size(); ++j) t[j] += r.slices[j];
  }
  return t;
}

}  // namespace kprof
