#include "collector/workload.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "collector/procfs.h"
#include "core/error.h"

namespace kprof::collector {

namespace {

double seconds(const timeval& tv) {
  return tv.tv_sec + tv.tv_usec / 1e6;
}

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void child_main(char** argv, const sigset_t& mask, int go_fd, int err_fd, int out_fd) {
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  if (out_fd >= 0 && ::dup2(out_fd, STDOUT_FILENO) < 0) ::_exit(127);
  char byte;
  ssize_t n;
  do {
    n = ::read(go_fd, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(127);  // the parent gave up before go()
  ::close(go_fd);
  ::execvp(argv[0], argv);
  int e = errno;
  (void)!::write(err_fd, &e, sizeof e);
  ::_exit(127);
}

}  // namespace

Workload Workload::start(const std::vector<std::string>& argv, const sigset_t& child_mask,
                         bool pipe_stdout) {
  if (argv.empty()) throw Error("no command to run");
  int go[2], err[2];
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw Error(errno_message("cannot create a pipe", errno));
  }
  Fd go_r(go[0]), go_w(go[1]), err_r(err[0]), err_w(err[1]);
  Fd out_r, out_w;
  if (pipe_stdout) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw Error(errno_message("cannot create a pipe", errno));
    out_r = Fd(out[0]);
    out_w = Fd(out[1]);
    ::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
  }
  // Built before fork: the child must not allocate.
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw Error(errno_message("cannot fork", errno));
  if (pid == 0) child_main(cargv.data(), child_mask, go_r.get(), err_w.get(), out_w.get());
  Workload w(pid, std::move(go_w), std::move(err_r), argv[0]);
  w.out_ = std::move(out_r);  // out_w closes here: the child holds the only write end
  return w;
}

Workload::Workload(pid_t pid, Fd go, Fd err, std::string name)
    : pid_(pid), go_(std::move(go)), err_(std::move(err)), name_(std::move(name)) {}

Workload::Workload(Workload&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)),
      go_(std::move(o.go_)),
      err_(std::move(o.err_)),
      out_(std::move(o.out_)),
      name_(std::move(o.name_)),
      released_ns_(o.released_ns_) {}

Workload::~Workload() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void Workload::go() {
  released_ns_ = monotonic_ns();
  char byte = 1;
  if (::write(go_.get(), &byte, 1) != 1) throw Error(errno_message("cannot start " + name_, errno));
  go_.reset();
  int e = 0;
  ssize_t n;
  do {
    n = ::read(err_.get(), &e, sizeof e);
  } while (n < 0 && errno == EINTR);
  err_.reset();
  if (n == sizeof e) {
    wait();
    throw Error(errno_message("cannot run '" + name_ + "'", e));
  }
}

void Workload::kill(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

std::optional<WorkloadResult> Workload::reap(int options) {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  rusage ru{};
  pid_t r;
  do {
    r = ::wait4(pid_, &status, options, &ru);
  } while (r < 0 && errno == EINTR);
  if (r <= 0) return std::nullopt;
  pid_ = -1;
  WorkloadResult out;
  if (WIFEXITED(status)) {
    out.exit = {ExitStatus::Kind::Exited, WEXITSTATUS(status)};
  } else if (WIFSIGNALED(status)) {
    out.exit = {ExitStatus::Kind::Signaled, WTERMSIG(status)};
  }
  out.real_s = released_ns_ ? (monotonic_ns() - released_ns_) / 1e9 : 0;
  out.user_s = seconds(ru.ru_utime);
  out.sys_s = seconds(ru.ru_stime);
  return out;
}

std::optional<WorkloadResult> Workload::try_wait() {
  return reap(WNOHANG);
}

WorkloadResult Workload::wait() {
  auto r = reap(0);
  return r ? *r : WorkloadResult{};
}

std::string find_in_path(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) {
    return ::access(name.c_str(), X_OK) == 0 ? name : "";
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return "";
}

}  // namespace kprof::collector
