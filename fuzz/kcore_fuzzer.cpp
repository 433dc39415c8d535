// Fuzzes the /proc/kcore header parser, KernelMemory's reads and the
// interrupt-enable byte rule. Input: the first bytes of a kcore-like file
// (ELF header, program headers, segment data). They are parsed as a header,
// written to a memfd and opened with KernelMemory, which then reads at and
// around each segment's bounds; every prefix of the input is also given to
// follows_irq_enable as the bytes before an ip.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/fd.h"
#include "symbolizer/kcore.h"

namespace {

using kprof::symbolizer::KcoreSegment;
using kprof::symbolizer::KernelMemory;

void check_segments(const std::vector<KcoreSegment>& segments, const std::string& why) {
  if (segments.empty() && why.empty()) __builtin_trap();  // a failure always says why
  for (const KcoreSegment& s : segments) {
    if (s.size == 0 || s.vaddr + s.size < s.vaddr || s.offset + s.size < s.offset) {
      __builtin_trap();
    }
  }
}

void read_around(const KernelMemory& mem) {
  size_t reads = 0;
  for (const KcoreSegment& s : mem.segments()) {
    if (++reads > 16) break;
    for (uint64_t at : {s.vaddr, s.vaddr + s.size - 1, s.vaddr - 1, s.vaddr + s.size}) {
      for (size_t n : {size_t{1}, size_t{9}, size_t{4096}}) {
        const auto bytes = mem.read(at, n);
        if (bytes && bytes->size() != n) __builtin_trap();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);

  std::string why;
  const auto segments = kprof::symbolizer::parse_kcore_segments(in, &why);
  check_segments(segments, why);
  std::string size_why;
  const auto header = kprof::symbolizer::kcore_header_size(in, &size_why);
  if (!segments.empty() && (!header || *header > size)) __builtin_trap();
  if (!header && size_why.empty()) __builtin_trap();

  for (size_t i = 0; i <= size && i <= 64; ++i) {
    (void)kprof::symbolizer::follows_irq_enable(in.first(i));
    (void)kprof::symbolizer::follows_irq_enable(in.last(i));
  }

  const kprof::Fd fd(::memfd_create("kcore", MFD_CLOEXEC));
  if (!fd) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd.get(), data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (done == size) {
    std::string open_why;
    const auto mem = KernelMemory::open(&open_why, "/proc/self/fd/" + std::to_string(fd.get()));
    // The file holds the same bytes: it opens exactly when they parse.
    if (mem.has_value() != !segments.empty()) __builtin_trap();
    if (mem) {
      if (mem->segments().size() != segments.size()) __builtin_trap();
      read_around(*mem);
    } else if (open_why.empty()) {
      __builtin_trap();
    }
  }
  return 0;
}
