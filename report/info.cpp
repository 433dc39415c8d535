#include "report/info.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/file_layout.h"
#include "core/kallsyms_subset.h"
#include "core/kernel_symbols.h"
#include "report/off_cpu.h"
#include "report/table.h"

namespace kprof {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

size_t count_lines(const std::string& text) {
  size_t n = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

void add_run(TextTable& t, const RunInfo& run) {
  const EventInfo& e = run.event;
  t.add_row({"source:", run.source_format.empty() ? "kprof record" : run.source_format});
  t.add_row({"recorded:", format_utc(run.start_realtime_ns)});
  t.add_row({"event:", describe_event(e)});
  if (!run.more_events.empty()) t.add_row({"also recorded:", describe_more_events(run)});
  t.add_row({"event requested:", e.requested.empty() ? "(default)" : e.requested});
  t.add_row({"event attr:", "type " + std::to_string(e.type) + ", config " + hex(e.config)});
  t.add_row({"sampling:", e.use_freq ? "frequency " + format_count(e.rate) + " Hz"
                                     : "period " + format_count(e.rate) + " events"});
  if (e.dither_pct != 0) {
    t.add_row({"period dither:", "±" + std::to_string(e.dither_pct) +
                                     "%, re-drawn every few samples (no loop locks in phase)"});
  }
  t.add_row({"fell back:", e.fell_back ? "yes: " + e.fallback_reason : "no"});
  t.add_row({"kernel samples:", e.exclude_kernel ? "excluded" : "included"});
  t.add_row({"callchains:", e.user_stack_bytes != 0
                                ? "yes: user stacks unwound by DWARF CFI from " +
                                      std::to_string(e.user_stack_bytes) + "-byte copies"
                                : std::string(yes_no(e.callchains))});
  t.add_row({"target:", run.target.empty() ? "unknown" : run.target});
  t.add_row({"command:", run.command.empty() ? "(none)" : format_command(run.command)});
  t.add_row({"kernel release:", run.kernel_release.empty() ? "unknown" : run.kernel_release});
  t.add_row({"kernel build id:", run.kernel_build_id.empty() ? "unknown" : run.kernel_build_id});
  t.add_row({"host:", run.hostname.empty() ? "unknown" : run.hostname});
  t.add_row({"cpu:", run.cpu_model.empty() ? "unknown" : run.cpu_model});
  t.add_row({"cpus:", std::to_string(run.ncpus)});
  if (run.ring_pages != 0) {
    // Page size 4 KiB: the recording machine's is not stored; x86-64 and most arm64.
    const uint64_t kib = run.ring_pages * 4;
    std::string how =
        run.ring_pages_auto
            ? " (chosen from the sampling rate, for half a second of samples; --mmap-pages sets it)"
            : " (--mmap-pages)";
    t.add_row({"ring buffer:",
               format_count(run.ring_pages) + " pages per CPU (" +
                   (kib >= 1024 ? format_count(kib / 1024) + " MiB" : format_count(kib) + " KiB") +
                   ")" + how});
  }
  t.add_row({"start monotonic:", format_count(run.start_monotonic_ns) + " ns"});
}

void add_summary(TextTable& t, const RunInfo& run, const Summary& s) {
  t.add_row({"duration:", format_seconds(s.duration_ns)});
  t.add_row({"samples:", format_count(s.samples)});
  t.add_row({"lost:", format_count(s.lost) + " (" +
                          format_percent(percent_of(s.lost, s.samples + s.lost)) + "%)"});
  t.add_row({"throttled:", format_count(s.throttled) + " times"});
  t.add_row({"stop reason:", s.stop_reason.empty() ? "unknown" : s.stop_reason});
  std::string exit = describe_exit(s.exit);
  t.add_row({"workload:",
             exit.empty() ? "(none)"
                          : exit + " (shell status " + std::to_string(s.exit.shell_code()) + ")"});
  if (!run.source_format.empty()) return;  // imported: no workload or /proc facts were taken
  t.add_row({"workload time:", "real " + format_fixed(s.real_s, 3) + " s, user " +
                                   format_fixed(s.user_s, 3) + " s, sys " +
                                   format_fixed(s.sys_s, 3) + " s"});
  t.add_row({"kprof cpu time:", "user " + format_fixed(s.kprof_user_s, 3) + " s, sys " +
                                    format_fixed(s.kprof_sys_s, 3) + " s"});
  if (run.stat_before.time_ns == 0 || s.stat_after.time_ns <= run.stat_before.time_ns) {
    t.add_row({"system:", "no /proc/stat snapshots"});
    return;
  }
  ProcStatRates r = rates_between(run.stat_before, s.stat_after);
  t.add_row({"interrupts/s:", format_fixed(r.interrupts_per_s, 0)});
  t.add_row({"ctxsw/s:", format_fixed(r.ctxsw_per_s, 0)});
  t.add_row({"cpu us/sys/idle/iowait:",
             format_fixed(r.user_pct, 1) + "% / " + format_fixed(r.sys_pct, 1) + "% / " +
                 format_fixed(r.idle_pct, 1) + "% / " + format_fixed(r.iowait_pct, 1) + "%"});
}

void add_histogram(TextTable& t, const ProfileHistogram& hist) {
  const Histogram& h = hist.histogram;
  std::set<std::string_view> images;
  std::set<std::pair<uint32_t, std::string_view>> functions;
  for (const FunctionCount& r : h.rows) {
    images.insert(r.image < h.images.size() ? std::string_view(h.images[r.image].name)
                                            : std::string_view("[unknown]"));
    functions.insert({r.image, r.function});
  }
  std::string how = hist.recovered ? " (recovered from records)" : "";
  t.add_row({"histogram samples:", format_count(h.total_samples()) + how});
  t.add_row({"images:", std::to_string(images.size())});
  t.add_row({"functions:", std::to_string(functions.size())});
}

// The machine's fingerprint (core/environment.h), a fact a row.
void add_environment(TextTable& t, const std::optional<Environment>& env) {
  if (!env) {
    t.add_row({"environment:", "not recorded (a file from an older kprof, or an import)"});
    return;
  }
  t.add_row({"kernel config:", env->config.empty() ? env->config_source
                                                   : std::to_string(env->config.size()) +
                                                         " options, from " + env->config_source});
  for (const EnvFact& f : env->facts) {
    t.add_row({f.key + ":", f.available ? f.value : "not available (" + f.source + ")"});
  }
}

// The system calls counted (core/syscall_counts.h): the total, the source,
// and the most made, ten at most.
void add_syscalls(TextTable& t, const std::optional<SyscallCounts>& c) {
  if (!c) {
    t.add_row({"system calls:", "not counted (kprof record --syscalls counts them)"});
    return;
  }
  t.add_row({"system calls:", format_count(c->total()) + " calls of " +
                                  std::to_string(c->calls.size()) + " kinds, counted by " +
                                  c->source});
  std::vector<std::pair<uint64_t, std::string>> most;
  for (const auto& [name, n] : c->calls) most.emplace_back(n, name);
  std::sort(most.begin(), most.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (most.size() > 10) most.resize(10);
  std::string list;
  for (const auto& [n, name] : most)
    list += (list.empty() ? "" : ", ") + name + " " + format_count(n);
  if (!list.empty()) t.add_row({"most made:", list});
}

// The per-thread table (core/thread_counts.h): what it holds, and what reads it.
// A table whose chunk was damaged is said to be so, not to be missing.
void add_threads(TextTable& t, const std::optional<ThreadCounts>& threads,
                 const ReadStatus& status) {
  if (!threads) {
    const bool damaged =
        std::any_of(status.damaged.begin(), status.damaged.end(), [](const DamagedChunk& d) {
          return d.type == static_cast<uint16_t>(ChunkType::ThreadCounts);
        });
    t.add_row({"per thread:", std::string(damaged ? "table damaged (skipped, see status)"
                                                  : "no table (older files, imports of listings)") +
                                  ": --sort tid|cpu, --tid and --cpu read the records"});
    return;
  }
  std::set<uint32_t> tids, cpus;
  for (const CountedThread& th : threads->threads) tids.insert(th.tid);
  for (const ThreadCpuRow& r : threads->rows) cpus.insert(r.cpu);
  t.add_row({"per thread:", format_count(tids.size()) + " threads on " + format_count(cpus.size()) +
                                " CPUs, " + format_count(threads->rows.size()) +
                                " (thread, CPU, function) counts: --sort tid|cpu|comm|pid, "
                                "--tid, --cpu, --comm and --pid read them"});
}

// Off-CPU time (core/off_cpu.h): switches, threads and where the time went.
void add_off_cpu(TextTable& t, const std::optional<OffCpu>& o) {
  if (!o) {
    t.add_row({"off-CPU:", "not recorded (kprof record --off-cpu records it)"});
    return;
  }
  t.add_row({"off-CPU:", format_count(o->switches) + " switches of " +
                             format_count(o->threads.size()) + " threads, " +
                             format_count(o->wakeups) + " wakeups seen; " + o->source});
  if (o->stacks_sampled()) {
    t.add_row({"off-CPU stacks:", format_count(o->stack_samples) + " of the switches, sampled: " +
                                      "the stacks estimate where the time went"});
  }
  if (o->wakeups_sampled) {
    t.add_row({"off-CPU wakeups:", format_count(o->wakeups) +
                                       " sampled: the blocked / run-queue split of the waits "
                                       "without theirs is estimated from the waits with theirs"});
  }
  t.add_row({"thread time:", off_cpu_identity(*o)});
  if (o->lost != 0) {
    t.add_row({"off-CPU lost:", format_count(o->lost) + " records lost: some intervals missing"});
  }
}

}  // namespace

std::string chunk_counts(const ReadStatus& status) {
  std::string s;
  for (const auto& [type, n] : status.chunks) {
    if (!s.empty()) s += ", ";
    s += std::string(chunk_type_name(type)) + " " + std::to_string(n);
  }
  return s;
}

void write_info(std::ostream& out, const Profile& p, const ProfileHistogram& hist,
                const std::string& chunks) {
  TextTable t({{""}, {""}});
  t.add_row({"file:", p.path.empty() ? "<memory>" : p.path});
  t.add_row({"format version:", std::to_string(p.run.format_version)});
  t.add_row({"status:", describe_status(p.status)});
  if (!chunks.empty()) t.add_row({"chunks:", chunks});
  add_run(t, p.run);
  if (p.summary) {
    add_summary(t, p.run, *p.summary);
  } else {
    t.add_row({"summary:", "missing (recording did not end normally)"});
  }
  KernelSymbols ks = KernelSymbols::parse(p.kallsyms, p.modules);
  std::string kallsyms = format_count(ks.size()) + " symbols";
  if (ks.skipped_lines()) kallsyms += ", " + format_count(ks.skipped_lines()) + " lines skipped";
  if (ks.addresses_hidden()) kallsyms += ", addresses hidden (kptr_restrict)";
  if (!p.run.kallsyms_digest.empty()) {  // the snapshot was left in the boot's cache
    const bool from_cache = std::any_of(p.run.notices.begin(), p.run.notices.end(), [](auto& n) {
      return std::string_view(n).starts_with(kBootCacheKallsymsNotice);
    });
    if (from_cache) {
      kallsyms +=
          " (this boot's kallsyms cache: the file was cut short before its own were written)";
    } else if (p.kallsyms.empty()) {
      kallsyms = "none (the file was cut short before its kernel symbols were written)";
    } else {
      kallsyms += " (the functions sampled and their neighbours)";
    }
  }
  t.add_row({"kallsyms:", kallsyms});
  t.add_row({"modules:", format_count(count_lines(p.modules)) + " lines"});
  add_histogram(t, hist);
  add_environment(t, p.environment);
  add_syscalls(t, p.syscalls);
  add_off_cpu(t, p.off_cpu);
  add_threads(t, p.threads, p.status);
  if (p.unwind) t.add_row({"unwinding:", unwind_notice(*p.unwind)});
  for (const auto& [name, value] : p.run.scores) {
    t.add_row({"score " + name + ":", format_fixed(value, 6)});
  }
  for (const std::string& n : run_notices(p.run)) t.add_row({"notice:", n});
  if (!hist.notice.empty()) t.add_row({"notice:", hist.notice});
  t.write(out, false);
}

}  // namespace kprof
