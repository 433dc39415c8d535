#include "report/per_call.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "core/error.h"
#include "report/canonical.h"
#include "report/table.h"
#include "stats/fdr.h"

namespace kprof {
namespace {

// A call's kernel entry, outermost first in a stack: the x86 wrappers the
// syscall table points at, then the SYSCALL_DEFINE bodies they may tail-call.
constexpr std::string_view kEntryPrefixes[] = {"__x64_sys_", "__ia32_sys_", "__se_sys_",
                                               "__do_sys_"};

// The system-call path itself (entry, dispatch, the return to user mode).
bool syscall_path(std::string_view f) {
  return f == "do_syscall_64" || f.starts_with("entry_SYSCALL") || f == "x64_sys_call" ||
         f == "ia32_sys_call" || f == "do_int80_syscall_32" || f == "__do_fast_syscall_32" ||
         f == "do_fast_syscall_32" || f == "entry_SYSENTER_compat";
}

// The counting's own tracepoint handlers (kprof record --syscalls).
bool counting_frame(std::string_view f) {
  return f == "perf_syscall_enter" || f == "perf_syscall_exit" || f == "perf_tp_event";
}

// Calls made fewer times are left out of the text tables (kept in CSV/JSON).
constexpr uint64_t kMinCalls = 100;

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

std::string cost_text(double v, const std::string& unit) {
  return format_fixed(v, v >= 100 ? 0 : 1) + " " + unit;
}

std::string signed_cost(double v, const std::string& unit) {
  const std::string text = (v >= 0 ? "+" : "") + cost_text(v, unit);
  return unit.empty() ? text.substr(0, text.size() - 1) : text;
}

}  // namespace

double PerCallProfile::entry_exit_of(const CallCost& c) const {
  const double shared =
      total_calls ? shared_entry_exit_period / static_cast<double>(total_calls) : 0;
  return (c.calls ? c.entry_exit_period / static_cast<double>(c.calls) : 0) + shared;
}

double PerCallProfile::entry_exit_per_call() const {
  return total_calls ? entry_exit_period / static_cast<double>(total_calls) : 0;
}

std::string syscall_of_stack(const Stacks& stacks, const Stack& stack) {
  for (size_t i = stack.frames.size(); i-- > 0;) {
    const uint32_t id = stack.frames[i];
    if (id >= stacks.frames.size()) continue;
    const Frame& f = stacks.frames[id];
    if (f.mode != Mode::Kernel) continue;
    for (std::string_view p : kEntryPrefixes) {
      if (f.function.starts_with(p) && f.function.size() > p.size()) {
        return canonical_name(f.function.substr(p.size()));
      }
    }
  }
  return "";
}

PerCallProfile per_call_profile(const std::optional<Stacks>& stacks,
                                const std::optional<SyscallCounts>& counts, const EventInfo& event,
                                double seconds, const std::string& path) {
  if (!stacks) {
    throw Error(path + " has no call chains, so samples cannot be charged to system calls: " +
                    "record it with kprof record -g --syscalls",
                2);
  }
  if (!counts) {
    throw Error(path + " has no system-call counts: record it with kprof record -g --syscalls", 2);
  }
  PerCallProfile p;
  p.unit = is_clock_event(event) ? "ns" : event.name.empty() ? "events" : event.name;
  p.seconds = seconds;
  p.total_calls = counts->total();
  std::map<std::string, CallCost> calls;
  std::map<std::string, std::map<std::string, CallFunction>> functions;
  for (const auto& [name, n] : counts->calls) calls[name] = {name, n, 0, 0, {}, 0};
  // The user-side caller (the first user frame: the libc wrapper that made
  // the call), per stack in the path: whose calls its entry/exit work was.
  std::map<std::string, std::set<std::string>> caller_calls;
  std::map<std::string, uint64_t> caller_kernel;  // samples in its calls and their path, by caller
  std::vector<std::pair<std::string, double>> path_samples;  // (caller, period)
  struct Own {
    uint64_t samples = 0;
    double period = 0;
  };
  std::map<std::string, Own> user_by_caller;  // user-mode leaves, by their first user frame
  auto caller_of = [&](const Stack& s) -> std::string {
    for (uint32_t id : s.frames) {
      if (id < stacks->frames.size() && stacks->frames[id].mode == Mode::User) {
        const Frame& f = stacks->frames[id];
        return std::to_string(s.process) + "\n" + std::to_string(f.image) + "\n" + f.function;
      }
    }
    return "";
  };
  for (const Stack& s : stacks->stacks) {
    p.total_samples += s.samples;
    if (s.frames.empty() || s.frames[0] >= stacks->frames.size()) continue;
    const Frame& leaf = stacks->frames[s.frames[0]];
    if (leaf.mode != Mode::Kernel) {
      // Charged below when its function is a wrapper seen making calls.
      Own& own = user_by_caller[caller_of(s)];
      own.samples += s.samples;
      own.period += static_cast<double>(s.period);
      continue;
    }
    bool in_path = false, counting = false;
    for (uint32_t id : s.frames) {
      if (id >= stacks->frames.size()) continue;
      const std::string& f = stacks->frames[id].function;
      in_path |= syscall_path(f);
      counting |= counting_frame(f);
    }
    const std::string call = syscall_of_stack(*stacks, s);
    const double period = static_cast<double>(s.period);
    if (counting && (in_path || !call.empty())) {
      p.counting_samples += s.samples;
      p.counting_period += period;
    } else if (!call.empty() && calls.count(call)) {
      CallCost& c = calls[call];
      c.samples += s.samples;
      c.period += period;
      CallFunction& fn = functions[call][canonical_name(leaf.function)];
      fn.samples += s.samples;
      fn.period += period;
      if (const std::string caller = caller_of(s); !caller.empty()) {
        caller_calls[caller].insert(call);
        caller_kernel[caller] += s.samples;
      }
    } else if (in_path || !call.empty()) {
      // A call not counted (made before counting began) or the path itself.
      p.entry_exit_samples += s.samples;
      p.entry_exit_period += period;
      path_samples.emplace_back(caller_of(s), period);
      caller_kernel[path_samples.back().first] += s.samples;
    } else {
      p.other_kernel_samples += s.samples;
    }
  }
  // Entry/exit work goes to the calls its user-side caller is seen making (a
  // caller making several kinds, syscall(2): in proportion to their counts);
  // a caller never seen inside a call leaves it in the pool shared evenly.
  auto charge = [&](const std::set<std::string>& to, double period) {
    double n = 0;
    for (const std::string& call : to) n += static_cast<double>(calls[call].calls);
    for (const std::string& call : to) {
      calls[call].entry_exit_period += period * static_cast<double>(calls[call].calls) / n;
    }
  };
  for (const auto& [caller, period] : path_samples) {
    const auto it = caller_calls.find(caller);
    if (caller.empty() || it == caller_calls.end()) {
      p.shared_entry_exit_period += period;
    } else {
      charge(it->second, period);
    }
  }
  // A user-mode sample in a wrapper seen making calls is the return's: the
  // timer cannot fire while the way back to user mode has interrupts off,
  // so it fires at the wrapper's first instruction after the syscall. A
  // function with more samples of its own than in the kernel for the calls
  // it makes is not a wrapper (a loop that makes its calls inline): its own
  // stay user time.
  for (const auto& [caller, own] : user_by_caller) {
    const auto it = caller.empty() ? caller_calls.end() : caller_calls.find(caller);
    if (it == caller_calls.end() || own.samples > caller_kernel[caller]) {
      p.user_samples += own.samples;
      continue;
    }
    p.wrapper_samples += own.samples;
    p.entry_exit_samples += own.samples;
    p.entry_exit_period += own.period;
    charge(it->second, own.period);
  }
  for (auto& [name, c] : calls) {
    for (auto& [fname, fn] : functions[name]) {
      fn.function = fname;
      c.functions.push_back(fn);
    }
    std::sort(c.functions.begin(), c.functions.end(), [](const auto& a, const auto& b) {
      return a.period != b.period ? a.period > b.period : a.function < b.function;
    });
    p.calls.push_back(std::move(c));
  }
  std::sort(p.calls.begin(), p.calls.end(), [](const CallCost& a, const CallCost& b) {
    return a.period != b.period ? a.period > b.period : a.name < b.name;
  });
  return p;
}

void write_per_call(std::ostream& out, const PerCallProfile& p, size_t top) {
  const double total = static_cast<double>(std::max<uint64_t>(p.total_samples, 1));
  out << "Cost per system call (" << p.unit << " of " << (p.unit == "ns" ? "CPU time" : p.unit)
      << " under each call's kernel entry, per call; " << format_count(p.total_calls)
      << " calls counted in " << format_fixed(p.seconds, 1) << " s)\n";
  TextTable t({{"system call"},
               {"calls", Align::Right},
               {"calls/s", Align::Right},
               {p.unit + "/call", Align::Right},
               {"95% interval", Align::Right},
               {"+ entry/exit", Align::Right},
               {"samples", Align::Right},
               {"top function under it"}});
  size_t shown = 0;
  for (const CallCost& c : p.calls) {
    if (c.calls < kMinCalls) continue;  // a call made a few times: one sample is its whole "cost"
    if (top && shown == top) break;
    ++shown;
    const double n = static_cast<double>(c.calls);
    const double cost = c.period / n;
    // Poisson on the samples (timer samples spread less: conservative).
    const double per_sample = c.samples ? c.period / static_cast<double>(c.samples) : 0;
    const double half = 1.96 * std::sqrt(static_cast<double>(c.samples)) * per_sample / n;
    t.add_row({c.name, format_count(c.calls), p.seconds > 0 ? format_fixed(n / p.seconds, 0) : "-",
               format_fixed(cost, 1), c.samples ? "±" + format_fixed(half, 1) : "-",
               format_fixed(cost + p.entry_exit_of(c), 1), format_count(c.samples),
               c.functions.empty() ? "-" : c.functions[0].function});
  }
  t.write(out);
  auto share = [&](uint64_t n) { return format_fixed(100.0 * static_cast<double>(n) / total, 1); };
  uint64_t in_calls = 0;
  for (const CallCost& c : p.calls) in_calls += c.samples;
  out << "Samples: " << share(in_calls) << "% under a call's entry; " << share(p.entry_exit_samples)
      << "% in the system-call path outside any entry (entry/exit: "
      << format_fixed(p.entry_exit_per_call(), 1) << " " << p.unit
      << " per call on average; the '+ entry/exit' column charges it to the calls its user-side "
         "caller made, else evenly); "
      << share(p.counting_samples) << "% in the counting's own tracepoint handlers (not charged); "
      << share(p.other_kernel_samples) << "% elsewhere in the kernel (interrupts, faults, kernel "
      << "threads); " << share(p.user_samples) << "% in user space (besides "
      << share(p.wrapper_samples)
      << "% in the calls' libc wrappers, counted as entry/exit: where the return to user mode's "
         "interrupt-disabled time lands)\n";
}

// ---------------------------------------------------------------- across profiles

namespace {

struct Counts {
  std::vector<uint64_t> samples, calls;
  std::vector<double> period;
};

// The change of samples per call, as cost per call in the unit.
CallChange compare(const Counts& base, const Counts& next, stats::NoiseMethod method,
                   double alpha) {
  CallChange c;
  std::vector<double> rate[2];
  stats::RateSample side[2];
  const Counts* in[2] = {&base, &next};
  double cost[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    std::vector<double> costs;
    for (size_t r = 0; r < in[k]->calls.size(); ++r) {
      const double n = static_cast<double>(in[k]->calls[r]);
      if (n <= 0) continue;
      rate[k].push_back(static_cast<double>(in[k]->samples[r]) / n);
      costs.push_back(in[k]->period[r] / n);
      side[k].pooled.events += in[k]->samples[r];
      side[k].pooled.exposure += n;
    }
    side[k].mean = mean(rate[k]);
    side[k].run_rate = rate[k];
    cost[k] = mean(costs);
  }
  c.base = cost[0];
  c.next = cost[1];
  c.tested = side[0].pooled.events + side[1].pooled.events > 0 && side[0].pooled.exposure > 0 &&
             side[1].pooled.exposure > 0;
  if (!c.tested) return c;
  c.change = stats::rate_change({side[0], side[1]}, method, alpha);
  return c;
}

Counts call_counts(const PerCallSide& side, const std::string& call, const std::string* function) {
  Counts c;
  for (const PerCallProfile& run : side.runs) {
    uint64_t samples = 0, calls = 0;
    double period = 0;
    for (const CallCost& cc : run.calls) {
      if (cc.name != call) continue;
      calls = cc.calls;
      if (!function) {
        samples = cc.samples;
        period = cc.period;
      }
      for (const CallFunction& f : cc.functions) {
        if (function && f.function == *function) {
          samples = f.samples;
          period = f.period;
        }
      }
    }
    c.samples.push_back(samples);
    c.calls.push_back(calls);
    c.period.push_back(period);
  }
  return c;
}

// BH over `changes` at alpha; sets q and changed; returns the FCR level.
double select(std::vector<CallChange*>& changes, double alpha) {
  std::vector<double> p;
  p.reserve(changes.size());
  for (CallChange* c : changes) p.push_back(c->change.p);
  const stats::Selection sel = stats::select_at_fdr(p, alpha);
  for (size_t i = 0; i < changes.size(); ++i) {
    changes[i]->q = sel.q[i];
    changes[i]->changed = sel.q[i] <= alpha;
  }
  return sel.level_alpha;
}

}  // namespace

std::vector<PerCallSide> per_call_sides(const DiffInput& in,
                                        const std::vector<std::string>& labels) {
  std::vector<PerCallSide> sides;
  for (size_t s = 0; s < in.sides.size(); ++s) {
    PerCallSide side{s < labels.size() ? labels[s] : in.sides[s].label, {}};
    for (const DiffRun& run : in.sides[s].runs) {
      const double seconds = run.summary ? static_cast<double>(run.summary->duration_ns) / 1e9 : 0;
      side.runs.push_back(
          per_call_profile(run.stacks, run.syscalls, run.run.event, seconds, run.source));
    }
    sides.push_back(std::move(side));
  }
  return sides;
}

bool per_call_recorded(const DiffInput& in) {
  for (const DiffSide& side : in.sides) {
    for (const DiffRun& run : side.runs) {
      if (!run.stacks || !run.syscalls) return false;
    }
  }
  return true;
}

PerCallDiff per_call_diff(const std::vector<PerCallSide>& sides, double alpha) {
  PerCallDiff d;
  d.alpha = alpha;
  bool runs = true;
  for (const PerCallSide& s : sides) {
    d.labels.push_back(s.label);
    runs = runs && s.runs.size() >= 2;
    double ee = 0, counting = 0;
    for (const PerCallProfile& r : s.runs) {
      ee += r.entry_exit_per_call();
      counting += r.total_calls ? r.counting_period / static_cast<double>(r.total_calls) : 0;
    }
    d.entry_exit.push_back(ee / static_cast<double>(s.runs.size()));
    d.counting.push_back(counting / static_cast<double>(s.runs.size()));
  }
  d.unit = sides.empty() || sides[0].runs.empty() ? "" : sides[0].runs[0].unit;
  d.noise = runs ? stats::NoiseMethod::RunVariance : stats::NoiseMethod::Sampling;
  // Calls made on every side, by the base's total cost.
  std::map<std::string, double> base_total;
  for (const PerCallProfile& r : sides[0].runs) {
    for (const CallCost& c : r.calls) base_total[c.name] += c.period;
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [name, total] : base_total) {
    bool everywhere = true;
    for (const PerCallSide& s : sides) {
      const Counts c = call_counts(s, name, nullptr);
      uint64_t calls = 0;
      for (uint64_t n : c.calls) calls += n;
      everywhere = everywhere && calls > 0;
    }
    if (everywhere) order.emplace_back(-total, name);
  }
  std::sort(order.begin(), order.end());
  std::vector<CallChange*> family;
  for (const auto& [neg, name] : order) {
    CallColumn col;
    col.name = name;
    col.vs_base.resize(sides.size());
    col.functions.resize(sides.size());
    col.accounted_pct.resize(sides.size(), 0);
    const Counts base = call_counts(sides[0], name, nullptr);
    for (size_t s = 0; s < sides.size(); ++s) {
      const Counts c = call_counts(sides[s], name, nullptr);
      uint64_t calls = 0;
      for (uint64_t n : c.calls) calls += n;
      col.calls.push_back(calls);
      if (s == 0) continue;
      col.vs_base[s] = compare(base, c, d.noise, alpha);
    }
    d.calls.push_back(std::move(col));
  }
  for (CallColumn& col : d.calls) {
    for (size_t s = 1; s < sides.size(); ++s) {
      if (col.vs_base[s].tested) family.push_back(&col.vs_base[s]);
    }
  }
  d.interval_alpha = select(family, alpha);
  for (CallColumn& col : d.calls) {
    col.cost.push_back(col.vs_base.size() > 1 ? col.vs_base[1].base : 0);
    for (size_t s = 1; s < sides.size(); ++s) {
      CallChange& c = col.vs_base[s];
      // Recompute at the false coverage-rate level, so intervals agree with verdicts.
      const Counts base = call_counts(sides[0], col.name, nullptr);
      const Counts next = call_counts(sides[s], col.name, nullptr);
      const bool changed = c.changed;
      const double q = c.q;
      c = compare(base, next, d.noise, d.interval_alpha);
      c.changed = changed;
      c.q = q;
      col.cost.push_back(c.next);
      if (!changed) continue;
      // The functions under the call: union over both sides.
      std::set<std::string> names;
      for (const PerCallSide* side : {&sides[0], &sides[s]}) {
        for (const PerCallProfile& r : side->runs) {
          for (const CallCost& cc : r.calls) {
            if (cc.name != col.name) continue;
            for (const CallFunction& f : cc.functions) names.insert(f.function);
          }
        }
      }
      std::vector<FunctionChange>& fns = col.functions[s];
      for (const std::string& f : names) {
        FunctionChange fc{f, compare(call_counts(sides[0], col.name, &f),
                                     call_counts(sides[s], col.name, &f), d.noise, alpha)};
        fns.push_back(std::move(fc));
      }
      std::vector<CallChange*> fam;
      for (FunctionChange& f : fns) {
        if (f.cost.tested) fam.push_back(&f.cost);
      }
      select(fam, alpha);
      double moved = 0;
      for (const FunctionChange& f : fns) moved += f.cost.changed ? f.cost.delta() : 0;
      col.accounted_pct[s] = c.delta() != 0 ? 100 * moved / c.delta() : 0;
      std::sort(fns.begin(), fns.end(), [](const FunctionChange& a, const FunctionChange& b) {
        return std::abs(a.cost.delta()) > std::abs(b.cost.delta());
      });
    }
  }
  return d;
}

void write_per_call_diff(std::ostream& out, const PerCallDiff& d, size_t columns) {
  // The calls sampled on some side and made at least kMinCalls times on
  // each (a call made once, sampled once, "costs" a whole sample period);
  // the rest are counted in one line.
  std::vector<const CallColumn*> sampled;
  for (const CallColumn& col : d.calls) {
    bool tested = false;
    for (const CallChange& c : col.vs_base) tested |= c.tested;
    if (tested && *std::min_element(col.calls.begin(), col.calls.end()) >= kMinCalls) {
      sampled.push_back(&col);
    }
  }
  const size_t n = columns ? std::min(columns, sampled.size()) : sampled.size();
  out << "Cost per system call (" << d.unit << " per call under each call's kernel entry; "
      << "entry/exit: the system-call path outside any entry, per call of every kind)\n";
  std::vector<Column> cols = {{"kernel"}};
  for (size_t i = 0; i < n; ++i) cols.push_back({sampled[i]->name + "()", Align::Right});
  cols.push_back({"entry/exit", Align::Right});
  TextTable seed(std::move(cols));
  for (size_t s = 0; s < d.labels.size(); ++s) {
    std::vector<std::string> row = {d.labels[s]};
    for (size_t i = 0; i < n; ++i) row.push_back(format_fixed(sampled[i]->cost[s], 0));
    row.push_back(format_fixed(d.entry_exit[s], 0));
    seed.add_row(std::move(row));
  }
  seed.write(out);
  const bool runs = d.noise == stats::NoiseMethod::RunVariance;
  out << "\nChange per call against " << d.labels[0] << " ("
      << (runs ? "run-to-run variance (Welch on each run's cost)"
               : "sampling statistics: one run a side")
      << "; " << format_fixed(100 * (1 - d.interval_alpha), 2)
      << "% false-coverage intervals, Benjamini–Hochberg at FDR " << format_fixed(100 * d.alpha, 0)
      << "% over every call and side)\n";
  TextTable t({{"system call"},
               {"side"},
               {d.labels[0] + " " + d.unit, Align::Right},
               {"new " + d.unit, Align::Right},
               {"Δ " + d.unit, Align::Right},
               {"ratio", Align::Right},
               {"interval", Align::Right},
               {"verdict"}});
  for (const CallColumn* colp : sampled) {
    const CallColumn& col = *colp;
    for (size_t s = 1; s < d.labels.size(); ++s) {
      const CallChange& c = col.vs_base[s];
      std::string interval = "-";
      if (c.tested && std::isfinite(c.change.lo_pp) && std::isfinite(c.change.hi_pp)) {
        interval = "[" + signed_cost(c.base * c.change.lo_pp / 100, "") + ", " +
                   signed_cost(c.base * c.change.hi_pp / 100, "") + "]";
      }
      t.add_row({col.name, d.labels[s], format_fixed(c.base, 1), format_fixed(c.next, 1),
                 signed_cost(c.delta(), ""), c.base > 0 ? format_fixed(c.next / c.base, 3) : "-",
                 interval,
                 !c.tested   ? "untested"
                 : c.changed ? "changed"
                             : "noise"});
    }
  }
  t.write(out);
  if (sampled.size() < d.calls.size()) {
    out << d.calls.size() - sampled.size()
        << " more calls made on every side were never sampled inside or made under " << kMinCalls
        << " times on some side (too few to judge; every one in --csv/--json)\n";
  }
  for (size_t s = 1; s < d.labels.size(); ++s) {
    const double ee = d.entry_exit[s] - d.entry_exit[0];
    out << d.labels[s] << ": entry/exit " << signed_cost(ee, d.unit) << " per call ("
        << format_fixed(d.entry_exit[0], 0) << " → " << format_fixed(d.entry_exit[s], 0) << ")";
    if (d.counting[0] > 0 || d.counting[s] > 0) {
      out << "; the counting's own cost, not charged: " << format_fixed(d.counting[0], 0) << " / "
          << format_fixed(d.counting[s], 0) << " " << d.unit << " per call";
    }
    out << "\n";
  }
  for (const CallColumn& col : d.calls) {
    for (size_t s = 1; s < d.labels.size(); ++s) {
      const CallChange& c = col.vs_base[s];
      if (!c.changed) continue;
      out << "\n"
          << col.name << "() on " << d.labels[s] << " " << signed_cost(c.delta(), d.unit)
          << " per call: ";
      size_t listed = 0;
      for (const FunctionChange& f : col.functions[s]) {
        if (!f.cost.changed || listed == 6) continue;
        out << (listed++ ? ", " : "") << f.function << " " << signed_cost(f.cost.delta(), d.unit);
      }
      if (listed == 0) out << "no single function's change is beyond noise";
      out << "; accounted for: " << format_fixed(col.accounted_pct[s], 0)
          << "% by the functions marked changed (the rest within noise)\n";
      TextTable ft({{"  function under it"},
                    {d.labels[0], Align::Right},
                    {d.labels[s], Align::Right},
                    {"Δ " + d.unit, Align::Right},
                    {"verdict"}});
      size_t rows = 0;
      for (const FunctionChange& f : col.functions[s]) {
        if (rows++ == 10) break;
        ft.add_row({"  " + f.function, format_fixed(f.cost.base, 1), format_fixed(f.cost.next, 1),
                    signed_cost(f.cost.delta(), ""), f.cost.changed ? "changed" : "noise"});
      }
      ft.write(out);
    }
  }
}

}  // namespace kprof
