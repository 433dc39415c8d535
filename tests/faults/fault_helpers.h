// Helpers for the fault tests: RAII guards for what the tests change on the
// machine (a tmpfs mount, a sysctl), running a command as `nobody`, and small
// readers of profiles. Every guard restores the machine in its destructor,
// so a failing assertion leaves nothing behind.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_layout.h"
#include "core/model.h"
#include "tests/e2e/e2e_helpers.h"

namespace kprof::faults {

// For the guards below, which need root: skips the test when not root, and
// fails it when root could not set the machine up (a failed mount(2) or an
// unwritable /proc/sys is a broken test machine, not a reason to pass).
#define KPROF_REQUIRE_ROOT_SETUP(ok, why)          \
  do {                                             \
    if (!(ok)) {                                   \
      if (::geteuid() != 0) GTEST_SKIP() << (why); \
      FAIL() << (why);                             \
    }                                              \
  } while (0)

// Mounts a tmpfs at `dir` (created if needed); unmounts (lazily) on
// destruction. ok() is false, with why(), when not root or mount(2) fails.
class TmpfsMount {
 public:
  TmpfsMount(const std::string& dir, const std::string& options, bool read_only = false);
  ~TmpfsMount();
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  bool ok() const { return mounted_; }
  const std::string& why() const { return why_; }

 private:
  std::string dir_, why_;
  bool mounted_ = false;
};

// Sets /proc/sys/<name> to `value`, puts the previous value back on
// destruction. ok() is false, with why(), when it cannot be read or written.
class SysctlGuard {
 public:
  SysctlGuard(const std::string& name, const std::string& value);
  ~SysctlGuard();
  SysctlGuard(const SysctlGuard&) = delete;
  SysctlGuard& operator=(const SysctlGuard&) = delete;
  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }

 private:
  std::string path_, old_, why_;
  bool ok_ = false;
};

// argv prefix that runs a command as nobody:nogroup without supplementary
// groups, or empty with *why set when that is not possible here.
std::vector<std::string> as_nobody(std::string* why);

// Fills the file system holding `dir` with a file until it is full. Returns
// the bytes written.
uint64_t fill_disk(const std::string& dir);

// Whether a process is still running (not gone, not a zombie).
bool is_running(pid_t pid);

class SampleCounter : public RecordSink {
 public:
  void on_sample(const Sample&) override { ++samples; }
  void on_mmap(const Mmap& m) override { mmaps.push_back(m); }
  uint64_t samples = 0;
  std::vector<Mmap> mmaps;
};

// Number of chunks of `type` in the file (complete ones only); 0 when the
// file does not exist or is not a profile yet.
size_t count_chunks(const std::string& path, ChunkType type);

using e2e::by_function;  // tests/e2e/e2e_helpers.h
using e2e::dump;

// Stderr lines that contain `needle` (case-insensitive).
std::vector<std::string> lines_mentioning(const std::vector<std::string>& lines,
                                          const std::string& needle);

std::vector<uint8_t> read_bytes(const std::string& path);

}  // namespace kprof::faults
