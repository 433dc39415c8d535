// One recording, from setup to Summary.
//
// Construction does what can fail before a profile file exists: resolves
// the event, forks the workload (held before exec), opens the events (with
// the fallbacks of event_set.h), maps the rings and takes the kallsyms and
// modules snapshots (kallsyms_cache.h: from this boot's cache when it is
// valid). So a caller creates its output file only once the
// events are open. run() then writes, through the given ProfileWriter:
//   Meta (RunInfo), Kallsyms (unless this boot's cache holds the snapshot:
//   kallsyms_in_file()), Modules,
//   (then enables the events / releases the workload to exec: an exec
//   failure throws Error("cannot run 'X': ...") here, leaving a file without
//   Records and Summary; callers check the command in PATH first)
//   a Records chunk of what already ran (-a / -p, from /proc), then
//   PerfRecords chunks while recording: each ring's perf records copied as
//   they are, undecoded and uncompressed (perfabi/spool.h; a chunk is flushed
//   past ~256 KiB or every ~1 s), for the caller to decode and compress once
//   recording is over (core/compact.h),
//   Summary.
// Symbolizing reads the records back from the file (quiet-machine speed).
//
// Stopping: the workload's exit; SIGINT/SIGTERM are forwarded to the
// workload (perf's habit) and recording goes on until it exits (a second one
// kills it); with -a / -p and no command, SIGINT/SIGTERM stop recording, as
// does the exit of the -p process. Signals are taken through a signalfd
// (blocked for the Recorder's lifetime, restored after). A write error
// (disk full) terminates the workload (SIGTERM), keeps the chunks already
// written, and throws the writer's Error.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.h"
#include "core/model.h"
#include "core/profile_writer.h"

namespace kprof::collector {

struct RecordOptions {
  std::string event;  // -e; "" = CPU_CLK_UNHALTED (cycles; cpu-clock without a PMU)
  // -e A,B (or -e A -e B): the events sampled beside `event`, each into the
  // same rings (collector/event_set.h: MoreEvent); -c and -F apply to each
  // unless it has its own NAME:PERIOD.
  std::vector<std::string> more_events;
  // -F: samples per second per CPU, when period == 0. 499: an odd rate (so it
  // does not beat with periodic work) below 1000 Hz, because the measured
  // overhead here was 5-30% at 1000 Hz and 30-60% at 4000 Hz.
  uint64_t freq = 499;
  uint64_t period = 0;  // -c (or NAME:PERIOD): events per sample; 0 = use freq
  // A clock event at a rate: its period re-drawn as it samples, so no loop
  // locks in phase with it (collector/period_dither.h); --no-dither: fixed.
  bool dither = true;
  bool system_wide = false;  // -a: every task on every CPU
  pid_t pid = 0;             // -p: an existing process and its threads; 0 = none
  bool callchains = false;   // -g
  // --call-graph dwarf[,SIZE]: bytes of user stack copied with each sample
  // for DWARF unwinding once recording ends (unwind/unwinder.h); 0: frame
  // pointers.
  uint32_t user_stack = 0;
  std::vector<std::string> command;      // the workload; may be empty with -a / -p
  std::map<std::string, double> scores;  // --score NAME=VALUE, stored in RunInfo
  size_t mmap_pages = 0;  // --mmap-pages: data pages per CPU ring (power of two); 0: from the rate
  // Directory of this boot's kallsyms snapshot (kallsyms_cache.h); "" = read
  // /proc/kallsyms every time.
  std::string kallsyms_cache;
  bool progress = false;  // live "N samples" line on stderr (set when stderr is a tty)
  // The machine's fingerprint (collector/environment.h), written right after
  // the Meta chunk; none when absent.
  std::optional<Environment> environment;
  // --syscalls: count every system call the recorded work makes
  // (collector/syscall_counter.h), stored as a SyscallCounts chunk before
  // Summary; where it cannot, a notice and no counts.
  bool syscalls = false;
  std::vector<std::string> syscalls_only;  // --syscalls-only: just these calls (implies syscalls)
  // --score-from [NAME=]REGEX (collector/score_from.h): the workload's stdout
  // passes through kprof, and the score read from it goes in Summary::scores;
  // "" = none (the workload writes to kprof's stdout directly).
  std::string score_from;
  // --off-cpu: also every context switch of the recorded work (and wakeups,
  // where allowed: collector/off_cpu_events.h), for the OffCpu chunk built
  // when recording ends (core/off_cpu_builder.h).
  bool off_cpu = false;
  // --wakers (with off_cpu and callchains): the waking task's kernel stack at
  // every wakeup, so a wait after a wakeup names who woke it.
  bool off_cpu_wakers = false;
  // --off-cpu-freq: the switch stacks' rate (collector/off_cpu_events.h
  // OffCpuOptions::stack_freq; 0: a stack at every switch).
  uint32_t off_cpu_stack_freq = 0;
  // The hex build-id of an image file ("" when none or unreadable), for the
  // mappings of a workload followed in its cgroup, which come from /proc
  // (its events go on once the exec is done) where the kernel's records carry
  // one: a binary rebuilt before it is symbolized is still detected. The CLI
  // passes the symbolizer's reader; unset, those mappings have none.
  std::function<std::string(const std::string& path)> build_id_of;
};

class Recorder {
 public:
  explicit Recorder(const RecordOptions& options);  // throws kprof::Error
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // The /proc/kallsyms and /proc/modules snapshots the recording started with
  // (kallsyms left in this boot's cache: kallsyms_in_file()), for
  // symbolizing once run() returns.
  const std::string& kallsyms() const;
  const std::string& modules() const;
  // Whether kallsyms() came from this boot's cache rather than being read at
  // the start of this recording. Then a sample in kernel text that can change
  // within a boot (KernelSymbols::in_boot_static_text) calls for
  // refresh_kallsyms(): it reads /proc/kallsyms now into kallsyms() and
  // updates the cache (it writes nothing to the profile).
  bool kallsyms_from_cache() const;
  void refresh_kallsyms();
  // Whether run() wrote the whole snapshot into the profile: it does when
  // this boot's cache (RecordOptions::kallsyms_cache) neither held nor could
  // store it. Otherwise the Meta chunk holds RunInfo::boot_id and
  // kallsyms_digest, and the caller writes the lines of kallsyms() the
  // samples need (core/kallsyms_subset.h) as a Kallsyms chunk when
  // recording ends.
  bool kallsyms_in_file() const;
  // Ring reads that met a record header of impossible size (the rest of
  // that read skipped); 0 normally. Records that do not decode are counted
  // when the file is read back (perfabi::load_profile's `damaged`).
  uint64_t damaged_records() const;
  // What --off-cpu recorded (OffCpu::source); "" when it could not (a
  // notice said why) or was not asked for.
  const std::string& off_cpu_source() const;
  // The event that ran (the fallback's, when it fell back); known once
  // constructed.
  const EventInfo& event() const;
  // Whether run() got as far as starting the recording (false when it threw
  // before: e.g. the workload could not exec; the file then holds no records).
  bool started() const;
  // Whether run() threw because the workload could not exec.
  bool exec_failed() const;
  // Records until the stop condition; call once. The perf records go to the
  // file undecoded (PerfRecords chunks, perfabi/spool.h): read them back with
  // perfabi::load_profile(path, ...) once run() returns.
  Summary run(ProfileWriter& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kprof::collector
