#include "collector/syscall_counter.h"

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "collector/perf_event.h"
#include "collector/procfs.h"
#include "collector/tracefs.h"

namespace kprof::collector {
namespace {

constexpr const char* kEnterPrefix = "sys_enter_";

// The syscalls' tracepoint ids under `tracefs`: (name, id), by name.
std::vector<std::pair<std::string, uint64_t>> enter_tracepoints(const std::string& tracefs,
                                                                int* err) {
  std::vector<std::pair<std::string, uint64_t>> out;
  const std::string dir = tracefs + "/events/syscalls";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    *err = errno;
    return out;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (!name.starts_with(kEnterPrefix)) continue;
    if (const auto id = tracepoint_id(tracefs, "syscalls", name)) {
      out.emplace_back(name.substr(std::strlen(kEnterPrefix)), *id);
    }
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  *err = out.empty() ? ENOENT : 0;
  return out;
}

// Room for `needed` more descriptors: raises the soft limit toward the hard
// one when what is open now and `needed` would not fit under it.
bool make_room_for(size_t needed) {
  size_t open_now = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d) != nullptr) ++open_now;
    ::closedir(d);
  }
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return false;
  const rlim_t want = open_now + needed + 64;
  if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= want) return true;
  if (r.rlim_max != RLIM_INFINITY && r.rlim_max < want) return false;
  r.rlim_cur = want;
  return ::setrlimit(RLIMIT_NOFILE, &r) == 0;
}

}  // namespace

std::optional<SyscallCounter> SyscallCounter::open(const std::vector<pid_t>& pids,
                                                   bool enable_on_exec,
                                                   const std::vector<std::string>& only,
                                                   std::vector<std::string>* notices) {
  auto refuse = [&](const std::string& why) -> std::optional<SyscallCounter> {
    notices->push_back("no system-call counts: " + why + "; recording without them");
    return std::nullopt;
  };
  bool mounted = false;
  const std::string tracefs = find_tracefs(&mounted);
  if (tracefs.empty()) {
    return refuse(
        "tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing, or run "
        "kprof record as root)");
  }
  if (mounted) notices->push_back("mounted tracefs at " + tracefs + " to count system calls");
  int err = 0;
  auto tracepoints = enter_tracepoints(tracefs, &err);
  const size_t every = tracepoints.size();
  if (!only.empty() && !tracepoints.empty()) {
    std::erase_if(tracepoints, [&](const auto& tp) {
      return std::find(only.begin(), only.end(), tp.first) == only.end();
    });
    for (const std::string& name : only) {
      if (std::none_of(tracepoints.begin(), tracepoints.end(),
                       [&](const auto& tp) { return tp.first == name; })) {
        notices->push_back("--syscalls-only: this kernel has no system call '" + name +
                           "' (no syscalls:sys_enter_" + name + " tracepoint); not counted");
      }
    }
    if (tracepoints.empty()) return refuse("none of the --syscalls-only calls is in this kernel");
  }
  if (tracepoints.empty()) {
    return refuse(err == EACCES || err == EPERM
                      ? "no permission to read " + tracefs + "/events/syscalls (run as root)"
                      : "this kernel has no syscalls:sys_enter_* tracepoints "
                        "(CONFIG_FTRACE_SYSCALLS)");
  }
  const bool system_wide = pids.size() == 1 && pids[0] == -1;
  const std::vector<int> cpus = system_wide ? online_cpu_list() : std::vector<int>{-1};
  const size_t per_event = system_wide ? cpus.size() : pids.size();
  if (!make_room_for(tracepoints.size() * per_event)) {
    return refuse("too few file descriptors for " + std::to_string(tracepoints.size() * per_event) +
                  " counting events (raise ulimit -n)");
  }
  SyscallCounter c;
  int first_err = 0;
  for (const auto& [name, id] : tracepoints) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = id;
    attr.disabled = 1;
    attr.inherit = system_wide ? 0 : 1;
    attr.enable_on_exec = enable_on_exec ? 1 : 0;
    Counted counted{name, {}};
    for (pid_t pid : pids) {
      for (int cpu : cpus) {
        int e = 0;
        Fd fd = open_perf_event(attr, system_wide ? -1 : pid, cpu, -1, &e);
        if (!fd.valid()) {
          if (first_err == 0) first_err = e;
          counted.fds.clear();
          break;
        }
        counted.fds.push_back(std::move(fd));
      }
      if (counted.fds.empty()) break;
    }
    if (!counted.fds.empty()) c.events_.push_back(std::move(counted));
  }
  if (c.events_.empty()) {
    return refuse(first_err == EACCES || first_err == EPERM
                      ? "no permission to open the syscall tracepoints (run as root, or "
                        "sysctl kernel.perf_event_paranoid=-1)"
                      : std::string("cannot open the syscall tracepoints: ") +
                            std::strerror(first_err));
  }
  c.source_ = "syscalls:sys_enter_* tracepoints (" + std::to_string(c.events_.size()) + " of " +
              std::to_string(every) + " counted" + (only.empty() ? "" : ": --syscalls-only") + ")";
  return c;
}

SyscallCounter::~SyscallCounter() {
  if (events_.empty()) return;
  // A grandchild (reparented to init, so nobody waits for it) holds the
  // last reference to every event and closes them; this process's closes
  // then only drop a reference, which is instant.
  const pid_t child = ::fork();
  if (child == 0) {
    if (::fork() == 0) {
      ::setsid();
      for (Counted& c : events_) {
        for (Fd& fd : c.fds) ::close(fd.release());
      }
    }
    ::_exit(0);
  }
  if (child > 0) ::waitpid(child, nullptr, 0);
}

void SyscallCounter::enable() {
  for (Counted& c : events_) {
    for (Fd& fd : c.fds) ::ioctl(fd.get(), PERF_EVENT_IOC_ENABLE, 0);
  }
}

void SyscallCounter::disable() {
  for (Counted& c : events_) {
    for (Fd& fd : c.fds) ::ioctl(fd.get(), PERF_EVENT_IOC_DISABLE, 0);
  }
}

SyscallCounts SyscallCounter::read() const {
  SyscallCounts out;
  out.source = source_;
  for (const Counted& c : events_) {
    uint64_t total = 0;
    for (const Fd& fd : c.fds) {
      uint64_t v = 0;
      if (::read(fd.get(), &v, sizeof v) == static_cast<ssize_t>(sizeof v)) total += v;
    }
    if (total > 0) out.calls[c.name] = total;
  }
  return out;
}

}  // namespace kprof::collector
