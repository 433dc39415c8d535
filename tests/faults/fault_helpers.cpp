#include "tests/faults/fault_helpers.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.h"
#include "core/fd.h"
#include "core/profile_reader.h"
#include "tests/e2e/e2e_helpers.h"

namespace kprof::faults {

TmpfsMount::TmpfsMount(const std::string& dir, const std::string& options, bool read_only)
    : dir_(dir) {
  if (::geteuid() != 0) {
    why_ = "mounting a tmpfs needs root";
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  unsigned long flags = MS_NOSUID | MS_NODEV | (read_only ? MS_RDONLY : 0);
  if (::mount("tmpfs", dir.c_str(), "tmpfs", flags, options.c_str()) != 0) {
    why_ = std::string("mount -t tmpfs -o ") + options + " " + dir +
           " failed: " + std::strerror(errno);
    return;
  }
  mounted_ = true;
}

TmpfsMount::~TmpfsMount() {
  if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
}

SysctlGuard::SysctlGuard(const std::string& name, const std::string& value)
    : path_("/proc/sys/" + name) {
  std::ifstream in(path_);
  if (!(in >> old_)) {
    why_ = "cannot read " + path_;
    return;
  }
  if (::geteuid() != 0) {
    why_ = "changing " + path_ + " needs root";
    return;
  }
  std::ofstream out(path_);
  out << value << "\n";
  out.flush();
  if (!out) {
    why_ = "cannot write " + path_ + " (read-only /proc/sys in this container?)";
    return;
  }
  ok_ = true;
}

SysctlGuard::~SysctlGuard() {
  if (!ok_) return;
  std::ofstream out(path_);
  out << old_ << "\n";
}

std::vector<std::string> as_nobody(std::string* why) {
  if (::geteuid() != 0) {
    *why = "switching to user nobody needs root";
    return {};
  }
  if (::getpwnam("nobody") == nullptr || ::getgrnam("nogroup") == nullptr) {
    *why = "no user nobody or group nogroup here";
    return {};
  }
  for (const char* p : {"/usr/bin/setpriv", "/bin/setpriv"}) {
    if (::access(p, X_OK) == 0) {
      return {p, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"};
    }
  }
  *why = "setpriv (util-linux) is not installed";
  return {};
}

uint64_t fill_disk(const std::string& dir) {
  const std::string path = dir + "/filler";
  const Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd) return 0;
  std::vector<char> block(64 << 10, 'x');
  uint64_t total = 0;
  // Whole blocks first, then single bytes for the last partial page.
  for (size_t size : {block.size(), size_t{512}, size_t{1}}) {
    for (;;) {
      ssize_t n = ::write(fd.get(), block.data(), size);
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
    }
  }
  return total;
}

bool is_running(pid_t pid) {
  std::string stat = e2e::read_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' &&
         stat[close + 2] != 'X';
}

size_t count_chunks(const std::string& path, ChunkType type) {
  try {
    ProfileReader reader = ProfileReader::open(path);
    size_t n = 0;
    reader.for_each_chunk([type](uint16_t t) { return t == static_cast<uint16_t>(type); },
                          [&n](const Chunk&) { ++n; });
    return n;
  } catch (const Error&) {
    return 0;
  }
}

std::vector<std::string> lines_mentioning(const std::vector<std::string>& lines,
                                          const std::string& needle) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    if (lower(line).find(lower(needle)) != std::string::npos) out.push_back(line);
  }
  return out;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace kprof::faults
