// Input that is no profile, or stops being a listing, is refused by the
// kprof binary at once, from what it has read so far, with one line naming
// the input, exit 1 and bounded memory: `kprof report /dev/zero` and `kprof
// info /dev/urandom` (endless devices), 300 MB of zeros on standard input,
// a listing's heading followed by binary data, and a listing larger than
// importer::kMaxListingBytes.
//
// Each kprof runs as a child watched while it runs: past the memory bound
// (its RSS, from /proc/PID/statm) or a generous timeout it is killed and the
// test fails, so a kprof that reads on forever fails here instead of
// filling the machine's memory. Its peak RSS comes from wait4 when it ends.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "importer/import.h"
#include "tests/support/text_files.h"

#if defined(__SANITIZE_ADDRESS__)
#define KPROF_BOUNDS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KPROF_BOUNDS_SANITIZED 1
#endif
#endif
#ifndef KPROF_BOUNDS_SANITIZED
#define KPROF_BOUNDS_SANITIZED 0
#endif

namespace kprof::importer {
namespace {

// What kprof needs to refuse an input: its own code and libraries, and the
// few KiB it read. ASan's shadow memory and quarantine add to that; reading
// the whole input (300 MB here) or on forever (/dev/zero) breaks either.
constexpr long kRefuseRssMb = KPROF_BOUNDS_SANITIZED ? 256 : 48;
// Generous: a refusal takes milliseconds; reading 300 MB took seconds.
constexpr double kTimeoutS = 30;

struct Child {
  int exit_code = -1;
  bool timed_out = false;  // killed after kTimeoutS
  long killed_at_mb = 0;   // killed when its RSS passed the bound (MiB it had then)
  long max_rss_mb = 0;     // wait4's peak
  double seconds = 0;
  std::string err;
  std::string describe() const {
    std::ostringstream s;
    s << "exit " << exit_code << (timed_out ? " (timed out)" : "")
      << (killed_at_mb ? " (killed at " + std::to_string(killed_at_mb) + " MiB)" : "") << ", "
      << seconds << " s, peak RSS " << max_rss_mb << " MiB, stderr: " << err;
    return s.str();
  }
};

long rss_mb(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

std::string own_dir() {
  const std::string dir = ::testing::TempDir() + "/kprof_bounds_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                          std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

// Writes `head`, then `zeros` zero bytes, to `fd` (a pipe's write end), then
// closes it; in a child of its own, which a reader that stops reading ends
// with SIGPIPE.
pid_t start_writer(int fd, const std::string& head, size_t zeros) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::signal(SIGPIPE, SIG_DFL);
  std::vector<char> block(1 << 16, 0);
  auto put = [&](const char* p, size_t n) {
    while (n > 0) {
      const ssize_t k = ::write(fd, p, n);
      if (k < 0) {
        if (errno == EINTR) continue;
        _exit(0);  // the reader is gone
      }
      p += k;
      n -= static_cast<size_t>(k);
    }
  };
  put(head.data(), head.size());
  for (size_t left = zeros; left > 0;) {
    const size_t n = std::min(left, block.size());
    put(block.data(), n);
    left -= n;
  }
  _exit(0);
}

// Runs kprof with `args`, its standard input `stdin_head` then
// `stdin_zeros` zero bytes through a pipe (when either is given), watched
// against `rss_bound_mb`.
Child run_kprof(const std::vector<std::string>& args, long rss_bound_mb,
                const std::string& stdin_head = "", size_t stdin_zeros = 0) {
  const std::string dir = own_dir();
  const std::string err_path = dir + "/stderr";
  const bool feed = !stdin_head.empty() || stdin_zeros != 0;
  int pipe_fds[2] = {-1, -1};
  if (feed && ::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int in = feed ? pipe_fds[0] : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out < 0 || err < 0 || in < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 ||
        ::dup2(in, 0) < 0) {
      _exit(126);
    }
    std::vector<std::string> argv = {KPROF_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (std::string& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    ::execv(c[0], c.data());
    _exit(127);
  }
  pid_t writer = -1;
  if (feed) {
    ::close(pipe_fds[0]);
    writer = start_writer(pipe_fds[1], stdin_head, stdin_zeros);
    ::close(pipe_fds[1]);
  }
  Child r;
  int status = 0;
  rusage ru{};
  while (true) {
    const pid_t done = ::wait4(pid, &status, WNOHANG, &ru);
    if (done == pid) break;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const long rss = rss_mb(pid);
    if (rss > rss_bound_mb && r.killed_at_mb == 0) {
      r.killed_at_mb = rss;
      ::kill(pid, SIGKILL);
    } else if (s > kTimeoutS && !r.timed_out) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (writer > 0) {
    ::kill(writer, SIGKILL);
    ::waitpid(writer, nullptr, 0);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.max_rss_mb = ru.ru_maxrss / 1024;  // KiB on Linux
  r.err = test::read_text(err_path);
  std::filesystem::remove_all(dir);
  return r;
}

// Exit 1 within the bounds, one line on stderr naming `name` and holding `says`.
void expect_refused(const Child& r, long rss_bound_mb, const std::string& name,
                    const std::string& says) {
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.killed_at_mb, 0) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_LE(r.max_rss_mb, rss_bound_mb) << r.describe();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.describe();
  EXPECT_NE(r.err.find(name + " " + says), std::string::npos) << r.describe();
}

const char* const kNotAny =
    "is not a kprof profile, a perf.data file, or an opreport / perf report listing";

TEST(LoadBounds, ReportOfDevZeroIsRefusedAtOnce) {
  expect_refused(run_kprof({"report", "/dev/zero"}, kRefuseRssMb), kRefuseRssMb, "/dev/zero",
                 kNotAny);
}

TEST(LoadBounds, InfoOfDevUrandomIsRefusedAtOnce) {
  expect_refused(run_kprof({"info", "/dev/urandom"}, kRefuseRssMb), kRefuseRssMb, "/dev/urandom",
                 kNotAny);
}

// head -c 300M /dev/zero | kprof report -
TEST(LoadBounds, ZerosOnStandardInputAreRefusedAtOnce) {
  expect_refused(run_kprof({"report", "-"}, kRefuseRssMb, "", 300u << 20), kRefuseRssMb, "stdin",
                 kNotAny);
}

// A listing's first kSniffBytes (a binary input has a NUL byte among them:
// no listing), then binary data: refused as soon as it is read, not after
// the stream ends.
TEST(LoadBounds, ListingThenZerosIsRefusedAtItsFirstNul) {
  std::string text = "# Overhead  Command  Shared Object  Symbol\n";
  while (text.size() <= kSniffBytes) text += "     0.01%  busy     busy           [.] spin\n";
  const Child r = run_kprof({"report", "-"}, kRefuseRssMb, text, 300u << 20);
  expect_refused(r, kRefuseRssMb, "stdin",
                 "holds a NUL byte at offset " + std::to_string(text.size()));
}

// A stream of text past kMaxListingBytes: refused once it passes, holding
// no more than the listing cap (and kprof's own).
TEST(LoadBounds, ListingLargerThanTheCapIsRefused) {
  std::string text = "# Overhead  Command  Shared Object  Symbol\n";
  const std::string row = "     0.01%  busy     busy           [.] spin\n";
  while (text.size() < kMaxListingBytes + (4u << 20)) text += row;
  const long bound = kRefuseRssMb + static_cast<long>(kMaxListingBytes >> 20) + 16;
  const Child r = run_kprof({"report", "-"}, bound, text);
  expect_refused(r, bound, "stdin", "is over 64 MiB");
}

}  // namespace
}  // namespace kprof::importer
