#include "report/skid.h"

#include <array>

#include "report/canonical.h"
#include "report/table.h"

namespace kprof {

bool is_irq_enable_point(std::string_view raw) {
  const std::string name = canonical_name(raw);
  const std::string_view f = name;
  constexpr std::array<std::string_view, 3> kSuffixes = {"_unlock_irqrestore", "_unlock_irq",
                                                         "_irq_enable"};
  for (std::string_view s : kSuffixes) {
    if (f.size() >= s.size() && f.substr(f.size() - s.size()) == s) return true;
  }
  constexpr std::array<std::string_view, 11> kNames = {"finish_task_switch",
                                                       "exit_to_user_mode",
                                                       "exit_to_user_mode_prepare",
                                                       "syscall_exit_to_user_mode",
                                                       "irqentry_exit_to_user_mode",
                                                       "irqentry_exit",
                                                       "__do_softirq",
                                                       "handle_softirqs",
                                                       "do_softirq",
                                                       "__local_bh_enable_ip",
                                                       "preempt_schedule_irq"};
  for (std::string_view n : kNames) {
    if (f == n) return true;
  }
  return false;
}

bool timer_sampled(const EventInfo& e) {
  return e.fell_back || e.name == "cpu-clock" || e.name == "task-clock";
}

bool skid_charged(const FunctionCount& row) {
  if (row.mode != Mode::Kernel || row.samples == 0) return false;
  if (row.peak_samples == 0) return is_irq_enable_point(row.function);  // no peak kept
  const bool concentrated = 2 * row.peak_samples >= row.samples;
  return concentrated && (row.peak_after_irq_enable || is_irq_enable_point(row.function));
}

uint64_t irq_skid_samples(const Histogram& h) {
  uint64_t n = 0;
  for (const FunctionCount& fc : h.rows) {
    if (skid_charged(fc)) n += fc.samples;
  }
  return n;
}

std::string irq_skid_notice(const Histogram& h, const EventInfo& event) {
  if (!timer_sampled(event)) return "";
  const uint64_t total = h.total_samples();
  const double pct = percent_of(irq_skid_samples(h), total);
  if (total == 0 || pct <= kIrqSkidNoticePct) return "";
  return format_fixed(pct, 1) + "% of samples fell at interrupt-enable points " +
         "(*_unlock_irqrestore, finish_task_switch, the return to user mode, ...): " + event.name +
         " cannot interrupt while interrupts are off, so that time is charged where they are " +
         "switched back on, not where it was spent (a hardware cycles event has no such skid)";
}

}  // namespace kprof
