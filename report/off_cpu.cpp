#include "report/off_cpu.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "report/table.h"

namespace kprof {

namespace {

std::string ms(uint64_t ns) {
  return format_fixed(static_cast<double>(ns) / 1e6, 1) + " ms";
}

double share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

uint64_t sampled_total(const OffCpu& o) {
  uint64_t n = 0;
  for (const OffCpuThread& t : o.threads) n += t.sampled;
  return n;
}

}  // namespace

Profile off_cpu_profile(Profile p, const std::string& file) {
  if (!p.off_cpu) {
    throw Error(file + " has no off-CPU time: record it with kprof record --off-cpu", 2);
  }
  p.stacks = p.off_cpu->stacks;
  p.histogram.reset();
  p.counted.reset();
  p.run.event.name = "off-cpu";
  p.run.event.requested = "off-cpu";
  p.run.event.callchains = true;
  p.run.event.fell_back = false;
  p.run.event.use_freq = false;
  p.run.event.rate = p.off_cpu->tick_ns;
  if (p.summary) {
    p.summary->samples = p.off_cpu->stacks.total_samples();
    p.summary->lost = p.off_cpu->lost;
  }
  return p;
}

std::string off_cpu_identity(const OffCpu& o) {
  const uint64_t on = o.on_ns(), blocked = o.blocked_ns(), runq = o.runq_ns(), wall = o.wall_ns();
  std::string s = "on-CPU " + ms(on) + " + blocked " + ms(blocked) + " + run queue " + ms(runq) +
                  " = " + ms(on + blocked + runq) + " of " + ms(wall) + " wall (" +
                  format_fixed(share(on + blocked + runq, wall), 2) + "%), " +
                  format_count(o.threads.size()) + " threads";
  if (o.sampled_is_ns) s += "; sampled on-CPU " + ms(sampled_total(o));
  return s;
}

void write_off_cpu_summary(std::ostream& out, const OffCpu& o, size_t top) {
  out << "Off-CPU time: each sample below is " << ms(o.tick_ns)
      << " of a thread's time off CPU (the sampling period), charged to the stack it left the "
         "CPU in, under [blocked] (asleep, waiting for I/O or a lock) or [run queue] "
         "(runnable, waiting for a CPU)\n";
  out << "Threads: " << off_cpu_identity(o) << "\n";
  if (o.stacks_sampled()) {
    out << "(stacks sampled, record --off-cpu-freq: " << o.stack_samples << " of " << o.switches
        << " switches had theirs, each standing for its thread's switches since the last; the "
           "threads' times on and off CPU are exact, the table below an estimate)\n";
  }
  if (o.wakeups_sampled) {
    out << "(wakeups sampled, record --off-cpu-freq: " << o.wakeups
        << " seen; a wait whose wakeup was not is split between blocked and run queue as the "
           "thread's waits with theirs were: each thread's off-CPU time is exact, its split an "
           "estimate)\n";
  }
  if (o.source.find("wakeups") == std::string::npos) {
    out << "(no wakeups recorded: a blocked thread's wait for a CPU after its wakeup counts as "
           "blocked)\n";
  }
  std::vector<const OffCpuThread*> threads;
  for (const OffCpuThread& t : o.threads) threads.push_back(&t);
  std::sort(threads.begin(), threads.end(), [](const auto* a, const auto* b) {
    return a->wall_ns() != b->wall_ns() ? a->wall_ns() > b->wall_ns() : a->tid < b->tid;
  });
  const size_t shown = top == 0 ? threads.size() : std::min(top, threads.size());
  TextTable t({{"tid", Align::Right},
               {"thread"},
               {"wall ms", Align::Right},
               {"on-CPU%", Align::Right},
               {"blocked%", Align::Right},
               {"run queue%", Align::Right},
               {"sum%", Align::Right},
               {"switches", Align::Right},
               {o.sampled_is_ns ? "sampled on-CPU ms" : "", Align::Right}});
  for (size_t i = 0; i < shown; ++i) {
    const OffCpuThread& th = *threads[i];
    const uint64_t wall = th.wall_ns();
    t.add_row({std::to_string(th.tid), th.comm.empty() ? "?" : th.comm,
               format_fixed(static_cast<double>(wall) / 1e6, 1),
               format_fixed(share(th.on_ns, wall), 1), format_fixed(share(th.blocked_ns, wall), 1),
               format_fixed(share(th.runq_ns, wall), 1),
               format_fixed(share(th.on_ns + th.blocked_ns + th.runq_ns, wall), 2),
               format_count(th.switches),
               o.sampled_is_ns ? format_fixed(static_cast<double>(th.sampled) / 1e6, 1) : ""});
  }
  t.write(out);
  if (shown < threads.size()) {
    out << "… " << threads.size() - shown << " more threads (--top 0 shows all)\n";
  }
  if (o.lost != 0) {
    out << format_count(o.lost)
        << " records were lost while recording: some off-CPU intervals are missing or merged\n";
  }
  out << "\n";
}

void write_off_cpu_comparison(std::ostream& out, const std::vector<OffCpuSide>& sides) {
  out << "Off-CPU time (threads' wall time: on a CPU, blocked, waiting on the run queue):\n";
  TextTable t({{"kernel"},
               {"runs", Align::Right},
               {"threads", Align::Right},
               {"on-CPU%", Align::Right},
               {"blocked%", Align::Right},
               {"run queue%", Align::Right},
               {"blocked ms", Align::Right},
               {"run queue ms", Align::Right},
               {"switches", Align::Right}});
  bool several = false;
  for (const OffCpuSide& s : sides) {
    uint64_t threads = 0, on = 0, blocked = 0, runq = 0, wall = 0, switches = 0;
    for (const OffCpu* o : s.runs) {
      threads += o->threads.size();
      on += o->on_ns();
      blocked += o->blocked_ns();
      runq += o->runq_ns();
      wall += o->wall_ns();
      switches += o->switches;
    }
    const double n = static_cast<double>(std::max<size_t>(s.runs.size(), 1));
    several |= s.runs.size() > 1;
    t.add_row(
        {s.name, format_count(s.runs.size()),
         format_fixed(static_cast<double>(threads) / n, s.runs.size() > 1 ? 1 : 0),
         format_fixed(share(on, wall), 1), format_fixed(share(blocked, wall), 1),
         format_fixed(share(runq, wall), 1),
         format_fixed(static_cast<double>(blocked) / 1e6 / n, 1),
         format_fixed(static_cast<double>(runq) / 1e6 / n, 1),
         format_count(static_cast<uint64_t>(std::llround(static_cast<double>(switches) / n)))});
  }
  t.write(out);
  if (several) out << "(threads, ms and switches: per run, the mean over the kernel's runs)\n";
  out << "(kprof diff --off-cpu: the matched diff of off-CPU time per function and stack)\n\n";
}

}  // namespace kprof
