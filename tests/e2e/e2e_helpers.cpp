#include "tests/e2e/e2e_helpers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/fd.h"

namespace kprof::e2e {

std::vector<std::string> RunResult::err_lines() const {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

std::string RunResult::describe() const {
  std::ostringstream s;
  s << "exit " << exit_code << (timed_out ? " (timed out)" : "") << "\n--- stdout:\n"
    << out.substr(0, 4000) << "\n--- stderr:\n"
    << err.substr(0, 4000);
  return s.str();
}

Process::Process(pid_t pid, std::string out_path, std::string err_path, bool group)
    : pid_(pid), out_path_(std::move(out_path)), err_path_(std::move(err_path)), group_(group) {}

Process::Process(Process&& o) noexcept
    : pid_(o.pid_),
      out_path_(std::move(o.out_path_)),
      err_path_(std::move(o.err_path_)),
      group_(o.group_) {
  o.pid_ = -1;
}

Process::~Process() {
  if (pid_ <= 0) return;
  ::kill(group_ ? -pid_ : pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

Process Process::start(const std::vector<std::string>& argv, const std::string& dir,
                       const StartOptions& options) {
  static int counter = 0;  // test-only: names the capture files uniquely
  std::string base = dir + "/run" + std::to_string(++counter);
  std::string out_path = base + ".out", err_path = base + ".err";
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The parent's copies close when this returns.
  const Fd out(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  const Fd err(::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!out || !err) throw std::runtime_error("cannot create capture files in " + dir);
  pid_t pid = ::fork();
  if (pid == 0) {
    if (options.new_process_group) ::setpgid(0, 0);
    if (options.umask) ::umask(*options.umask);
    ::dup2(out.get(), 1);
    ::dup2(err.get(), 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  if (pid < 0) throw std::runtime_error("fork failed");
  if (options.new_process_group) ::setpgid(pid, pid);  // no race with the child's own call
  return Process(pid, out_path, err_path, options.new_process_group);
}

void Process::signal(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

RunResult Process::wait(double timeout_s) {
  RunResult r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    pid_t got = ::waitpid(pid_, &status, WNOHANG);
    if (got == pid_) break;
    if (got < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      ::kill(group_ ? -pid_ : pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path_);
  r.err = read_text(err_path_);
  return r;
}

RunResult run(const std::vector<std::string>& argv, const std::string& dir, double timeout_s,
              const StartOptions& options) {
  return Process::start(argv, dir, options).wait(timeout_s);
}

Killed record_then_kill(const std::vector<std::string>& argv, const std::string& dir,
                        double seconds) {
  Process p = Process::start(argv, dir, {.new_process_group = true});
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  Killed k;
  k.workload = children_of(p.pid());
  p.signal(SIGKILL);
  for (pid_t pid : k.workload) ::kill(pid, SIGKILL);
  k.result = p.wait(10);
  return k;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> kids;
  DIR* d = ::opendir("/proc");
  if (!d) return kids;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::string stat = read_text("/proc/" + std::string(e->d_name) + "/stat");
    // "pid (comm) state ppid ...": comm may hold spaces and parens.
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) kids.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return kids;
}

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/kprof-e2e-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string kprof_binary() {
  return KPROF_BINARY;
}
std::string program(const std::string& name) {
  return std::string(KPROF_PROGRAMS_DIR) + "/" + name;
}

std::map<std::string, uint64_t> by_function(const Histogram& h, Mode mode,
                                            const std::string& image_suffix) {
  std::map<std::string, uint64_t> out;
  for (const FunctionCount& row : h.rows) {
    if (row.mode != mode || row.image >= h.images.size()) continue;
    if (!h.images[row.image].name.ends_with(image_suffix)) continue;
    out[row.function] += row.samples;
  }
  return out;
}

uint64_t sum(const std::map<std::string, uint64_t>& counts) {
  uint64_t total = 0;
  for (const auto& [name, n] : counts) total += n;
  return total;
}

std::string dump(const Histogram& h) {
  std::string s;
  for (const FunctionCount& row : h.rows) {
    s += "  " + std::to_string(row.samples) + " " + mode_name(row.mode) + " " +
         (row.image < h.images.size() ? h.images[row.image].name : "?") + " " + row.function + "\n";
  }
  return s;
}

}  // namespace kprof::e2e
