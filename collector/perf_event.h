// The kernel side of sampling: an owning fd type, the perf_event_open system
// call, the mmap'ed ring buffer, and a pure decoder from raw perf records to
// kprof records (core/model.h).
//
// Ring buffer protocol (linux/perf_event.h): the kernel writes records into a
// power-of-two data area and publishes data_head; we read up to data_head
// (acquire), then publish data_tail (release) so the kernel may reuse the
// space. A record may wrap the end of the data area; it is then copied into
// a scratch buffer so callers always see one contiguous span. read_ring() is
// that logic on a plain buffer, so tests and fuzzers drive it without a
// kernel.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "core/model.h"

namespace kprof::collector {

// Owns one file descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// perf_event_open(2) with O_CLOEXEC. On failure returns an invalid Fd and
// stores errno in *err (0 on success).
Fd open_perf_event(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, int* err);

// Which optional fields a PERF_RECORD_SAMPLE carries and whether the other
// records carry the sample_id trailer: exactly the attr fields that decide
// the record layout.
struct SampleLayout {
  uint64_t sample_type = 0;  // PERF_SAMPLE_* bits
  bool sample_id_all = false;
};

// Decodes one complete perf record (header included) and calls the matching
// `sink` method. Record types kprof does not use (THROTTLE, KSYMBOL, ...) are
// skipped; returns true when a record was delivered. Throws kprof::Error on a
// record whose size does not fit its fields, or a sample layout the decoder
// does not support (PERF_SAMPLE_READ, ...). Never reads outside `rec`.
bool decode_perf_record(std::span<const uint8_t> rec, const SampleLayout& layout, RecordSink& sink);

// Result of one pass over a ring buffer.
struct RingRead {
  uint64_t tail = 0;     // new tail to publish
  size_t records = 0;    // records delivered
  bool damaged = false;  // a header with an impossible size: the rest was skipped
};

// Delivers every complete record in ring[tail, head) (positions are free
// running counters, taken modulo ring.size(), which must be a power of two).
// A record that wraps the end is copied into `scratch`. The span passed to
// `fn` is valid only during the call.
RingRead read_ring(std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                   std::vector<uint8_t>& scratch,
                   const std::function<void(std::span<const uint8_t>)>& fn);

// The mmap'ed ring of one event fd: 1 metadata page + 2^n data pages. Owns the
// mapping (munmap on destruction); does not own the fd.
class RingBuffer {
 public:
  // data_pages must be a power of two. Throws kprof::Error (with a hint about
  // --mmap-pages and perf_event_mlock_kb) when the kernel refuses.
  static RingBuffer map(int fd, size_t data_pages);

  RingBuffer(RingBuffer&& o) noexcept;
  RingBuffer& operator=(RingBuffer&& o) noexcept;
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;
  ~RingBuffer();

  // Reads everything the kernel has published and frees it.
  RingRead drain(const std::function<void(std::span<const uint8_t>)>& fn);
  int fd() const { return fd_; }

 private:
  RingBuffer(int fd, void* base, size_t bytes, size_t page);
  int fd_ = -1;
  void* base_ = nullptr;
  size_t bytes_ = 0;  // whole mapping
  size_t page_ = 0;
  std::vector<uint8_t> scratch_;
};

}  // namespace kprof::collector
