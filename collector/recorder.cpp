#include "collector/recorder.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <random>

#include "collector/event_set.h"
#include "collector/events.h"
#include "collector/kallsyms_cache.h"
#include "collector/perf_event.h"
#include "collector/procfs.h"
#include "collector/score_from.h"
#include "collector/signal_scope.h"
#include "collector/syscall_counter.h"
#include "collector/workload.h"
#include "collector/workload_cgroup.h"
#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/kallsyms_subset.h"
#include "core/records_chunk.h"
#include "perfabi/spool.h"

namespace kprof::collector {

namespace {

constexpr uint64_t kChunkNs = 1'000'000'000;
constexpr uint64_t kProgressNs = 500'000'000;
constexpr int kPollMs = 100;

// What kprof writes while recording: the rings' perf records as they are
// (perfabi/spool.h).
struct Output {
  explicit Output(const SampleLayout& layout) : spool(layout) {}
  perfabi::Spool spool;
};

// Collects the records synthesized from /proc.
struct Synthesized : RecordSink {
  void on_mmap(const Mmap& m) override { encoder.add(m); }
  void on_comm(const Comm& c) override { encoder.add(c); }
  RecordEncoder encoder;
};

double cpu_seconds(const timeval& tv) {
  return tv.tv_sec + tv.tv_usec / 1e6;
}

}  // namespace

struct Recorder::Impl {
  RecordOptions opt;
  SignalScope signals;
  // Before the workload, so it is emptied and removed after the workload is reaped.
  std::optional<WorkloadCgroup> cgroup;  // the workload's tasks, where kprof could make one
  std::string no_cgroup;                 // why not, where it was wanted
  std::optional<Workload> workload;
  std::optional<EventSet> events;
  std::optional<PeriodDither> dither;      // a clock event at a rate, unless --no-dither
  std::optional<SyscallCounter> syscalls;  // --syscalls, where it could open
  std::optional<ScoreFrom> score;          // --score-from
  void pass_output();                      // the workload's stdout on to ours, scanned
  Fd pidfd;                                // -p: readable when the process exits
  RunInfo run;
  KallsymsSnapshot kallsyms;
  bool kallsyms_cached = false;  // taken from the per-boot cache, not read now
  // In this boot's cache (taken from it, or stored there): the profile then
  // gets the lines it needs when recording ends, not the whole snapshot now.
  bool kallsyms_in_cache = false;
  std::string modules;
  Synthesized synthesized;  // -a / -p: what already ran, from /proc
  uint64_t damaged = 0;     // ring reads that met a record of impossible size
  bool started = false;     // events enabled and workload exec'ed
  bool exec_failed = false;
  bool running_ = true;
  std::string stop_reason;
  int stop_signals = 0;
  std::optional<WorkloadResult> result;

