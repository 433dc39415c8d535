// kprof record: option parsing, the order of the steps and what is said at
// the end; the work is in collector/ (recording) and symbolizer/finish.h
// (naming the hit addresses, compacting the file).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/parse.h"
#include "collector/environment.h"
#include "collector/kallsyms_cache.h"
#include "collector/procfs.h"
#include "collector/recorder.h"
#include "collector/workload.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/off_cpu_builder.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "symbolizer/elf_file.h"
#include "symbolizer/finish.h"
#include "unwind/unwinder.h"

namespace kprof::cli {

namespace {

struct Args {
  collector::RecordOptions rec;
  std::string output = "kprof.data";
  std::vector<std::string> scores;  // NAME=VALUE
  bool freq_given = false;
  bool no_kallsyms_cache = false;
  bool keep_stacks = false;   // --keep-stacks
  std::string kernel_config;  // --kernel-config FILE
};

// --call-graph MODE: the user stack bytes to copy (0: frame pointers).
uint32_t parse_call_graph(const std::string& mode) {
  if (mode == "fp") return 0;
  constexpr uint32_t kDefault = 8192, kMax = 65528;  // the kernel's limit: a u16 record, 8-aligned
  if (mode == "dwarf") return kDefault;
  if (mode.starts_with("dwarf,")) {
    const std::string size = mode.substr(6);
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n);
    if (ec == std::errc() && end == size.data() + size.size() && n >= 8 && n <= kMax) {
      return static_cast<uint32_t>((n + 7) / 8 * 8);
    }
    throw CLI::ValidationError("--call-graph", "dwarf,SIZE takes a size in bytes from 8 to " +
                                                   std::to_string(kMax) + ", not '" + size + "'");
  }
  throw CLI::ValidationError("--call-graph", "MODE is fp or dwarf[,SIZE], not '" + mode +
                                                 "' (perf's lbr is not "
                                                 "supported)");
}

void add_options(CLI::App& app, Args& a) {
  app.prefix_command();  // the workload's own options pass through untouched
  app.footer("usage: kprof record [options] [--] CMD [ARGS...]");
  app.add_option_function<std::vector<std::string>>(
         "-e,--event",
         [&a](const std::vector<std::string>& events) {
           a.rec.event = events.front();
           a.rec.more_events.assign(events.begin() + 1, events.end());
         },
         "event to sample: perf or libpfm4 name, NAME:PERIOD, or a tracepoint "
         "SUBSYSTEM:EVENT (sched:sched_switch: every hit a sample) (default "
         "CPU_CLK_UNHALTED; cpu-clock where there is no hardware PMU); several as A,B or "
         "-e A -e B, into one recording: views show the first, or the one --event names")
      ->delimiter(',')
      ->allow_extra_args(false)  // -e A CMD: CMD is the workload, not a second event
      ->type_name("EVENT");
  app.add_option("-c,--count", a.rec.period, "sample every PERIOD events")->check(whole_number(1));
  // Above the kernel's maximum a rate is lowered to it, with a notice
  // (collector/recorder.cpp); below 1 it is an error that names the range.
  const int max_rate = collector::perf_event_max_sample_rate();
  app.add_option("-F,--freq", a.rec.freq, "samples per second per CPU (default 499)")
      ->check(CLI::Validator(
          [max_rate](std::string& text) -> std::string {
            if (whole_number(1).operator()(text).empty()) return "";
            return "must be between 1 and kernel.perf_event_max_sample_rate" +
                   (max_rate > 0 ? " (" + std::to_string(max_rate) + ")" : std::string()) +
                   ", not '" + text + "'";
          },
          "HZ"))
      ->each([&a](const std::string&) { a.freq_given = true; });
  app.add_flag_function(
      "--no-dither", [&a](int64_t) { a.rec.dither = false; },
      "keep a clock event's period fixed, as perf does (by default kprof re-draws it within "
      "±50% every few samples, so no loop locks in phase with the timer)");
  app.add_flag("-a,--all-cpus", a.rec.system_wide, "every process on every CPU");
  app.add_option("-p,--pid", a.rec.pid, "an existing process and its threads")
      ->check(CLI::PositiveNumber);
  app.add_flag("-g", a.rec.callchains, "record call chains (frame pointers: --call-graph fp)");
  app.add_option_function<std::string>(
         "--call-graph",
         [&a](const std::string& mode) {
           a.rec.callchains = true;
           a.rec.user_stack = parse_call_graph(mode);
         },
         "fp: call chains by frame pointers (-g); dwarf[,SIZE]: copy SIZE bytes of user stack "
         "(default 8192, at most 65528) with each sample and unwind them with DWARF CFI once "
         "recording ends, for code built without frame pointers")
      ->type_name("MODE");
  app.add_flag("--keep-stacks", a.keep_stacks,
               "--call-graph dwarf: keep the stack copies in the profile (compressed, still "
               "far larger) so kprof symbolize can unwind them again later (e.g. once debug files "
               "are installed)");
  app.add_flag("--syscalls", a.rec.syscalls,
               "count every system call the recorded work makes (tracepoints; adds ~150-200 ns "
               "a call: bench/syscall_counts.sh), for kprof report/diff --per-call");
  app.add_option(
         "--syscalls-only", a.rec.syscalls_only,
         "count only these system calls (NAME,...: chdir,openat; implies --syscalls): a few "
         "events instead of ~360 are far quicker to open and close, and to clone into "
         "every thread the work starts; the entry/exit work is shared over the calls "
         "counted")
      ->delimiter(',');
  app.add_flag("--off-cpu", a.rec.off_cpu,
               "also record every context switch of the recorded work (and wakeups, as root): "
               "time blocked and waiting to run, per stack (kernel frames; with -g user "
               "frames too), for kprof report/diff --off-cpu");
  app.add_option("--off-cpu-freq", a.rec.off_cpu_stack_freq,
                 "with --off-cpu, for switch storms: a thread's stack at about this many of its "
                 "switches a second, and a wakeup at about as many a second per CPU (the "
                 "kernel's frequency mode), not at every one; each stack then stands for the "
                 "switches since the last, and a wait without its wakeup is split as the waits "
                 "with theirs, so the stacks and the blocked / run-queue split become an "
                 "estimate (a thread switching in bursts gets some sampled too) while the times "
                 "on and off CPU still come from every switch. In a storm of 100k+ switches a "
                 "second this cost 45% of its speed where every switch cost 71% "
                 "(bench/off_cpu.sh). Default 0: every switch and wakeup")
      ->check(CLI::Range(0u, 1'000'000u));
  app.add_flag("--wakers", a.rec.off_cpu_wakers,
               "with --off-cpu -g: also the waking task's kernel stack at every wakeup; the "
               "wait to run after a wakeup is charged to the woken stack, then [woken by], "
               "then the waker's (bench/off_cpu.sh measures its cost)");
  app.add_option("--kernel-config", a.kernel_config,
                 "the running kernel's .config, recorded with the machine's other facts (default: "
                 "/proc/config.gz, else /boot/config-RELEASE)");
  app.add_option("-o,--output", a.output, "profile to write (default kprof.data)");
  app.add_option("--score", a.scores,
                 "work score of this run, NAME=VALUE (higher is better); repeatable");
  app.add_option("--score-from", a.rec.score_from,
                 "read the run's score from the workload's stdout (passed through): the last "
                 "line matching REGEX, its first group or first number, e.g. 'tps = ([0-9.]+)'; "
                 "NAME=REGEX names it (default 'score')")
      ->type_name("[NAME=]REGEX");
  app.add_option("--mmap-pages", a.rec.mmap_pages,
                 "ring buffer data pages per CPU (power of 2; default: from -F, so that half a "
                 "second of samples fits, at least 128; kprof info shows what was used)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-kallsyms-cache", a.no_kallsyms_cache,
               "read /proc/kallsyms now instead of this boot's cached snapshot "
               "($XDG_CACHE_HOME/kprof or ~/.cache/kprof)");
}

std::map<std::string, double> parse_scores(const std::vector<std::string>& scores) {
  std::map<std::string, double> out;
  for (const std::string& s : scores) {
    size_t eq = s.find('=');
    double v = 0;
    const char* end = s.data() + s.size();
    auto [p, ec] = eq == std::string::npos
                       ? std::from_chars_result{nullptr, std::errc::invalid_argument}
                       : std::from_chars(s.data() + eq + 1, end, v);
    if (eq == 0 || ec != std::errc() || p != end) {
      throw Error("--score '" + s + "' is not NAME=VALUE (e.g. --score tps=1234.5)");
    }
    out[s.substr(0, eq)] = v;
  }
  return out;
}

void validate(Args& a) {
  auto& r = a.rec;
  if (r.command.empty() && !r.system_wide && r.pid == 0) {
    throw Error("nothing to record: give a command (kprof record -- CMD ...), -a or -p PID");
  }
  if (r.period != 0 && a.freq_given) throw Error("-c and -F both set the sampling rate; use one");
  if (a.keep_stacks && r.user_stack == 0) {
    throw Error("--keep-stacks keeps the stack copies of --call-graph dwarf: record with it", 2);
  }
  if (r.system_wide && r.pid != 0) throw Error("-a and -p exclude each other; use one");
  if (r.pid != 0 && !r.command.empty()) {
    throw Error("-p attaches to a running process; drop the command or drop -p");
  }
  if ((r.mmap_pages & (r.mmap_pages - 1)) != 0) {
    throw Error("--mmap-pages " + std::to_string(r.mmap_pages) + " is not a power of two");
  }
  if (!r.command.empty() && collector::find_in_path(r.command[0]).empty()) {
    // PATH is searched only for a name without a slash.
    const bool path = r.command[0].find('/') != std::string::npos;
    throw Error("cannot run '" + r.command[0] + "': No such file or directory" +
                (path ? "" : " (not in PATH)"));
  }
  // Refused before FILE.old is made: moving a link or a directory aside and
  // writing a profile in its place is never what -o meant.
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(a.output, ec);
  if (st.type() == std::filesystem::file_type::symlink) {
    throw Error(a.output + " is a symbolic link; kprof does not write through links (give -o " +
                "the real path, or remove the link)");
  }
  if (st.type() == std::filesystem::file_type::directory) {
    throw Error(a.output + " is a directory; give -o a file path (e.g. -o " +
                (std::filesystem::path(a.output) / "kprof.data").string() + ")");
  }
  if (std::filesystem::exists(st) && st.type() != std::filesystem::file_type::regular) {
    throw Error(a.output + " exists and is not a regular file; give -o a file path");
  }
  std::filesystem::path dir = std::filesystem::path(a.output).parent_path();
  if (dir.empty()) dir = ".";
  if (::access(dir.c_str(), W_OK) != 0) {
    throw Error(
        errno_message("cannot write " + a.output + " (directory " + dir.string() + ")", errno));
  }
  r.scores = parse_scores(a.scores);
}

// perf's habit: an existing profile becomes FILE.old instead of being lost.
void move_aside(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return;
  std::filesystem::rename(path, path + ".old", ec);
  if (ec) throw Error("cannot move " + path + " to " + path + ".old: " + ec.message());
}

void undo_create(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (std::filesystem::exists(path + ".old", ec)) std::filesystem::rename(path + ".old", path, ec);
}

// The snapshot the recording started with; one from this boot's cache is
// read again if a sample lies in kernel text it may predate.
KernelSnapshot kernel_snapshot(collector::Recorder& rec) {
  KernelSnapshot k{
      .kallsyms = rec.kallsyms(), .modules = rec.modules(), .in_file = rec.kallsyms_in_file()};
  if (rec.kallsyms_from_cache()) {
    k.refresh = [&rec]() -> std::string_view {
      rec.refresh_kallsyms();
      return rec.kallsyms();
    };
  }
  return k;
}

void report_end(const Summary& s, const std::string& path, uint64_t bytes, uint64_t damaged) {
  if (damaged != 0) {
    std::fprintf(stderr, "kprof: %llu perf records did not decode and were skipped\n",
                 static_cast<unsigned long long>(damaged));
  }
  std::fprintf(
      stderr, "[ kprof record: %llu samples (%llu lost) in %.1f s, %llu KB written to %s ]\n",
      static_cast<unsigned long long>(s.samples), static_cast<unsigned long long>(s.lost),
      s.duration_ns / 1e9, static_cast<unsigned long long>((bytes + 1023) / 1024), path.c_str());
  if (s.throttled != 0) {
    std::fprintf(stderr,
                 "kprof: the kernel paused sampling %llu times (its interrupts came too fast "
                 "for this machine); record with a lower -F\n",
                 static_cast<unsigned long long>(s.throttled));
  }
  if (s.lost * 100 > s.samples + s.lost) {  // over 1%
    std::fprintf(stderr,
                 "kprof: %.1f%% of the samples were lost (kprof could not keep up); record with "
                 "a lower -F or a larger --mmap-pages\n",
                 100.0 * static_cast<double>(s.lost) / static_cast<double>(s.samples + s.lost));
  }
  if (s.exit.kind == ExitStatus::Kind::Signaled) {
    const char* abbrev = sigabbrev_np(s.exit.value);
    std::fprintf(stderr, "kprof: workload killed by signal %d (SIG%s)\n", s.exit.value,
                 abbrev != nullptr ? abbrev : "?");
  }
}

// The closing line of --off-cpu: switches, and the time on and off CPU;
// where a thread switched as in a storm with a stack at every switch, a
// hint at --off-cpu-freq.
void report_off_cpu_end(const OffCpu& o, bool sampled) {
  std::fprintf(stderr,
               "[ kprof record: off-CPU: %llu switches, %zu threads: on-CPU %.1f ms, blocked %.1f "
               "ms, run queue %.1f ms ]\n",
               static_cast<unsigned long long>(o.switches), o.threads.size(), o.on_ns() / 1e6,
               o.blocked_ns() / 1e6, o.runq_ns() / 1e6);
  constexpr double kStormPerSecond = 10'000;
  double most = 0;
  for (const OffCpuThread& t : o.threads) {
    if (t.wall_ns() >= 100'000'000) {  // 0.1 s at least: a rate, not a burst
      most =
          std::max(most, static_cast<double>(t.switches) * 1e9 / static_cast<double>(t.wall_ns()));
    }
  }
  if (!sampled && most >= kStormPerSecond) {
    std::fprintf(stderr,
                 "kprof: a thread switched %.0f times a second: taking a stack at every switch "
                 "slowed such a storm most (bench/off_cpu.sh); --off-cpu-freq 1000 samples the "
                 "stacks and wakeups instead\n",
                 most);
  }
  if (o.lost != 0) {
    std::fprintf(stderr,
                 "kprof: %llu records were lost: some off-CPU intervals are missing (a larger "
                 "--mmap-pages)\n",
                 static_cast<unsigned long long>(o.lost));
  }
}

}  // namespace

