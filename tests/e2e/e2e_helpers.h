// Helpers for the end-to-end tests: run a command with its stdout/stderr
// captured and a timeout, start one and signal it mid-run, temp dirs, and
// where the built kprof and test programs live.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "tests/support/text_files.h"

namespace kprof::e2e {

// How a finished command ended. `exit_code` follows the shell: the exit
// status, or 128+signal when it was killed.
struct RunResult {
  int exit_code = -1;
  bool timed_out = false;  // killed by us after the timeout
  std::string out, err;
  std::vector<std::string> err_lines() const;  // non-empty stderr lines
  std::string describe() const;                // for failure messages: code, stdout, stderr
};

struct StartOptions {
  bool new_process_group = false;  // setpgid(0, 0) in the child
  std::optional<mode_t> umask;     // umask for the child
};

// A started child whose stdout/stderr go to files in `dir`. The destructor
// SIGKILLs and reaps it if it is still running.
class Process {
 public:
  static Process start(const std::vector<std::string>& argv, const std::string& dir,
                       const StartOptions& options = {});
  Process(Process&&) noexcept;
  Process& operator=(Process&&) = delete;
  ~Process();

  pid_t pid() const { return pid_; }
  void signal(int sig) const;
  // Waits up to `timeout_s`; on timeout SIGKILLs the child (and its process
  // group when it has one) and returns timed_out = true.
  RunResult wait(double timeout_s);

 private:
  Process(pid_t pid, std::string out_path, std::string err_path, bool group);
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
  bool group_ = false;
};

RunResult run(const std::vector<std::string>& argv, const std::string& dir, double timeout_s = 60,
              const StartOptions& options = {});

// Direct children of `pid`, from /proc/*/stat.
std::vector<pid_t> children_of(pid_t pid);

// Starts `argv` (kprof record ... -- WORKLOAD) in a process group of its
// own, lets it run `seconds`, then SIGKILLs kprof and its workload (its
// children then), as a crash or the OOM killer would. `result` is kprof's
// (exit 128 + SIGKILL when all went as meant); `workload` the pids killed.
struct Killed {
  RunResult result;
  std::vector<pid_t> workload;
};
Killed record_then_kill(const std::vector<std::string>& argv, const std::string& dir,
                        double seconds = 2.5);

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

using test::read_text;
using test::write_text;

std::string kprof_binary();                    // KPROF_BINARY
std::string program(const std::string& name);  // KPROF_PROGRAMS_DIR/name

// Samples per function name among rows of `mode` whose image name ends with
// `image_suffix` ("" = any image).
std::map<std::string, uint64_t> by_function(const Histogram& h, Mode mode,
                                            const std::string& image_suffix = "");
uint64_t sum(const std::map<std::string, uint64_t>& counts);
// Every row of a histogram, one per line, for failure messages.
std::string dump(const Histogram& h);

}  // namespace kprof::e2e
