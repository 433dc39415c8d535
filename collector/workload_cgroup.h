// A cgroup of the workload's own, so every task it starts is sampled by
// events kprof can retune.
//
// An event that follows a task is inherited by the tasks it forks and the
// threads it starts, and the kernel gives kprof no handle on those copies:
// PERF_EVENT_IOC_PERIOD reaches the first task's only, so a dithered clock
// (collector/period_dither.h) stayed fixed for everything else, and a loop
// of a child process in step with it was seen at a few points of its round
// (a hot-cold child beside a compile loop spread 7x binomial's variance
// between runs where its time slices said 1.4x, and one-run diffs flagged
// 7 of 24 A/A pairs). Per-CPU events limited to a cgroup (PERF_FLAG_PID_CGROUP,
// as `perf record -G`) see every task in it, children included, and are
// kprof's own to retune.
//
// Contract:
// - create() makes a fresh cgroup v2 directory "kprof-<pid>" under kprof's
//   own cgroup on the cgroup2 mount (/proc/self/mounts, /proc/self/cgroup);
//   nullopt with the reason in *why where there is none or it may not
//   (not root, a read-only mount, cgroup v1 alone). It first removes the
//   empty kprof-PID cgroups there of a kprof that is gone (SIGKILLed).
// - add() moves a process (the workload's, before it execs) into it;
//   pids() lists the processes in it now.
// - The destructor moves what is still in it (tasks the workload left
//   running) back to kprof's cgroup, then removes it: nothing is left
//   behind, and no task is killed. Errors there are ignored.
// - fd() is the directory's fd, for perf_event_open.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/fd.h"

namespace kprof::collector {

class WorkloadCgroup {
 public:
  static std::optional<WorkloadCgroup> create(std::string* why);
  WorkloadCgroup(WorkloadCgroup&&) noexcept;
  WorkloadCgroup& operator=(WorkloadCgroup&&) = delete;
  WorkloadCgroup(const WorkloadCgroup&) = delete;
  WorkloadCgroup& operator=(const WorkloadCgroup&) = delete;
  ~WorkloadCgroup();

  // "" on success, else why not.
  std::string add(pid_t pid) const;
  std::vector<pid_t> pids() const;
  int fd() const { return dir_.get(); }
  const std::string& path() const { return path_; }

 private:
  WorkloadCgroup(std::string path, std::string parent, Fd dir)
      : path_(std::move(path)), parent_(std::move(parent)), dir_(std::move(dir)) {}
  std::string path_;    // "" once moved from
  std::string parent_;  // kprof's own cgroup directory
  Fd dir_;
};

// Where the cgroup2 hierarchy is mounted ("" if not), from /proc/self/mounts'
// text; and kprof's own cgroup in it, from /proc/self/cgroup's ("0::PATH").
std::string cgroup2_mount(const std::string& mounts);
std::string own_cgroup2(const std::string& proc_self_cgroup);
// The process ids of a cgroup.procs text, one a line; lines that are not a
// positive number are skipped.
std::vector<pid_t> parse_cgroup_procs(const std::string& text);

}  // namespace kprof::collector
