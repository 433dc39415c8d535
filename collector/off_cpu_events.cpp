#include "collector/off_cpu_events.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>

#include "collector/perf_event.h"
#include "collector/procfs.h"
#include "collector/tracefs.h"

namespace kprof::collector {

std::optional<WakeupTracepoint> find_wakeup_tracepoint(std::string* why) {
  if (::geteuid() != 0 && perf_event_paranoid() > 0) {
    *why = "system-wide wakeup events need root or CAP_PERFMON";
    return std::nullopt;
  }
  bool mounted = false;
  const std::string tracefs = find_tracefs(&mounted);
  if (tracefs.empty()) {
    *why = "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)";
    return std::nullopt;
  }
  const std::string dir = tracefs + "/events/sched/sched_wakeup/";
  const auto id = tracepoint_id(tracefs, "sched", "sched_wakeup");
  if (!id) {
    *why = "no sched:sched_wakeup tracepoint in " + tracefs;
    return std::nullopt;
  }
  WakeupTracepoint tp;
  tp.id = *id;
  std::ifstream format(dir + "format");
  const std::regex pid_field(R"(field:pid_t pid;\s*offset:(\d+);\s*size:4;)");
  std::string line;
  std::smatch m;
  while (std::getline(format, line)) {
    if (std::regex_search(line, m, pid_field)) {
      tp.pid_offset = static_cast<uint32_t>(std::stoul(m[1]));
      break;
    }
  }
  if (tp.pid_offset == 0) {
    *why = "sched:sched_wakeup has no pid field this kprof knows (" + dir + "format)";
    return std::nullopt;
  }
  return tp;
}

namespace {

perf_event_attr off_cpu_attr(const perf_event_attr& base) {
  perf_event_attr a = base;
  a.freq = 0;
  a.sample_period = 1;
  a.mmap = a.mmap2 = a.build_id = a.comm = a.comm_exec = a.task = 0;
  a.exclude_callchain_kernel = a.exclude_callchain_user = 0;
  a.context_switch = 0;
  a.config1 = a.config2 = 0;
  return a;
}

// Opens `attr` for each (CPU, pid), adding each event, its id as `kind` and
// its ring to `out`; on the first failure takes back what this call added
// and returns the errno (0: all opened).
int open_each(const perf_event_attr& attr, const std::vector<pid_t>& pids,
              const std::vector<int>& cpus, SampleKind kind, OffCpuEvents& out) {
  const size_t before = out.fds.size(), kinds_before = out.kinds.size();
  int err = 0;
  for (size_t c = 0; c < cpus.size() && err == 0; ++c) {
    for (pid_t pid : pids) {
      Fd fd = open_perf_event(attr, pid, cpus[c], -1, &err);
      uint64_t id = 0;
      if (err == 0 && ::ioctl(fd.get(), PERF_EVENT_IOC_ID, &id) != 0) err = errno;
      if (err != 0) break;
      out.kinds.push_back({id, kind});
      out.fds.push_back(std::move(fd));
      out.ring.push_back(c);
    }
  }
  if (err != 0) {
    out.fds.resize(before);
    out.ring.resize(before);
    out.kinds.resize(kinds_before);
  }
  return err;
}

}  // namespace

OffCpuEvents open_off_cpu_events(const perf_event_attr& base, const std::vector<pid_t>& pids,
                                 const std::vector<int>& cpus,
                                 const std::optional<WakeupTracepoint>& wakeup,
                                 const OffCpuOptions& options, std::vector<std::string>* notices) {
  OffCpuEvents out;
  const bool system_wide = pids.size() == 1 && pids[0] == -1;
  perf_event_attr cs = off_cpu_attr(base);
  cs.type = PERF_TYPE_SOFTWARE;
  cs.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  cs.context_switch = 1;
  cs.exclude_callchain_user = options.user_stacks ? 0 : 1;
  uint64_t stack_freq = options.stack_freq;
  if (stack_freq != 0) {
    // The kernel refuses a frequency above its current maximum (which it
    // lowers when samples take too long): the stacks then come at that.
    const int max_rate = perf_event_max_sample_rate();
    if (max_rate > 0) stack_freq = std::min<uint64_t>(stack_freq, static_cast<uint64_t>(max_rate));
    cs.freq = 1;
    cs.sample_freq = stack_freq;
  }
  int err = open_each(cs, pids, cpus, SampleKind::SwitchOut, out);
  if (err != 0) {
    notices->push_back(std::string("no off-CPU time: cannot open the context-switch events (") +
                       std::strerror(err) +
                       (err == EACCES || err == EPERM
                            ? "; run as root or sysctl kernel.perf_event_paranoid=1"
                            : "") +
                       "); recording on-CPU only");
    return {};
  }
  out.source =
      system_wide ? "context switches on every CPU" : "context switches of the recorded tasks";
  if (!options.user_stacks) out.source += " (kernel stacks only: no -g)";
  out.source += stack_freq != 0 ? ", stacks at up to " + std::to_string(stack_freq) +
                                      " switches a second per thread"
                                : ", a stack at every switch";
  if (base.exclude_kernel) {
    // A switch happens in the kernel: with kernel samples refused, its
    // sample (the stack) is never written, only the times.
    notices->push_back(
        "off-CPU stacks are not known (kernel samples are not allowed: kernel.perf_event_paranoid "
        "is " +
        std::to_string(perf_event_paranoid()) +
        "): the time off CPU is charged to [unknown]; `sysctl kernel.perf_event_paranoid=1` "
        "allows them");
  }
  if (!wakeup) return out;
  perf_event_attr wk = off_cpu_attr(base);
  wk.type = PERF_TYPE_TRACEPOINT;
  wk.config = wakeup->id;
  wk.inherit = 0;
  wk.enable_on_exec = 0;
  wk.disabled = base.enable_on_exec ? 0 : 1;  // system-wide: never enabled by the exec
  // By default no stacks: a wakeup only says when; unwinding the waker
  // (kernel and user) at every wakeup cost the storm of bench/off_cpu.sh a
  // tenth of its round trips. --wakers asks for the kernel's part alone.
  wk.exclude_callchain_user = 1;
  wk.exclude_callchain_kernel = options.waker_stacks &&
                                        (base.sample_type & PERF_SAMPLE_CALLCHAIN) != 0 &&
                                        base.exclude_kernel == 0
                                    ? 0
                                    : 1;
  wk.sample_type |= PERF_SAMPLE_RAW;
  if (stack_freq != 0) {
    // Sampled as the stacks are: in a storm the wakeups cost its round
    // trips a tenth, and the waits whose wakeup came tell how the others
    // split between blocked and the run queue (core/off_cpu_builder.h).
    wk.freq = 1;
    wk.sample_freq = stack_freq;
  }
  err = open_each(wk, {-1}, cpus, SampleKind::Wakeup, out);
  if (err != 0) {
    notices->push_back(std::string("off-CPU: cannot open sched:sched_wakeup (") +
                       std::strerror(err) +
                       "): a blocked thread's wait after its wakeup counts as blocked");
    return out;
  }
  out.wakee_offset = wakeup->pid_offset;
  out.source += wk.exclude_callchain_kernel == 0
                    ? " and wakeups with the waker's kernel stack (sched:sched_wakeup)"
                    : " and wakeups (sched:sched_wakeup)";
  if (stack_freq != 0) {
    out.source += ", at up to " + std::to_string(stack_freq) + " a second per CPU";
  }
  return out;
}

}  // namespace kprof::collector
