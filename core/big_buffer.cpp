#include "core/big_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace kprof {

namespace {
constexpr size_t kPage = 4096;
}

BigBuffer::~BigBuffer() {
  if (data_ != nullptr) ::munmap(data_, capacity_);
}

uint8_t* BigBuffer::reserve(size_t n) {
  if (n <= capacity_) return data_;
  // Twice what was there, so a walk's growing chunks map a few times, not
  // once each.
  const size_t want = (std::max(n, 2 * capacity_) + kPage - 1) / kPage * kPage;
  void* p = ::mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw Error(errno_message(
        "cannot map " + std::to_string((want + (1u << 20) - 1) >> 20) + " MiB to read into",
        errno));
  }
  if (data_ != nullptr) ::munmap(data_, capacity_);
  data_ = static_cast<uint8_t*>(p);
  capacity_ = want;
  return data_;
}

}  // namespace kprof