int cmd_record(int argc, char** argv) {
  CLI::App app{"Sample a workload, a process (-p) or the whole system (-a) into a profile."};
  Args a;
  add_options(app, a);
  if (auto code = parse_args(app, argc, argv)) return *code;
  a.rec.command = app.remaining();
  // The workload starts at the first word kprof does not know: one that
  // looks like an option there, before any "--", is a mistyped option of
  // kprof's, not a program to run.
  if (!a.rec.command.empty() && a.rec.command.front().size() > 1 &&
      a.rec.command.front()[0] == '-' && a.rec.command.front() != "--") {
    throw Error("unknown option '" + a.rec.command.front() +
                    "' (try kprof record --help; the workload and its own options follow --)",
                2);
  }
  if (!a.rec.command.empty() && a.rec.command.front() == "--")
    a.rec.command.erase(a.rec.command.begin());
  validate(a);
  a.rec.progress = ::isatty(STDERR_FILENO) != 0;
  if (!a.no_kallsyms_cache) a.rec.kallsyms_cache = collector::KallsymsCache::default_dir();

  // What differs besides the kernel's code (collector/environment.h).
  a.rec.environment = collector::read_environment({.kernel_config = a.kernel_config});
  if (std::string n = collector::config_notice(*a.rec.environment); !n.empty()) {
    std::fprintf(stderr, "kprof: %s\n", n.c_str());
  }
  a.rec.build_id_of = symbolizer::file_build_id;
  collector::Recorder rec(a.rec);  // events open, workload ready: now the file
  move_aside(a.output);
  ProfileWriter writer = ProfileWriter::create(a.output);
  Summary summary;
  try {
    summary = rec.run(writer);
  } catch (const Error& e) {
    if (rec.exec_failed()) {
      undo_create(a.output);  // nothing recorded: keep the old file
      throw;
    }
    if (!rec.started()) {
      // A write failed before any sample (disk full in the kallsyms snapshot):
      // the new file holds nothing, so the previous profile goes back in place.
      undo_create(a.output);
      throw Error(std::string(e.what()).substr(0, std::string(e.what()).find(" (")) +
                  ": nothing was recorded; " + a.output + " is left as it was before");
    }
    throw;
  }
  // The perf records, decoded now that the events are off (perfabi/spool.h).
  const uint32_t self = a.rec.system_wide ? static_cast<uint32_t>(::getpid()) : 0;
  AddressAggregator agg(a.rec.callchains);
  agg.leave_out(self);  // RunInfo::recorder_pid
  agg.count_threads();  // the profile's ThreadCounts (--sort tid|cpu, --tid, --cpu)
  OffCpuBuilder off_cpu(self);
  TeeSink both(agg, off_cpu);
  const bool with_off_cpu = !rec.off_cpu_source().empty();
  if (with_off_cpu && is_clock_event(rec.event())) agg.weigh_by_cpu_time();
  uint64_t undecoded = 0;  // records the kernel wrote that do not parse
  RecordSink* sink = with_off_cpu ? static_cast<RecordSink*>(&both) : &agg;
  // --call-graph dwarf: the user stacks unwound on their way in (unwind/unwinder.h).
  std::optional<unwind::Unwinder> unwinder;
  if (a.rec.user_stack != 0) sink = &unwinder.emplace(*sink, a.rec.user_stack);
  const Profile recorded = perfabi::load_profile(a.output, {.records = sink}, &undecoded);
  // Named while the binaries surely exist, on this boot (symbolizer/finish.h).
  FinishOptions finish{.this_boot = true};
  if (unwinder) {
    finish.unwind = &unwinder->stats();
    finish.perf_records = &unwinder->replay();
    finish.keep_perf_records = a.keep_stacks;
  }
  std::optional<OffCpuCounts> off_counts;  // emplaced: no move assignment of the counts
  if (with_off_cpu) {
    off_counts.emplace(std::move(off_cpu).finish());
    finish.off_cpu = &*off_counts;
    finish.off_cpu_tick_ns = off_cpu_tick_ns(recorded.run.event);
    finish.sampled_is_ns = is_clock_event(recorded.run.event);
    finish.off_cpu_source = rec.off_cpu_source();
  }
  const FinishedProfile done =
      finish_profile(std::move(writer), agg.counts(), kernel_snapshot(rec), finish);
  for (const std::string& m : done.messages) std::fprintf(stderr, "kprof: %s\n", m.c_str());
  if (unwinder) {
    if (const std::string n = unwind_notice(unwinder->stats()); !n.empty()) {
      std::fprintf(stderr, "kprof: %s\n", n.c_str());
    }
  }
  if (agg.counts().left_out != 0) {
    std::fprintf(stderr,
                 "kprof: %llu samples of kprof's own process (reading the rings) left out\n",
                 static_cast<unsigned long long>(agg.counts().left_out));
  }
  report_end(summary, a.output, done.bytes, rec.damaged_records() + undecoded);
  if (done.off_cpu) report_off_cpu_end(*done.off_cpu, a.rec.off_cpu_stack_freq != 0);
  return summary.exit.shell_code();
}

}  // namespace kprof::cli
