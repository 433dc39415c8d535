#include "core/big_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace kprof {

namespace {
constexpr size_t kHugePage = 2u << 20;
}

BigBuffer::~BigBuffer() {
  if (base_ != nullptr) ::munmap(base_, mapped_);
}

uint8_t* BigBuffer::reserve(size_t n) {
  if (n <= capacity_) return data_;
  // Room to start on a huge page boundary, and twice what was there, so a
  // walk's growing chunks map a few times, not once each.
  const size_t want = (std::max(n, 2 * capacity_) + kHugePage - 1) / kHugePage * kHugePage;
  const size_t mapped = want + kHugePage;
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw Error(
        errno_message("cannot map " + std::to_string(mapped >> 20) + " MiB to read into", errno));
  }
  if (base_ != nullptr) ::munmap(base_, mapped_);
  base_ = p;
  mapped_ = mapped;
  const auto at = reinterpret_cast<uintptr_t>(p);
  data_ = static_cast<uint8_t*>(p) + (kHugePage - at % kHugePage) % kHugePage;
  capacity_ = want;
#ifdef MADV_HUGEPAGE
  ::madvise(data_, capacity_, MADV_HUGEPAGE);  // a hint: without huge pages, plain pages
#endif
  return data_;
}

void advise_huge_pages(void* p, size_t n) {
#ifdef MADV_HUGEPAGE
  const size_t head = (kHugePage - reinterpret_cast<uintptr_t>(p) % kHugePage) % kHugePage;
  if (n < head + kHugePage) return;
  ::madvise(static_cast<uint8_t*>(p) + head, (n - head) / kHugePage * kHugePage, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace kprof
