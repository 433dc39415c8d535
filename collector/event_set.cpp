#include "collector/event_set.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>

#include "collector/procfs.h"
#include "core/error.h"

namespace kprof::collector {

namespace {

struct AttrChoice {
  ResolvedEvent event;
  bool exclude_kernel = false;
  bool build_id = true;
};

perf_event_attr make_attr(const EventRequest& req, const AttrChoice& c, bool inherit, bool raw) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = c.event.type;
  attr.config = c.event.config;
  attr.config1 = c.event.config1;
  attr.config2 = c.event.config2;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_PERIOD | (req.callchains ? PERF_SAMPLE_CALLCHAIN : 0);
  if (req.off_cpu) {
    // One layout for every event of a ring: the switch samples carry their
    // stack, so this event's samples have an (empty, without -g) chain too.
    attr.sample_type |=
        PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN | (raw ? PERF_SAMPLE_RAW : 0);
    if (!req.callchains) attr.exclude_callchain_kernel = attr.exclude_callchain_user = 1;
  }
  if (!req.more.empty()) attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
  if (req.user_stack != 0) {
    // The user part is unwound from these copies once recording ends
    // (unwind/unwinder.h); the kernel still walks its own frames.
    attr.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    attr.sample_regs_user = perfabi::kDwarfUserRegs;
    attr.sample_stack_user = req.user_stack;
    attr.exclude_callchain_user = 1;
  }
  if (req.period != 0) {
    attr.sample_period = req.period;
  } else {
    attr.freq = 1;
    attr.sample_freq = req.freq;
  }
  attr.disabled = 1;
  attr.inherit = inherit ? 1 : 0;
  attr.enable_on_exec = req.enable_on_exec ? 1 : 0;
  attr.exclude_kernel = c.exclude_kernel ? 1 : 0;
  attr.exclude_user = c.event.exclude_user ? 1 : 0;
  attr.exclude_hv = 1;
  attr.exclude_guest = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.build_id = c.build_id ? 1 : 0;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.use_clockid = 1;  // perf timestamps in CLOCK_MONOTONIC, like RunInfo's
  attr.clockid = CLOCK_MONOTONIC;
  attr.watermark = 1;
  // Woken when a quarter of the ring is full, or 128 KiB: a big ring is
  // drained in small bites (and a halved auto ring, see open(), still in time).
  constexpr size_t kMaxWatermark = 128 << 10;
  const size_t ring = req.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  attr.wakeup_watermark =
      static_cast<uint32_t>(ring == 0 ? kMaxWatermark : std::min(ring / 4, kMaxWatermark));
  return attr;
}

// A task's event is inherited by the tasks it starts; a CPU's (system-wide,
// or a cgroup's) sees them without.
bool inherits(const EventRequest& req, pid_t pid) {
  return pid != -1 && !req.cgroup;
}

struct Failure {
  int err = 0;
  pid_t pid = 0;
  int cpu = 0;
};

// Opens one event per (cpu, pid); on the first failure closes all and says where.
Failure open_all(const EventRequest& req, const AttrChoice& c, const std::vector<int>& cpus,
                 bool raw, std::vector<Fd>& fds) {
  fds.clear();
  for (int cpu : cpus) {
    for (pid_t pid : req.pids) {
      perf_event_attr attr = make_attr(req, c, inherits(req, pid), raw);
      int err = 0;
      Fd fd = open_perf_event(attr, pid, cpu, -1, &err, req.cgroup);
      if (err != 0) {
        fds.clear();
        return {err, pid, cpu};
      }
      fds.push_back(std::move(fd));
    }
  }
  return {};
}

std::string display_name(const EventRequest& req) {
  return req.requested.empty() ? kDefaultEvent : req.requested;
}

[[noreturn]] void fail(const EventRequest& req, const AttrChoice& c, const Failure& f) {
  const std::string what = "cannot open event '" + c.event.name + "'";
  const bool system_wide = req.pids.size() == 1 && req.pids[0] == -1;
  if (f.err == EACCES || f.err == EPERM) {
    std::string p = std::to_string(perf_event_paranoid());
    if (system_wide) {
      throw Error(what +
                  " system-wide: permission denied (-a needs root or CAP_PERFMON, or "
                  "kernel.perf_event_paranoid <= 0; it is " +
                  p + ")");
    }
    throw Error(what + ": permission denied (kernel.perf_event_paranoid is " + p +
                "; run as root, grant CAP_PERFMON, or `sysctl kernel.perf_event_paranoid=1`)");
  }
  if (f.err == ESRCH) throw Error("no process " + std::to_string(f.pid) + " (check -p)");
  if (f.err == EMFILE || f.err == ENFILE) {
    throw Error(what + ": too many open files (raise `ulimit -n`)");
  }
  if (f.err == EINVAL && req.period == 0) {
    throw Error(what + ": invalid argument (is -F " + std::to_string(req.freq) +
                " above kernel.perf_event_max_sample_rate?)");
  }
  throw Error(errno_message(what + " on cpu " + std::to_string(f.cpu), f.err));
}

void notice(std::vector<std::string>* notices, std::string text) {
  std::fprintf(stderr, "kprof: %s\n", text.c_str());
  notices->push_back(std::move(text));
}

// What ran, as a profile stores it; `fallback_reason` "" when it did not fall back.
EventInfo event_info(const EventRequest& req, const std::string& requested,
                     const ResolvedEvent& ran, bool exclude_kernel, uint64_t period,
                     std::string fallback_reason) {
  EventInfo info;
  info.fell_back = !fallback_reason.empty();
  info.fallback_reason = std::move(fallback_reason);
  info.requested = requested;
  info.name = ran.name;
  info.type = ran.type;
  info.config = ran.config;
  info.use_freq = period == 0;
  info.rate = period != 0 ? period : req.freq;
  info.exclude_kernel = exclude_kernel;
  info.callchains = req.callchains || req.user_stack != 0;
  info.user_stack_bytes = req.user_stack;
  return info;
}

// An event after the first: the first's attr (layout, clock, tasks,
// exclusions) with its own event and rate, and none of the side-band
// records (mappings, names, forks), which the first event writes.
perf_event_attr more_attr(perf_event_attr a, const EventRequest& req, const ResolvedEvent& e,
                          uint64_t period, bool kernel_refused) {
  a.type = e.type;
  a.config = e.config;
  a.config1 = e.config1;
  a.config2 = e.config2;
  a.exclude_kernel = kernel_refused || e.exclude_kernel ? 1 : 0;
  a.exclude_user = e.exclude_user ? 1 : 0;
  if (period != 0) {
    a.freq = 0;
    a.sample_period = period;
  } else {
    a.freq = 1;
    a.sample_freq = req.freq;
  }
  a.mmap = a.mmap2 = a.build_id = a.comm = a.comm_exec = a.task = 0;
  return a;
}

// Opens `attr` per (CPU, task) as the first event was, each into its CPU's
// ring, adding the fds and their ids (as Event `index`) to `fds` and
// `kinds`; on a failure takes back what it added and returns the errno.
int open_into_rings(const perf_event_attr& attr, const EventRequest& req,
                    const std::vector<int>& cpus, const std::vector<RingBuffer>& rings,
                    uint32_t index, std::vector<Fd>& fds, std::vector<perfabi::EventId>& kinds) {
  const size_t fds_before = fds.size(), kinds_before = kinds.size();
  int err = 0;
  for (size_t c = 0; c < cpus.size() && err == 0; ++c) {
    for (pid_t pid : req.pids) {
      Fd fd = open_perf_event(attr, pid, cpus[c], -1, &err, req.cgroup);
      uint64_t id = 0;
      if (err == 0 && (::ioctl(fd.get(), PERF_EVENT_IOC_ID, &id) != 0 ||
                       ::ioctl(fd.get(), PERF_EVENT_IOC_SET_OUTPUT, rings[c].fd()) != 0)) {
        err = errno;
      }
      if (err != 0) break;
      kinds.push_back({id, SampleKind::Event, index});
      fds.push_back(std::move(fd));
    }
  }
  if (err != 0) {
    fds.resize(fds_before);
    kinds.resize(kinds_before);
  }
  return err;
}

// Opens an event after the first into the rings, as `first` was opened
// (more_attr): a hardware event missing here falls back to cpu-clock as the
// first does. nullopt, with a notice, when it is left out: sampled already,
// or missing here with cpu-clock sampled already.
std::optional<EventInfo> open_more(const MoreEvent& m, const EventRequest& req,
                                   const perf_event_attr& first, bool kernel_refused,
                                   const std::vector<int>& cpus,
                                   const std::vector<RingBuffer>& rings, uint32_t index,
                                   const std::vector<std::string>& sampled, std::vector<Fd>& fds,
                                   std::vector<perfabi::EventId>& kinds,
                                   std::vector<std::string>* notices) {
  ResolvedEvent e = m.event;
  uint64_t period = m.period != 0 ? m.period : req.period;
  const auto sampled_already = [&] {
    return std::find(sampled.begin(), sampled.end(), e.name) != sampled.end();
  };
  if (sampled_already()) {
    notice(notices, m.requested + " is sampled already: left out");
    return std::nullopt;
  }
  const auto open = [&] {
    return open_into_rings(more_attr(first, req, e, period, kernel_refused), req, cpus, rings,
                           index, fds, kinds);
  };
  int err = open();
  std::string reason;  // why the event asked for falls back
  if (err != 0 && is_missing_event_error(err) && !e.is_software() && !e.is_tracepoint()) {
    reason = "no hardware PMU (" + errno_name(err) + " opening " + e.name + ")";
    const std::string why =
        m.requested + " cannot be sampled here (no hardware PMU: " + errno_name(err) + ")";
    e = cpu_clock_event();
    e.exclude_user = m.event.exclude_user;
    period = 0;  // a period of the missing event is no time: sample at the rate
    if (sampled_already()) {
      notice(notices, why + " and cpu-clock is sampled already: left out");
      return std::nullopt;
    }
    notice(notices, why + "; sampling cpu-clock instead");
    err = open();
  }
  if (err != 0) fail(req, AttrChoice{e, kernel_refused}, Failure{err, req.pids.front(), cpus[0]});
  return event_info(req, m.requested, e, kernel_refused || e.exclude_kernel, period,
                    std::move(reason));
}

}  // namespace

