// Cost per system call (issue 25): `kprof report --per-call` and `kprof diff
// --per-call`. A -g sample taken inside a system call has the call's kernel
// entry in its stack (__x64_sys_chdir, __do_sys_newuname, ...: the
// outermost frame named __x64_sys_/__ia32_sys_/__se_sys_/__do_sys_ NAME),
// so its period belongs to that call; the calls themselves were counted
// exactly while sampling (kprof record --syscalls: core/syscall_counts.h).
// Cost per call = the periods under the call's entry / its calls: ns for a
// timer event (cpu-clock, task-clock), events (cycles) otherwise.
//
// Samples in the system-call path outside any call's entry (do_syscall_64's
// own work, the return to user mode, with the task work a call left there:
// close's final fput), and user-mode samples in a call's libc wrapper (the
// return's interrupt-disabled time, which a timer can only sample at the
// wrapper's next instruction), are calls' entry and exit: charged to the calls whose
// samples show the same user-side caller (the first user frame: the libc
// wrapper, __close; syscall(2) making several kinds: in proportion to their
// counts); where that caller was never seen inside a call, shared evenly
// over all calls. Samples in the counting's own tracepoint handlers (perf_syscall_enter,
// perf_tp_event under syscall_trace_enter) are the measurement's cost and
// are kept apart, not charged to any call.
//
// Across profiles: a row per side, a column per call; per call and side,
// the change of cost per call against the base with its interval and a
// Benjamini–Hochberg verdict over every (call, side) compared (stats/change.h
// rate_change: sampling statistics with one run a side, run-to-run variance
// with two or more). For each changed call, the functions under its entry
// whose cost per call changed (self samples), which sum to the call's change:
// "accounted for" is the share of the change in functions judged changed.
// Pure functions over loaded profiles; text here, CSV/JSON in export/.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/stacks.h"
#include "core/syscall_counts.h"
#include "report/diff.h"
#include "stats/change.h"

namespace kprof {

// ---------------------------------------------------------------- one profile

struct CallFunction {
  std::string function;  // canonical kernel function (self samples under the call's entry)
  uint64_t samples = 0;
  double period = 0;
};

struct CallCost {
  std::string name;  // "chdir", "newuname"
  uint64_t calls = 0;
  uint64_t samples = 0;                 // under its entry
  double period = 0;                    // their periods summed
  std::vector<CallFunction> functions;  // by period, heaviest first
  // Entry/exit work charged to this call by its user-side caller.
  double entry_exit_period = 0;
};

struct PerCallProfile {
  std::string unit;    // "ns" (timer events), else the event's name ("cycles")
  double seconds = 0;  // the recording's duration, for calls/s
  uint64_t total_samples = 0;
  uint64_t total_calls = 0;     // every call counted, of every kind
  std::vector<CallCost> calls;  // every call counted, by total period, heaviest first
  // In the system-call path outside any call's entry: shared over all calls.
  uint64_t entry_exit_samples = 0;
  double entry_exit_period = 0;
  // In the counting's own tracepoint handlers: not charged to any call.
  uint64_t counting_samples = 0;
  double counting_period = 0;
  // Kernel samples outside the system-call path (interrupts, faults, kernel
  // threads), and user samples: not system-call time.
  uint64_t other_kernel_samples = 0, user_samples = 0;
  // User samples in a libc wrapper seen making calls (its function is a
  // kernel sample's first user frame): the return's interrupt-disabled time,
  // which cpu-clock can only sample at the wrapper's next instruction.
  // Entry/exit work (in entry_exit_samples/_period, charged by caller).
  uint64_t wrapper_samples = 0;
  // Of it, the work whose user-side caller was never seen inside a call:
  // shared evenly over every call.
  double shared_entry_exit_period = 0;
  double entry_exit_per_call() const;  // entry_exit_period / total_calls: the mean
  // A call's entry/exit per call: its own by caller, plus the shared pool's.
  double entry_exit_of(const CallCost& c) const;
};

// Throws kprof::Error (exit status 2) naming what is missing and how to
// record it: no stacks ("record with -g"), no counts ("record with --syscalls").
PerCallProfile per_call_profile(const std::optional<Stacks>& stacks,
                                const std::optional<SyscallCounts>& counts, const EventInfo& event,
                                double seconds, const std::string& path);

// The call a stack is in ("chdir"), or "" when it has no call's entry.
std::string syscall_of_stack(const Stacks& stacks, const Stack& stack);

void write_per_call(std::ostream& out, const PerCallProfile& p, size_t top);

// ---------------------------------------------------------------- across profiles

struct PerCallSide {
  std::string label;
  std::vector<PerCallProfile> runs;  // at least one
};

struct CallChange {
  double base = 0, next = 0;  // cost per call, in the unit (means over runs)
  stats::Change change;       // in % of the base's cost per call
  double q = 1;
  bool tested = false;   // both sides made the call and sampled inside it
  bool changed = false;  // q <= alpha
  double delta() const { return next - base; }
};

struct FunctionChange {
  std::string function;
  CallChange cost;  // per call of its system call
};

struct CallColumn {
  std::string name;
  std::vector<double> cost;         // per side: mean cost per call ("own", under its entry)
  std::vector<uint64_t> calls;      // per side, summed over runs
  std::vector<CallChange> vs_base;  // per side; [0] unused
  // Per side ([0] unused), for a changed call: the functions under it whose
  // cost per call moved, largest |Δ| first, and the share of the call's
  // change in those judged changed.
  std::vector<std::vector<FunctionChange>> functions;
  std::vector<double> accounted_pct;
};

struct PerCallDiff {
  std::vector<std::string> labels;
  std::string unit;
  stats::NoiseMethod noise = stats::NoiseMethod::Sampling;  // RunVariance with >= 2 runs a side
  double alpha = 0.05, interval_alpha = 0.05;
  std::vector<CallColumn> calls;   // made on every side, by the base's total cost
  std::vector<double> entry_exit;  // per side: entry/exit cost per call
  std::vector<double> counting;    // per side: the counting's own cost per call
};

PerCallDiff per_call_diff(const std::vector<PerCallSide>& sides, double alpha);

// The diff's sides as per-call sides, labelled `labels` (else each side's
// label), per_call_profile of every run: throws (exit 2) naming a run
// without stacks or counts.
std::vector<PerCallSide> per_call_sides(const DiffInput& in,
                                        const std::vector<std::string>& labels = {});
// Whether every run of every side has stacks and system-call counts.
bool per_call_recorded(const DiffInput& in);

// The seed's table (a row per side, a column per call, `columns` calls at
// most), then each call's change with its interval and verdict, then per
// changed call its functions.
void write_per_call_diff(std::ostream& out, const PerCallDiff& d, size_t columns);

}  // namespace kprof
