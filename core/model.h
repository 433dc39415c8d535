// The profile model: passive structs shared by collector, symbolizer and
// report. No Linux or libdw dependency. Everything here round-trips through
// the file format (chunk_codecs.h); fields added later must get defaults so
// older files still load.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// ---------------------------------------------------------------- run facts

// What was asked for and what really ran.
struct EventInfo {
  std::string requested;        // as typed: "CPU_CLK_UNHALTED:100000", "cycles", ""
  std::string name;             // what ran: "cycles", "cpu-clock", "amd64_fam17h::CYCLES..."
  uint32_t type = 0;            // perf_event_attr.type
  uint64_t config = 0;          // perf_event_attr.config
  bool use_freq = true;         // true: `rate` is samples/s; false: `rate` is a period
  uint64_t rate = 0;            // frequency in Hz or period in events
  bool fell_back = false;       // hardware event could not open; cpu-clock ran instead
  std::string fallback_reason;  // "no hardware PMU (ENOENT opening cycles)"
  bool exclude_kernel = false;  // kernel samples not allowed (paranoid), see notices
  bool callchains = false;      // -g
  // --call-graph dwarf: bytes of user stack copied with each sample, whose
  // user part of the stack was unwound from that copy (unwind/unwinder.h);
  // 0: frame pointers (or no stacks).
  uint32_t user_stack_bytes = 0;
  // A clock event at a rate whose period kprof re-drew within ±dither_pct%
  // as it sampled (collector/period_dither.h); 0: a fixed period, as perf's.
  uint32_t dither_pct = 0;
  auto operator<=>(const EventInfo&) const = default;
};
// Whether the event counts time (cpu-clock, task-clock): its periods are ns.
bool is_clock_event(const EventInfo& event);

// /proc/stat totals at one instant.
struct ProcStat {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC when read
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
           steal = 0;  // aggregate "cpu" line, in USER_HZ ticks
  uint64_t intr = 0;   // "intr" first number: interrupts since boot
  uint64_t ctxt = 0;   // context switches since boot
  auto operator<=>(const ProcStat&) const = default;
};

// Rates between two ProcStat snapshots.
struct ProcStatRates {
  double interrupts_per_s = 0, ctxsw_per_s = 0;
  double user_pct = 0, sys_pct = 0, idle_pct = 0,
         iowait_pct = 0;  // us includes nice; sys includes irq+softirq
};
ProcStatRates rates_between(const ProcStat& before, const ProcStat& after);

// Written at the start of recording.
struct RunInfo {
  uint32_t format_version = 0;  // filled by the reader
  EventInfo event;
  std::string target;                // "command", "system-wide", "pid 1234"
  std::vector<std::string> command;  // workload argv (empty for -a / -p)
  std::string kernel_release;        // uname -r
  std::string kernel_build_id;       // hex, from /sys/kernel/notes; "" if unknown
  std::string hostname;
  std::string cpu_model;
  uint32_t ncpus = 0;
  uint64_t start_realtime_ns = 0;   // wall clock, for display
  uint64_t start_monotonic_ns = 0;  // perf timestamps use CLOCK_MONOTONIC
  ProcStat stat_before;
  std::vector<std::string> notices;      // one-line notices shown by report (fallback, paranoid...)
  std::map<std::string, double> scores;  // --score NAME=VALUE (higher is better)
  // Where the profile came from: "" (kprof record), "perf.data" (imported:
  // importer/import.h), "opreport" or "perf report" (a pasted listing).
  std::string source_format;
  // false for a listing of shares only: each row's samples is its share in
  // millionths, not a count, so no sampling statistics apply.
  bool sample_counts = true;
  // /proc/sys/kernel/random/boot_id of the recording ("" when unknown).
  std::string boot_id;
  // kallsyms_digest() (core/kallsyms_subset.h) of the kallsyms snapshot the
  // recording started with, when that snapshot was left in this boot's cache
  // (collector/kallsyms_cache.h) instead of the file: the file then gets
  // only the lines its samples need when recording ends, and a file cut
  // short before that is named from the cache on this boot. "" when the
  // full snapshot is in the file.
  std::string kallsyms_digest;
  // Data pages of each CPU's ring buffer (0: not recorded), and whether kprof
  // chose them from the rate (collector/event_set.h: auto_ring_pages) rather
  // than --mmap-pages.
  uint64_t ring_pages = 0;
  bool ring_pages_auto = false;
  // -a: kprof's own process, whose samples (reading the rings, writing the
  // file) are left out of the profile; 0 when none were (workload, -p).
  uint32_t recorder_pid = 0;
  // kprof record -e A,B: the events sampled beside `event` (the first), in
  // the order asked for; their samples are SampleKind::Event in the records.
  std::vector<EventInfo> more_events;
  auto operator<=>(const RunInfo&) const = default;
};