EventSet EventSet::open(const EventRequest& req, RunInfo* run) {
  EventInfo* info = &run->event;
  std::vector<std::string>* notices = &run->notices;
  const std::vector<int> cpus = online_cpu_list();
  AttrChoice c{req.event, req.event.exclude_kernel};
  EventSet set;
  std::optional<WakeupTracepoint> wakeup;
  if (req.off_cpu) {
    std::string why;
    wakeup = find_wakeup_tracepoint(&why);
    if (!wakeup) {
      notice(notices, "off-CPU without wakeups (" + why +
                          "): a blocked thread's wait after its wakeup counts as blocked");
    }
  }
  if (req.off_cpu && req.cgroup) {
    throw Error("--off-cpu follows tasks, not a cgroup (collector/recorder.cpp)");
  }
  const bool raw = wakeup.has_value();
  for (int attempt = 0;; ++attempt) {
    Failure f = open_all(req, c, cpus, raw, set.fds_);
    if (f.err == 0) break;
    if (attempt >= 4) fail(req, c, f);
    if (f.err == EINVAL && c.build_id) {
      c.build_id = false;  // kernels before 5.12 have no MMAP2 build-ids
    } else if (is_missing_event_error(f.err) && !c.event.is_software() &&
               !c.event.is_tracepoint()) {
      info->fell_back = true;
      info->fallback_reason =
          "no hardware PMU (" + errno_name(f.err) + " opening " + c.event.name + ")";
      notice(notices, display_name(req) + " cannot be sampled here (no hardware PMU: " +
                          errno_name(f.err) + "); sampling cpu-clock instead");
      const ResolvedEvent asked = c.event;
      c.event = cpu_clock_event();
      c.event.exclude_user = asked.exclude_user;  // keep :u / :k across the fallback
    } else if ((f.err == EACCES || f.err == EPERM) && !c.exclude_kernel &&
               !(req.pids.size() == 1 && req.pids[0] == -1) && ::geteuid() != 0) {
      c.exclude_kernel = true;
      notice(notices, "kernel samples are not allowed (kernel.perf_event_paranoid is " +
                          std::to_string(perf_event_paranoid()) +
                          "): recording user space only; `sysctl kernel.perf_event_paranoid=1` "
                          "allows kernel samples");
    } else {
      fail(req, c, f);
    }
  }
  // One ring per CPU: the first event of each CPU owns it, the others of that
  // CPU are redirected into it.
  const size_t per_cpu = req.pids.size();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const bool chosen = req.mmap_pages == 0;
  set.ring_pages_ = chosen ? auto_ring_pages(req.period ? 0 : req.freq * (1 + req.more.size()),
                                             req.callchains || req.off_cpu,
                                             static_cast<unsigned>(set.fds_.size() / per_cpu), page,
                                             req.user_stack)
                           : req.mmap_pages;
  const size_t wanted = set.ring_pages_;
  for (size_t i = 0; i < set.fds_.size(); ++i) {
    if (i % per_cpu == 0) {
      for (;;) {
        try {
          set.rings_.push_back(RingBuffer::map(set.fds_[i].get(), set.ring_pages_));
          break;
        } catch (const Error&) {
          // A size kprof chose may be over what this user may lock
          // (kernel.perf_event_mlock_kb): halve it, down to perf's default.
          if (!chosen || set.ring_pages_ <= 128 || !set.rings_.empty()) throw;
          set.ring_pages_ /= 2;
        }
      }
    } else if (::ioctl(set.fds_[i].get(), PERF_EVENT_IOC_SET_OUTPUT, set.rings_.back().fd()) != 0) {
      throw Error(errno_message("cannot share a perf ring buffer between threads", errno));
    }
  }
  if (set.ring_pages_ < wanted) {
    notice(notices, "ring buffers of " + std::to_string(wanted) + " pages per CPU were refused; " +
                        "using " + std::to_string(set.ring_pages_) +
                        " (raise kernel.perf_event_mlock_kb or run as root for bursts to fit)");
  }
  set.first_fds_ = set.fds_.size();
  set.pids_ = req.pids;
  set.cgroup_ = req.cgroup;
  perf_event_attr attr = make_attr(req, c, inherits(req, req.pids.front()), raw);
  set.layout_ = SampleLayout{attr.sample_type, attr.sample_id_all != 0};
  set.layout_.regs_user = attr.sample_regs_user;
  const bool kernel_refused = c.exclude_kernel && !req.event.exclude_kernel;
  std::vector<std::string> sampled = {c.event.name};
  for (const MoreEvent& m : req.more) {
    const auto index = static_cast<uint32_t>(run->more_events.size() + 1);
    std::optional<EventInfo> more = open_more(m, req, attr, kernel_refused, cpus, set.rings_, index,
                                              sampled, set.fds_, set.layout_.kinds, notices);
    if (!more) continue;
    sampled.push_back(more->name);
    run->more_events.push_back(std::move(*more));
  }
  if (req.off_cpu) {
    attr.enable_on_exec = req.enable_on_exec ? 1 : 0;
    const size_t before = notices->size();
    OffCpuEvents off = open_off_cpu_events(attr, req.pids, cpus, wakeup,
                                           {.user_stacks = req.callchains,
                                            .waker_stacks = req.off_cpu_wakers,
                                            .stack_freq = req.off_cpu_stack_freq},
                                           notices);
    for (size_t i = before; i < notices->size(); ++i) {
      std::fprintf(stderr, "kprof: %s\n", (*notices)[i].c_str());
    }
    for (size_t i = 0; i < off.fds.size(); ++i) {
      if (::ioctl(off.fds[i].get(), PERF_EVENT_IOC_SET_OUTPUT, set.rings_[off.ring[i]].fd()) != 0) {
        throw Error(
            errno_message("cannot share a perf ring buffer with the off-CPU events", errno));
      }
      set.fds_.push_back(std::move(off.fds[i]));
    }
    set.layout_.kinds = std::move(off.kinds);
    set.layout_.wakee_offset = off.wakee_offset;
    set.off_cpu_source_ = off.source;
  }
  // The default is stored by name, so reports say what was asked for.
  *info = event_info(req, display_name(req), c.event, c.exclude_kernel, req.period,
                     std::move(info->fallback_reason));
  set.clock_at_rate_ = req.period == 0 && is_clock_event(*info);
  return set;
}

