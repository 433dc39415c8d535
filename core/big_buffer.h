// A byte buffer in its own anonymous mapping, for what a reader
// decompresses megabytes at a time (a Records chunk is up to 4 MiB). On this
// kind of VM a page's first touch costs ~9 µs (touching 4 MiB of fresh
// malloc memory took 9 ms): the mapping asks for transparent huge pages
// (madvise mode, as Debian's kernels have them), one fault per 2 MiB
// (0.3 ms for the same 4 MiB when the kernel has huge pages free), and is
// reused from chunk to chunk, so each page is touched fresh once per walk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace kprof {

class BigBuffer {
 public:
  BigBuffer() = default;
  BigBuffer(BigBuffer&& o) noexcept
      : base_(std::exchange(o.base_, nullptr)),
        mapped_(std::exchange(o.mapped_, 0)),
        data_(std::exchange(o.data_, nullptr)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  BigBuffer& operator=(BigBuffer&&) = delete;
  BigBuffer(const BigBuffer&) = delete;
  BigBuffer& operator=(const BigBuffer&) = delete;
  ~BigBuffer();

  // At least `n` writable bytes, their contents undefined (not zeroed; what
  // was there is not kept when it grows). Throws kprof::Error when the
  // mapping cannot be made.
  uint8_t* reserve(size_t n);
  size_t capacity() const { return capacity_; }

 private:
  void* base_ = nullptr;  // the mapping
  size_t mapped_ = 0;
  uint8_t* data_ = nullptr;  // its first 2 MiB boundary
  size_t capacity_ = 0;
};

// The same hint for memory someone else allocated (a string's or vector's
// room, reserved and not yet written): the whole 2 MiB pages inside
// [p, p + n) are asked to come as huge pages. Only worth it from a few MiB.
void advise_huge_pages(void* p, size_t n);

}  // namespace kprof
