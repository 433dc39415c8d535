// A byte buffer in its own anonymous mapping, for what a reader
// decompresses megabytes at a time (a Records chunk is up to 4 MiB): reused
// from chunk to chunk, so each page is touched fresh once per walk, grown
// without copying what it held, never zero-filled, and handed back whole
// when it goes.
//
// Plain pages, not transparent huge pages (asked for until stop 49): after
// a pause, the kernel's zeroing of fresh huge pages took up to 21 ms of one
// --time report's reading thread (clear_page_erms, profiled with perf), and
// a --time 10%,50% report run 3 s after the last took 44-54 ms with huge
// pages against 35-44 ms without (bench/report_ab.sh with PAUSE=3, medians
// of 11, both orders); back to back, huge pages were ~5% faster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace kprof {

class BigBuffer {
 public:
  BigBuffer() = default;
  BigBuffer(BigBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
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
  uint8_t* data_ = nullptr;  // the mapping
  size_t capacity_ = 0;
};

}  // namespace kprof
