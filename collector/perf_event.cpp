#include "collector/perf_event.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/bytes.h"
#include "core/error.h"

namespace kprof::collector {

Fd open_perf_event(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, int* err,
                   bool cgroup) {
  const unsigned long flags = PERF_FLAG_FD_CLOEXEC | (cgroup ? PERF_FLAG_PID_CGROUP : 0UL);
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags);
  *err = fd < 0 ? errno : 0;
  return Fd(fd < 0 ? -1 : static_cast<int>(fd));
}

RingBuffer RingBuffer::map(int fd, size_t data_pages) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0) {
    throw Error("--mmap-pages " + std::to_string(data_pages) + " is not a power of two");
  }
  const size_t bytes = (1 + data_pages) * page;
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    throw Error(errno_message("cannot map a perf ring buffer of " + std::to_string(data_pages) +
                                  " pages (try a smaller --mmap-pages, or raise "
                                  "kernel.perf_event_mlock_kb)",
                              errno));
  }
  return RingBuffer(fd, base, bytes, page);
}

RingBuffer::RingBuffer(int fd, void* base, size_t bytes, size_t page)
    : fd_(fd), base_(base), bytes_(bytes), page_(page) {}

RingBuffer::RingBuffer(RingBuffer&& o) noexcept
    : fd_(o.fd_), base_(std::exchange(o.base_, nullptr)), bytes_(o.bytes_), page_(o.page_) {}

RingBuffer& RingBuffer::operator=(RingBuffer&& o) noexcept {
  if (this != &o) {
    if (base_ != nullptr) ::munmap(base_, bytes_);
    fd_ = o.fd_;
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = o.bytes_;
    page_ = o.page_;
  }
  return *this;
}

RingBuffer::~RingBuffer() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
}

RingRead RingBuffer::drain(const std::function<void(const perfabi::RingBytes&)>& fn) {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  const uint64_t head = std::atomic_ref<__u64>(meta->data_head).load(std::memory_order_acquire);
  const uint64_t tail = meta->data_tail;
  std::span<const uint8_t> data(static_cast<const uint8_t*>(base_) + page_, bytes_ - page_);
  perfabi::RingBytes bytes;
  RingRead r = perfabi::ring_records(data, tail, head, bytes);
  fn(bytes);  // before the tail is published: the kernel may then reuse the space
  std::atomic_ref<__u64>(meta->data_tail).store(r.tail, std::memory_order_release);
  return r;
}

}  // namespace kprof::collector