// How the workload ended.
struct ExitStatus {
  enum class Kind : uint8_t { None = 0, Exited = 1, Signaled = 2 };  // None: -a / -p
  Kind kind = Kind::None;
  int value = 0;  // exit code or signal number
  // Shell convention: exit code, or 128+signal.
  int shell_code() const { return kind == Kind::Signaled ? 128 + value : value; }
  auto operator<=>(const ExitStatus&) const = default;
};

// Written when recording ends.
struct Summary {
  uint64_t duration_ns = 0;  // wall time of the recording
  uint64_t samples = 0;      // sample records written
  uint64_t lost = 0;         // PERF_RECORD_LOST + LOST_SAMPLES
  ExitStatus exit;
  double real_s = 0, user_s = 0, sys_s = 0;  // workload rusage (children)
  double kprof_user_s = 0, kprof_sys_s = 0;  // kprof's own CPU time
  std::string stop_reason;                   // "workload exited", "SIGINT", "disk full: ..."
  ProcStat stat_after;
  // PERF_RECORD_THROTTLE: times the kernel stopped an event's sampling until
  // the next tick because its interrupts came too fast (the rate is too high
  // for this machine); samples not taken then are not counted as lost.
  uint64_t throttled = 0;
  // Work scores read from the workload's output (kprof record --score-from),
  // known only when it ends; the reader adds them to RunInfo::scores (a
  // --score given at record time wins).
  std::map<std::string, double> scores;
  auto operator<=>(const Summary&) const = default;
};

// ---------------------------------------------------------------- records

enum class Mode : uint8_t {
  User = 0,
  Kernel = 1,
  Hypervisor = 2,
  GuestKernel = 3,
  GuestUser = 4,
  Unknown = 5
};
const char* mode_name(Mode m);  // "user", "kernel", ...

// What a sample stands for. A recording with --off-cpu writes, beside the
// sampling event's samples, one per context switch out of a recorded task
// (its stack where it left the CPU) and one per wakeup
// (collector/off_cpu_events.h): views of CPU time count Cpu samples only.
// A recording of several events (kprof record -e A,B) writes the first
// one's samples as Cpu and the others' as Event, with Sample::event saying
// which (1: RunInfo::more_events[0], ...): every view counts the first event
// unless it is asked for another (core/sample_selection.h: --event).
enum class SampleKind : uint8_t { Cpu = 0, SwitchOut = 1, Wakeup = 2, Event = 3 };

struct Sample {
  uint64_t time = 0;  // perf timestamp (CLOCK_MONOTONIC ns)
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0, cpu = 0;
  Mode mode = Mode::Unknown;
  uint64_t period = 0;  // events this sample stands for
  // -g only: ips, leaf first (callchain[0] is normally `ip` itself), perf's
  // PERF_CONTEXT_* markers removed. The first `kernel_frames` entries were
  // under PERF_CONTEXT_KERNEL, the rest under PERF_CONTEXT_USER; a chain that
  // reached a guest context is cut there. Files written before kernel_frames
  // was stored read back with kernel_frames_known = false.
  std::vector<uint64_t> callchain;
  uint32_t kernel_frames = 0;
  bool kernel_frames_known = true;
  SampleKind kind = SampleKind::Cpu;
  uint32_t wakee = 0;  // Wakeup: the task (tid) woken
  uint32_t event = 0;  // Event: 1 + its index into RunInfo::more_events; 0 otherwise
  // --call-graph dwarf, as decoded from perf records (never stored in
  // Records chunks): the user registers at the sample (or at the kernel
  // entry), one per bit of user_regs_mask (perf's register numbers,
  // lowest first; empty: no user context, e.g. a kernel thread), and the
  // copied top of the user stack from the stack pointer up. The decoder makes the user IP the user
  // part of `callchain`; the unwinder replaces that part with the frames it unwinds.
  uint64_t user_regs_mask = 0;
  std::vector<uint64_t> user_regs;
  std::vector<uint8_t> user_stack;
  auto operator<=>(const Sample&) const = default;
};

// PERF_RECORD_SWITCH(_CPU_WIDE): task `tid` left the CPU (out) or came on it.
struct Switch {
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0, cpu = 0;
  bool out = false;
  bool preempted = false;  // out while still runnable (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
  auto operator<=>(const Switch&) const = default;
};

struct Mmap {  // PERF_RECORD_MMAP2, or synthesized from /proc/PID/maps
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, len = 0, pgoff = 0;
  uint32_t prot = 0, flags = 0;
  std::string build_id;  // hex; "" when unknown
  std::string
      filename;  // "/usr/lib/x.so", "[vdso]", "[heap]", "//anon", "[kernel.kallsyms]_text"...
  auto operator<=>(const Mmap&) const = default;
};

struct Comm {
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0;
  bool exec = false;  // PERF_RECORD_MISC_COMM_EXEC: the process image was replaced
  std::string comm;
  auto operator<=>(const Comm&) const = default;
};