std::vector<DitherTarget> EventSet::clock_targets() const {
  std::vector<DitherTarget> out;
  if (!clock_at_rate_) return out;
  for (size_t i = 0; i < first_fds_; ++i) {
    out.push_back({fds_[i].get(), i / pids_.size(), cgroup_ ? -1 : pids_[i % pids_.size()]});
  }
  return out;
}

void EventSet::enable() {
  for (Fd& fd : fds_) ::ioctl(fd.get(), PERF_EVENT_IOC_ENABLE, 0);
}

void EventSet::disable() {
  for (Fd& fd : fds_) ::ioctl(fd.get(), PERF_EVENT_IOC_DISABLE, 0);
}

size_t auto_ring_pages(uint64_t freq, bool callchains, unsigned ncpus, size_t page_bytes,
                       uint32_t user_stack) {
  constexpr size_t kMin = 128;
  constexpr uint64_t kMaxPerCpu = 64ull << 20, kMaxTotal = 512ull << 20;
  const uint64_t record = (callchains ? 304 : 48) + (user_stack != 0 ? user_stack + 168 : 0);
  // -c PERIOD: the rate is not known in advance; size for 1 kHz.
  const uint64_t rate = freq != 0 ? freq : 1000;
  const uint64_t want = rate * kRingBurstMs / 1000 * record;
  const uint64_t cap = std::min<uint64_t>(kMaxPerCpu, kMaxTotal / std::max(1u, ncpus));
  size_t pages = kMin;
  while (static_cast<uint64_t>(pages) * page_bytes < want &&
         static_cast<uint64_t>(pages) * 2 * page_bytes <= cap) {
    pages *= 2;
  }
  return pages;
}

}  // namespace kprof::collector
