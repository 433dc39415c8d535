#include "core/input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/error.h"
#include "core/mapped_file.h"

namespace kprof {

void refuse_terminal_stdin() {
  if (::isatty(STDIN_FILENO) == 1) {
    throw Error(
        "standard input is a terminal: pipe a profile in (ssh host cat x.kprof | kprof report "
        "-)");
  }
}

bool rereadable_input(const std::string& path) {
  struct stat st {};
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<uint8_t> read_fd(int fd, const std::string& name, size_t limit) {
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  while (bytes.size() < limit) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - bytes.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_message("cannot read " + name, errno));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  if (path == "-") {
    refuse_terminal_stdin();
    return read_fd(STDIN_FILENO, "standard input");
  }
  const InputFile in = InputFile::open(path, "record one with kprof record -o " + path);
  return read_fd(in.fd(), path);
}

}  // namespace kprof
