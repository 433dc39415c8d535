// The kernel side of sampling: the perf_event_open system call (its fd held
// by core/fd.h's Fd) and the mmap'ed ring buffer. Decoding what the ring
// holds is perfabi/perf_record.h (ring_records, decode_perf_record): RingBuffer
// reads data_head with acquire ordering, hands the bytes to ring_records and
// publishes data_tail with release ordering.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "core/fd.h"
#include "core/model.h"
#include "perfabi/perf_record.h"

namespace kprof::collector {

// perf_event_open(2) with O_CLOEXEC. On failure returns an invalid Fd and
// stores errno in *err (0 on success). With `cgroup`, pid is a cgroup
// directory's fd (PERF_FLAG_PID_CGROUP): every task in it, on CPU `cpu`.
Fd open_perf_event(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, int* err,
                   bool cgroup = false);

// The decoding itself is the perf ABI library's; the collector uses it.
using perfabi::RingRead;
using perfabi::SampleLayout;

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

  // Hands `fn` every whole record the kernel has published (as bytes,
  // perfabi::ring_records), then frees them.
  RingRead drain(const std::function<void(const perfabi::RingBytes&)>& fn);
  int fd() const { return fd_; }

 private:
  RingBuffer(int fd, void* base, size_t bytes, size_t page);
  int fd_ = -1;
  void* base_ = nullptr;
  size_t bytes_ = 0;  // whole mapping
  size_t page_ = 0;
};

}  // namespace kprof::collector
