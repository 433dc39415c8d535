// Fuzzes the loader every view uses (importer/load_any.cpp) as the views
// call it: the input as a file (a memfd, loaded by its /proc/self/fd path:
// read by offset) and as standard input (a pipe: read once, as a stream),
// so the format sniff, the kprof reader both ways, and the listing reader
// with its NUL and size checks run on the bytes. A perf.data stops at the
// sniff: perf_data_fuzzer reads it, and importing one would open the files
// its mappings name. Checks that load_any returns or throws kprof::Error
// only, with one line that is not empty.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"
#include "importer/import.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

bool write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void load(const std::string& path) {
  try {
    (void)kprof::importer::load_any(path, {});
  } catch (const kprof::Error& e) {
    const std::string_view what = e.what();
    check(!what.empty() && what.find('\n') == std::string_view::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  if (kprof::importer::sniff_format(in.first(std::min(size, kprof::importer::kSniffBytes))) ==
      kprof::importer::InputFormat::PerfData) {
    return 0;
  }
  // As a file.
  const int file = ::memfd_create("load_any_fuzz", MFD_CLOEXEC);
  check(file >= 0);
  check(write_all(file, data, size));
  load("/proc/self/fd/" + std::to_string(file));
  ::close(file);

  // As standard input: the whole input in the pipe's buffer, then its end.
  int p[2];
  check(::pipe2(p, O_CLOEXEC) == 0);
  if (::fcntl(p[1], F_SETPIPE_SZ, 1 << 20) >= static_cast<int>(size) &&
      write_all(p[1], data, size)) {
    ::close(p[1]);
    const int saved = ::dup(STDIN_FILENO);
    check(::dup2(p[0], STDIN_FILENO) == STDIN_FILENO);
    load("-");
    if (saved >= 0) {
      ::dup2(saved, STDIN_FILENO);
      ::close(saved);
    } else {
      ::close(STDIN_FILENO);
    }
  } else {
    ::close(p[1]);
  }
  ::close(p[0]);
  return 0;
}
