// cpu-clock skid: a timer-sampled profile charges interrupt-disabled time to
// where interrupts are switched back on.
//
// Without a hardware PMU kprof samples cpu-clock, an hrtimer whose interrupt
// cannot fire while interrupts are off; the sample lands at the first
// instruction after they are enabled again (spin_unlock_irqrestore,
// finish_task_switch, the return to user mode, the end of softirq work). A
// hardware event sampled through an NMI (cycles) does not have this skid.
//
// A kernel row is charged by skid when its samples are concentrated on one
// address (at least half of them at its peak address) and that address is at
// an interrupt-enable point: the function is a known one, or the kernel text
// just before the address re-enables interrupts (popf, sti: read from
// /proc/kcore when recording, FunctionCount::peak_after_irq_enable). Rows
// without a peak (files written before it was kept, -g profiles) are judged
// by the name alone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model.h"

namespace kprof {

// Whether `function` (a raw or canonical kernel function name) is a known
// interrupt-enable point: *_unlock_irqrestore, *_unlock_irq, *_irq_enable,
// finish_task_switch, the exits to user mode, softirq processing and
// preempt_schedule_irq.
bool is_irq_enable_point(std::string_view function);

// Whether the event is sampled by a timer interrupt that waits while
// interrupts are off (cpu-clock, task-clock, and any fallback to them).
bool timer_sampled(const EventInfo& event);

// Whether `row` is a kernel function charged by skid, as above.
bool skid_charged(const FunctionCount& row);

// Samples of `h`'s rows charged by skid.
uint64_t irq_skid_samples(const Histogram& h);

// Above this share of all samples (in %) the skid is material and said.
constexpr double kIrqSkidNoticePct = 2.0;

// "N% of samples fell at interrupt-enable points (...): ..." for a
// timer-sampled profile where that share is material; "" otherwise.
std::string irq_skid_notice(const Histogram& h, const EventInfo& event);

}  // namespace kprof