  void setup();  // everything that can fail before the file exists
  void start();  // start times and /proc/stat, just before Meta is written
  void go();     // enable the events / let the workload exec
  // From /proc: a process's name and executable mappings, with build-ids
  // where `build_id_of` is given. false: no such process.
  bool synthesize(pid_t pid, uint64_t time,
                  const std::function<std::string(const std::string&)>& build_id_of = {});
  std::map<std::string, std::string> build_ids;  // synthesize()'s, by image path
  void follow_in_cgroup(EventRequest& req);
  void start_dither();
  void drain(Output& out);
  void handle_signals();
  void write_chunk(ProfileWriter& w, Output& out, uint64_t& last_flush, bool force);
};

Recorder::Recorder(const RecordOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = options;
  impl_->setup();
}

Recorder::~Recorder() = default;

const std::string& Recorder::kallsyms() const {
  return impl_->kallsyms.text;
}
bool Recorder::kallsyms_from_cache() const {
  return impl_->kallsyms_cached;
}
bool Recorder::kallsyms_in_file() const {
  return !impl_->kallsyms_in_cache;
}
void Recorder::refresh_kallsyms() {
  Impl& m = *impl_;
  m.kallsyms = read_kallsyms_snapshot();
  m.kallsyms_cached = false;
  KallsymsCache(m.opt.kallsyms_cache).store(m.kallsyms.chunk, m.modules);
  m.kallsyms.chunk = {};
}
const std::string& Recorder::modules() const {
  return impl_->modules;
}
uint64_t Recorder::damaged_records() const {
  return impl_->damaged;
}
bool Recorder::exec_failed() const {
  return impl_->exec_failed;
}
const EventInfo& Recorder::event() const {
  return impl_->run.event;
}

const std::string& Recorder::off_cpu_source() const {
  return impl_->events->off_cpu_source();
}
bool Recorder::started() const {
  return impl_->started;
}

void Recorder::Impl::setup() {
  PfmScope pfm;
  EventRequest req;
  req.event = resolve_event(pfm, opt.event);
  req.requested = opt.event;
  if (req.event.period && opt.period) {
    throw Error("event '" + opt.event + "' has a period and -c gives another; use one of them");
  }
  req.period = opt.period ? opt.period : req.event.period.value_or(0);
  // A tracepoint counts events, not time, and the kernel makes every hit a
  // sample whatever the period (perf record -c 100 -e sched:sched_switch
  // records each switch too): period 1, said when another was asked for.
  if (req.event.is_tracepoint()) {
    if (req.period > 1) {
      run.notices.push_back("the kernel samples every hit of a tracepoint: period " +
                            std::to_string(req.period) + " does not apply (period 1)");
      std::fprintf(stderr, "kprof: %s\n", run.notices.back().c_str());
    }
    req.period = 1;
  }
  if (opt.off_cpu && req.period != 0 && !req.event.is_software()) {
    throw Error("--off-cpu counts time off CPU in ticks of the sampling period, and " +
                    req.event.name + " every " + std::to_string(req.period) +
                    " events is not a time: sample it by rate (-F) instead",
                2);
  }
  for (const std::string& name : opt.more_events) {
    MoreEvent m{resolve_event(pfm, name), name, 0};
    m.period = m.event.is_tracepoint() ? 1 : m.event.period.value_or(0);
    req.more.push_back(std::move(m));
  }
  req.freq = opt.freq;
  // perf's habit: above the kernel's limit, sample at the limit and say so
  // (perf_event_open would refuse the rate with EINVAL).
  if (const int max = perf_event_max_sample_rate();
      req.period == 0 && max > 0 && req.freq > static_cast<uint64_t>(max)) {
    run.notices.push_back("-F " + std::to_string(req.freq) + " is above the kernel's limit; " +
                          "sampling at " + std::to_string(max) + " Hz (raise it with `sysctl " +
                          "kernel.perf_event_max_sample_rate=N`; the kernel lowers it again " +
                          "when sampling interrupts take too long)");
    std::fprintf(stderr, "kprof: %s\n", run.notices.back().c_str());
    req.freq = static_cast<uint64_t>(max);
  }
  req.callchains = opt.callchains;
  req.user_stack = opt.user_stack;
  req.mmap_pages = opt.mmap_pages;
  req.off_cpu = opt.off_cpu;
  if (opt.off_cpu_wakers && (!opt.off_cpu || !opt.callchains)) {
    throw Error(
        "--wakers adds the waker's call chain to the off-CPU stacks: give it with "
        "--off-cpu and -g",
        2);
  }
  req.off_cpu_wakers = opt.off_cpu_wakers;
  if (opt.off_cpu_stack_freq != 0 && !opt.off_cpu) {
    throw Error(
        "--off-cpu-freq sets how often --off-cpu takes a switch's stack: give it with --off-cpu",
        2);
  }
  req.off_cpu_stack_freq = opt.off_cpu_stack_freq;
  if (!opt.score_from.empty()) {
    if (opt.command.empty()) {
      throw Error("--score-from reads the workload's output: give a command to run", 2);
    }
    score.emplace(opt.score_from);
  }
  if (!opt.command.empty()) {
    workload.emplace(Workload::start(opt.command, signals.old_mask(), score.has_value()));
  }
  if (opt.system_wide) {
    req.pids = {-1};
  } else if (opt.pid > 0) {
    req.pids = list_threads(opt.pid);
    if (req.pids.empty()) throw Error("no process " + std::to_string(opt.pid) + " (check -p)");
    pidfd = Fd(static_cast<int>(::syscall(SYS_pidfd_open, opt.pid, 0)));
  } else if (workload) {
    req.pids = {workload->pid()};
    req.enable_on_exec = true;
    follow_in_cgroup(req);
  } else {
    throw Error("nothing to record: give a command, -a or -p PID");
  }

  run.command = opt.command;
  run.target = opt.system_wide ? "system-wide"
               : opt.pid > 0   ? "pid " + std::to_string(opt.pid)
                               : "command";
  run.kernel_release = kernel_release();
  run.kernel_build_id = kernel_build_id();
  run.hostname = host_name();
  run.cpu_model = cpu_model();
  run.ncpus = online_cpus();
  run.scores = opt.scores;
  modules = read_modules();
  const KallsymsCache cache(opt.kallsyms_cache);
  if (auto snap = cache.load(modules)) {
    kallsyms = std::move(*snap);
    kallsyms_cached = kallsyms_in_cache = true;
  } else {
    kallsyms = read_kallsyms_snapshot();
    kallsyms_in_cache = cache.store(kallsyms.chunk, modules);
  }
  run.boot_id = current_boot_id();
  if (kallsyms_in_cache) run.kallsyms_digest = kallsyms_digest(kallsyms.text);
  if (kptr_restrict() != 0 && kallsyms.text.starts_with("0000000000000000")) {
    run.notices.push_back("kernel addresses are hidden (kernel.kptr_restrict is " +
                          std::to_string(kptr_restrict()) +
                          "): kernel samples stay unnamed; `sysctl kernel.kptr_restrict=0`");
    std::fprintf(stderr, "kprof: %s\n", run.notices.back().c_str());
  }
  events = EventSet::open(req, &run);
  if (opt.syscalls || !opt.syscalls_only.empty()) {
    const size_t before = run.notices.size();
    // Counted, not sampled: the workload's task and what it starts (inherited) will do.
    syscalls =
        req.cgroup
            ? SyscallCounter::open({workload->pid()}, true, opt.syscalls_only, &run.notices)
            : SyscallCounter::open(req.pids, req.enable_on_exec, opt.syscalls_only, &run.notices);
    for (size_t i = before; i < run.notices.size(); ++i) {
      std::fprintf(stderr, "kprof: %s\n", run.notices[i].c_str());
    }
  }
  start_dither();
  run.ring_pages = events->ring_pages();
  run.ring_pages_auto = opt.mmap_pages == 0;
  // System-wide, kprof samples itself reading the rings: left out when the
  // records are counted (core/aggregate.h), as its own work is not the system's.
  if (opt.system_wide) run.recorder_pid = static_cast<uint32_t>(::getpid());
}

void Recorder::Impl::start() {
  run.start_realtime_ns = realtime_ns();
  run.start_monotonic_ns = monotonic_ns();
  run.stat_before = read_proc_stat();
}

void Recorder::Impl::go() {
  if (!cgroup && (!workload || opt.system_wide)) {
    events->enable();
    if (syscalls) syscalls->enable();
  }
  if (workload) {
    exec_failed = true;  // until go() returns
    workload->go();
    exec_failed = false;
  }
  if (cgroup) {
    // A cgroup's events go on once the exec is done (go() returns when it
    // has closed the child's close-on-exec pipe): before it, the child drops
    // its copy of kprof's memory, kprof's work, not the workload's (~0.4 ms
    // of kernel samples here, 8 ms in an ASan build). The syscall counter
    // follows the task: enabled by the exec. What the workload mapped and
    // started before the events were on comes from /proc, as for -p.
    events->enable();
    const auto pid = static_cast<uint32_t>(workload->pid());
    if (!synthesize(workload->pid(), run.start_monotonic_ns, opt.build_id_of)) {
      const std::string& cmd = opt.command.front();  // gone already: the name it took
      synthesized.on_comm(
          Comm{run.start_monotonic_ns, pid, pid, false, cmd.substr(cmd.rfind('/') + 1, 15)});
    }
    for (pid_t p : cgroup->pids()) {
      if (p != workload->pid()) synthesize(p, run.start_monotonic_ns, opt.build_id_of);
    }
  }
  started = true;
  // After enabling, so nothing that maps code between the snapshot and the
  // events is missed; samples before the snapshot stay unresolved at worst.
  if (opt.system_wide) {
    for (pid_t p : list_pids()) synthesize(p, run.start_monotonic_ns);
  } else if (opt.pid > 0) {
    synthesize(opt.pid, run.start_monotonic_ns);
  }
}

bool Recorder::Impl::synthesize(pid_t pid, uint64_t time,
                                const std::function<std::string(const std::string&)>& build_id_of) {
  const std::string comm = process_comm(pid);
  if (comm.empty()) return false;  // gone, or a kernel thread we cannot read
  const uint32_t upid = static_cast<uint32_t>(pid);
  synthesized.on_comm(Comm{time, upid, upid, false, comm});
  const std::string maps = read_text_file("/proc/" + std::to_string(pid) + "/maps");
  for (Mmap& m : parse_proc_maps(maps, upid, time)) {
    if (!(m.prot & 4)) continue;  // PROT_EXEC: what samples can hit
    if (build_id_of && m.filename.starts_with('/')) {
      auto [it, fresh] = build_ids.try_emplace(m.filename);
      if (fresh) it->second = build_id_of(m.filename);
      m.build_id = it->second;
    }
    synthesized.on_mmap(m);
  }
  return true;
}

void Recorder::Impl::drain(Output& out) {
  // Copies only: decoding waits until recording ends (perfabi/spool.h).
  for (RingBuffer& ring : events->rings()) {
    const size_t index = static_cast<size_t>(&ring - events->rings().data());
    RingRead r = ring.drain([&](const perfabi::RingBytes& bytes) {
      out.spool.add(bytes);
      if (dither) dither->saw(index, bytes.first, bytes.second);
    });
    if (r.damaged) ++damaged;
    out.spool.end_block();
  }
  if (!dither) return;
  dither->restart_due();
  if (!dither->failure().empty()) {
    std::fprintf(stderr, "kprof: the sampling period cannot be dithered any more (%s)\n",
                 dither->failure().c_str());
    dither.reset();
  }
}

// A workload whose clock is to be dithered: its tasks in a cgroup of their
// own, followed by per-CPU events (collector/workload_cgroup.h), so the
// tasks it starts are dithered too. Not with --off-cpu (whose switch events
// follow the tasks themselves) or an event at a fixed period (-c, NAME:N, a
// tracepoint's every hit): those have nothing to dither, and the cgroup's
// events, enabled once the exec is done, would miss the hits the program
// makes before that (a task's events are enabled by the exec itself).
void Recorder::Impl::follow_in_cgroup(EventRequest& req) {
  if (!opt.dither || req.period != 0) return;
  for (const MoreEvent& m : req.more) {
    if (m.period != 0) {
      no_cgroup = m.requested + " is counted from the exec on, which a cgroup's events cannot do";
      return;
    }
  }
  if (opt.off_cpu) {
    no_cgroup = "--off-cpu follows the tasks themselves";
    return;
  }
  std::optional<WorkloadCgroup> made = WorkloadCgroup::create(&no_cgroup);
  if (!made) return;
  cgroup.emplace(std::move(*made));
  no_cgroup = cgroup->add(workload->pid());
  if (!no_cgroup.empty()) {
    cgroup.reset();
    return;
  }
  req.pids = {cgroup->fd()};
  req.cgroup = true;
  req.enable_on_exec = false;  // a CPU's events: enabled in go(), once the exec is done
}

void Recorder::Impl::start_dither() {
  const std::vector<DitherTarget> targets = events->clock_targets();
  if (!opt.dither || targets.empty() || run.event.rate == 0) return;  // targets: at a rate
  const int max_rate = perf_event_max_sample_rate();
  if (max_rate > 0 &&
      static_cast<double>(run.event.rate) * PeriodDither::kMaxRateFactor > max_rate) {
    run.notices.push_back("the clock's sampling period stays fixed: -F " +
                          std::to_string(run.event.rate) +
                          " leaves no room under kernel.perf_event_max_sample_rate (" +
                          std::to_string(max_rate) + ") to dither it");
    std::fprintf(stderr, "kprof: %s\n", run.notices.back().c_str());
    return;
  }
  const uint64_t period = 1'000'000'000 / run.event.rate;
  dither.emplace(targets, period, events->layout(), std::random_device{}());
  const std::string why = dither->probe();
  if (!why.empty()) {
    dither.reset();
    run.notices.push_back("the clock's sampling period stays fixed (" + why +
                          "): a loop in step with it may be seen at a few points of its round");
    std::fprintf(stderr, "kprof: %s\n", run.notices.back().c_str());
    return;
  }
  run.event.dither_pct = PeriodDither::kDisplayPercent;
  if (workload && !opt.system_wide && opt.pid <= 0 && !cgroup) {
    run.notices.push_back(
        "the workload's first task is dithered, the processes and threads it starts sample "
        "at a fixed period (" +
        no_cgroup + ")");
    std::fprintf(stderr, "kprof: %s\n", run.notices.back().c_str());
  }
}

void Recorder::Impl::pass_output() {
  if (!workload || workload->stdout_pipe() < 0 || !score) return;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(workload->stdout_pipe(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EAGAIN (nothing now) or end of output
    score->feed(std::string_view(buf, static_cast<size_t>(n)));
    for (ssize_t off = 0; off < n;) {
      const ssize_t w = ::write(STDOUT_FILENO, buf + off, static_cast<size_t>(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;  // our stdout is gone: the score is still read
      off += w;
    }
  }
}

void Recorder::Impl::handle_signals() {
  while (int sig = signals.next()) {
    if (sig == SIGCHLD) {
      if (workload && (result = workload->try_wait())) {
        if (stop_reason.empty()) stop_reason = "workload exited";
        running_ = false;
      }
      continue;
    }
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (!workload || !result.has_value()) {
      if (workload) {
        // perf's habit: pass it on and keep recording until the workload ends.
        workload->kill(++stop_signals > 1 ? SIGKILL : sig);
        stop_reason = name + " (forwarded to the workload)";
      } else {
        stop_reason = name;
        running_ = false;
      }
    }
  }
}

void Recorder::Impl::write_chunk(ProfileWriter& w, Output& out, uint64_t& last_flush, bool force) {
  const uint64_t now = monotonic_ns();
  if (out.spool.empty()) return;
  if (!force && out.spool.size() < kRecordsChunkBytes && now - last_flush < kChunkNs) return;
  // Uncompressed: zstd under the sampling interrupts' storm was half of
  // kprof's CPU at high rates; the chunks are decoded and compressed once
  // the events are off (core/compact.h).
  std::vector<uint8_t> payload = out.spool.take();
  w.write_chunk(ChunkType::PerfRecords, payload, false);
  last_flush = now;
}

Summary Recorder::run(ProfileWriter& w) {
  Impl& m = *impl_;
  Output out(m.events->layout());
  uint64_t last_flush = monotonic_ns(), last_progress = last_flush;
  try {
    m.start();
    std::vector<uint8_t> meta = encode_run_info(m.run);
    w.write_chunk(ChunkType::Meta, meta);
    if (m.opt.environment) {
      w.write_chunk(ChunkType::Environment, encode_environment(*m.opt.environment), true,
                    kZstdSmall);
    }
    // The whole snapshot only when this boot's cache does not hold it (so a
    // file cut short still names its kernel samples); else the lines the
    // samples need are written when recording ends (kallsyms_in_file()).
    if (!m.kallsyms_in_cache) w.write_stored(m.kallsyms.chunk);
    m.kallsyms.chunk = {};
    w.write_chunk(ChunkType::Modules, bytes_of(m.modules));
    // Released only now, so the workload's wall time and the first poll do
    // not include writing the snapshots.
    m.go();
    if (!m.synthesized.encoder.empty()) {
      w.write_chunk(ChunkType::Records, m.synthesized.encoder.take(), false);
    }

    std::vector<pollfd> pfds;
    pfds.push_back({m.signals.fd(), POLLIN, 0});
    if (m.pidfd.valid()) pfds.push_back({m.pidfd.get(), POLLIN, 0});
    const size_t first_ring = pfds.size();
    for (RingBuffer& r : m.events->rings()) pfds.push_back({r.fd(), POLLIN, 0});
    const size_t last_ring = pfds.size();
    if (m.score) pfds.push_back({m.workload->stdout_pipe(), POLLIN, 0});
    while (m.running_) {
      ::poll(pfds.data(), pfds.size(), m.dither ? m.dither->poll_ms() : kPollMs);
      if (m.score && (pfds.back().revents & (POLLIN | POLLHUP))) {
        m.pass_output();
        if (pfds.back().revents & POLLHUP) pfds.back().fd = -1;
      }
      m.handle_signals();
      if (m.pidfd.valid() && (pfds[1].revents & POLLIN)) {
        m.stop_reason = "process " + std::to_string(m.opt.pid) + " exited";
        m.running_ = false;
      }
      // A ring whose tasks are all gone reports POLLHUP forever: stop polling it.
      for (size_t i = first_ring; i < last_ring; ++i) {
        if (pfds[i].revents & (POLLHUP | POLLERR)) pfds[i].fd = -1;
      }
      m.drain(out);
      m.write_chunk(w, out, last_flush, false);
      const uint64_t now = monotonic_ns();
      if (m.opt.progress && now - last_progress >= kProgressNs) {
        std::fprintf(stderr, "\rkprof: %llu samples, %llu lost, %.1f s",
                     static_cast<unsigned long long>(out.spool.samples),
                     static_cast<unsigned long long>(out.spool.lost),
                     (now - m.run.start_monotonic_ns) / 1e9);
        last_progress = now;
      }
    }
    m.events->disable();
    if (m.syscalls) m.syscalls->disable();
    m.pass_output();  // what the workload wrote last
    m.drain(out);
    m.write_chunk(w, out, last_flush, true);
    if (m.syscalls) {
      w.write_chunk(ChunkType::SyscallCounts, encode_syscall_counts(m.syscalls->read()));
    }
  } catch (const Error&) {
    if (m.workload && !m.result) m.workload->kill(SIGTERM);
    throw;  // the chunks already written stay readable
  }
  if (m.opt.progress) std::fputs("\r\x1b[K", stderr);
  Summary s;
  s.duration_ns = monotonic_ns() - m.run.start_monotonic_ns;
  s.samples = out.spool.samples;
  s.lost = out.spool.lost;
  s.throttled = out.spool.throttled;
  if (m.result) {
    s.exit = m.result->exit;
    s.real_s = m.result->real_s;
    s.user_s = m.result->user_s;
    s.sys_s = m.result->sys_s;
  }
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  s.kprof_user_s = cpu_seconds(self.ru_utime);
  s.kprof_sys_s = cpu_seconds(self.ru_stime);
  s.stop_reason = m.stop_reason;
  if (m.score) {
    m.score->finish();
    if (m.score->value()) {
      s.scores[m.score->name()] = *m.score->value();
    } else {
      std::fprintf(stderr,
                   "kprof: --score-from '%s' matched nothing in the workload's output: no score "
                   "for this run (kprof diff --score can give one)\n",
                   m.score->pattern().c_str());
    }
  }
  s.stat_after = read_proc_stat();
  std::vector<uint8_t> payload = encode_summary(s);
  w.write_chunk(ChunkType::Summary, payload);
  return s;
}

}  // namespace kprof::collector
