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
      perf_event_attr attr = make_attr(req, c, pid != -1, raw);
      int err = 0;
      Fd fd = open_perf_event(attr, pid, cpu, -1, &err);
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

}  // namespace

EventSet EventSet::open(const EventRequest& req, EventInfo* info,
                        std::vector<std::string>* notices) {
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
  set.ring_pages_ =
      chosen
          ? auto_ring_pages(req.period ? 0 : req.freq, req.callchains || req.off_cpu,
                            static_cast<unsigned>(set.fds_.size() / per_cpu), page, req.user_stack)
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
  perf_event_attr attr = make_attr(req, c, req.pids.front() != -1, raw);
  set.layout_ = SampleLayout{attr.sample_type, attr.sample_id_all != 0};
  set.layout_.regs_user = attr.sample_regs_user;
  if (req.off_cpu) {
    attr.enable_on_exec = req.enable_on_exec ? 1 : 0;
    const size_t before = notices->size();
    OffCpuEvents off = open_off_cpu_events(attr, req.pids, cpus, wakeup, notices);
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
  info->requested =
      display_name(req);  // the default is stored by name, so reports say what was asked for
  info->name = c.event.name;
  info->type = c.event.type;
  info->config = c.event.config;
  info->use_freq = req.period == 0;
  info->rate = req.period != 0 ? req.period : req.freq;
  info->exclude_kernel = c.exclude_kernel;
  info->callchains = req.callchains || req.user_stack != 0;
  info->user_stack_bytes = req.user_stack;
  return set;
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