struct Fork {  // also used for EXIT (see Record::kind)
  uint64_t time = 0;
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  auto operator<=>(const Fork&) const = default;
};

struct Lost {
  uint64_t time = 0;
  uint64_t count = 0;
  auto operator<=>(const Lost&) const = default;
};

// Consumer of decoded records, called in file order.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_sample(const Sample&) {}
  virtual void on_mmap(const Mmap&) {}
  virtual void on_comm(const Comm&) {}
  virtual void on_fork(const Fork&) {}
  virtual void on_exit(const Fork&) {}
  virtual void on_lost(const Lost&) {}
  virtual void on_throttle(uint64_t /*time*/) {}  // PERF_RECORD_THROTTLE (not kept in files)
  virtual void on_switch(const Switch&) {}        // --off-cpu only (not kept in Records)
};

// Every record to `next`: the base of a sink that filters or rewrites some
// records on their way (it overrides those, and forwards the rest).
class ForwardingSink : public RecordSink {
 public:
  explicit ForwardingSink(RecordSink& next) : next_(next) {}
  void on_sample(const Sample& s) override { next_.on_sample(s); }
  void on_mmap(const Mmap& m) override { next_.on_mmap(m); }
  void on_comm(const Comm& c) override { next_.on_comm(c); }
  void on_fork(const Fork& f) override { next_.on_fork(f); }
  void on_exit(const Fork& f) override { next_.on_exit(f); }
  void on_lost(const Lost& l) override { next_.on_lost(l); }
  void on_throttle(uint64_t t) override { next_.on_throttle(t); }
  void on_switch(const Switch& w) override { next_.on_switch(w); }

 protected:
  RecordSink& next_;
};

// Every record to two sinks, `a` first.
class TeeSink : public RecordSink {
 public:
  TeeSink(RecordSink& a, RecordSink& b) : a_(a), b_(b) {}
  void on_sample(const Sample& s) override { a_.on_sample(s), b_.on_sample(s); }
  void on_mmap(const Mmap& m) override { a_.on_mmap(m), b_.on_mmap(m); }
  void on_comm(const Comm& c) override { a_.on_comm(c), b_.on_comm(c); }
  void on_fork(const Fork& f) override { a_.on_fork(f), b_.on_fork(f); }
  void on_exit(const Fork& f) override { a_.on_exit(f), b_.on_exit(f); }
  void on_lost(const Lost& l) override { a_.on_lost(l), b_.on_lost(l); }
  void on_throttle(uint64_t t) override { a_.on_throttle(t), b_.on_throttle(t); }
  void on_switch(const Switch& w) override { a_.on_switch(w), b_.on_switch(w); }

 private:
  RecordSink& a_;
  RecordSink& b_;
};

// ---------------------------------------------------------------- symbols

// The final, symbolized histogram: what report and diff read.
struct Image {
  std::string name;      // "[kernel]", "[ext4]", "/usr/lib/x86_64-linux-gnu/libc.so.6", "[vdso]",
                         // "[anon]", "[heap]", "[unknown]"
  std::string build_id;  // hex, "" when unknown
  auto operator<=>(const Image&) const = default;
};

struct FunctionCount {
  uint32_t image = 0;    // index into Histogram::images
  std::string function;  // demangled name, or "[unknown]"
  Mode mode = Mode::Unknown;
  uint64_t samples = 0;
  uint64_t period = 0;  // sum of sample periods (events), for cycles-per-work
  // The most samples at one address of the function, and that address; 0
  // when not known (older files, -g profiles). For cpu-clock skid
  // (report/skid.h): peak_after_irq_enable says the kernel text just before
  // peak_ip re-enables interrupts (read from /proc/kcore when recording ends;
  // symbolizer/finish.h).
  uint64_t peak_samples = 0;
  uint64_t peak_ip = 0;
  bool peak_after_irq_enable = false;
  // The row's samples in each of the recording's time slices
  // (core/time_slices.h: consecutive slices of equal sample count), which
  // add up to `samples`; every row of a histogram has as many, or none
  // (unknown: older files, imports of listings, -g profiles).
  std::vector<uint32_t> slices;
  auto operator<=>(const FunctionCount&) const = default;
};

// The image and function of the one row a cut top-N listing gets for what it
// left out (importer/listing_profile.cpp), so shares stay shares of the whole.
inline constexpr const char* kNotListed = "[not listed]";

struct Histogram {
  std::vector<Image> images;
  std::vector<FunctionCount> rows;  // one row per (image, function, mode); any order
  uint64_t total_samples() const;
  // Each time slice's samples over all rows; empty when the rows have no
  // slices (or disagree on how many).
  std::vector<uint64_t> slice_totals() const;
  auto operator<=>(const Histogram&) const = default;
};

}  // namespace kprof
