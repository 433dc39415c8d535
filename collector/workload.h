// The profiled command: forked early, held before exec until the events are
// set up (so enable_on_exec starts counting exactly at exec), then released.
// An exec failure comes back through a close-on-exec pipe as an Error; a
// Workload destroyed while its child still runs kills (SIGKILL) and reaps it,
// so nothing is left behind.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "collector/perf_event.h"
#include "core/model.h"

namespace kprof::collector {

struct WorkloadResult {
  ExitStatus exit;
  double real_s = 0, user_s = 0, sys_s = 0;  // wall time since release, rusage
};

class Workload {
 public:
  // Forks; the child sets `child_mask` as its signal mask and waits for go().
  // With `pipe_stdout` the child's stdout is a pipe whose read end is
  // stdout_pipe() (for --score-from: the caller passes the output on).
  // Throws kprof::Error when fork fails or argv is empty.
  static Workload start(const std::vector<std::string>& argv, const sigset_t& child_mask,
                        bool pipe_stdout = false);

  Workload(Workload&&) noexcept;
  Workload& operator=(Workload&&) = delete;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;
  ~Workload();

  pid_t pid() const { return pid_; }
  int stdout_pipe() const { return out_.get(); }  // -1 without pipe_stdout
  // Lets the child exec. Throws Error("cannot run 'X': <strerror>") when exec
  // fails (the child is reaped first).
  void go();
  void kill(int sig) const;
  // Reaps the child when it has exited (WNOHANG); nullopt while it runs.
  std::optional<WorkloadResult> try_wait();
  WorkloadResult wait();  // blocks

 private:
  Workload(pid_t pid, Fd go, Fd err, std::string name);
  std::optional<WorkloadResult> reap(int options);
  pid_t pid_ = -1;  // -1 once reaped
  Fd go_, err_, out_;
  std::string name_;
  uint64_t released_ns_ = 0;
};

// Looks `name` up like execvp would (a name with '/' is taken as a path).
// Returns the path found, or "" when there is no executable of that name.
std::string find_in_path(const std::string& name);

}  // namespace kprof::collector
