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

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Fd open_perf_event(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, int* err) {
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
  *err = fd < 0 ? errno : 0;
  return Fd(fd < 0 ? -1 : static_cast<int>(fd));
}

// ------------------------------------------------------------------ decoding

namespace {

constexpr uint64_t kTrailerBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
// Callchain entries at or above this are PERF_CONTEXT_* markers, not ips.
constexpr uint64_t kMaxContext = static_cast<uint64_t>(-4095);

Mode mode_of(uint16_t misc) {
  switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
    case PERF_RECORD_MISC_KERNEL:
      return Mode::Kernel;
    case PERF_RECORD_MISC_USER:
      return Mode::User;
    case PERF_RECORD_MISC_HYPERVISOR:
      return Mode::Hypervisor;
    case PERF_RECORD_MISC_GUEST_KERNEL:
      return Mode::GuestKernel;
    case PERF_RECORD_MISC_GUEST_USER:
      return Mode::GuestUser;
    default:
      return Mode::Unknown;
  }
}

// The sample_id trailer of a non-sample record; only its time matters to kprof.
struct Trailer {
  size_t bytes = 0;
  uint64_t time = 0;
};

Trailer read_trailer(std::span<const uint8_t> body, const SampleLayout& layout) {
  Trailer t;
  if (!layout.sample_id_all) return t;
  t.bytes = 8 * static_cast<size_t>(__builtin_popcountll(layout.sample_type & kTrailerBits));
  if (t.bytes > body.size()) {
    throw Error("perf record: sample_id trailer of " + std::to_string(t.bytes) +
                " bytes does not fit in a body of " + std::to_string(body.size()));
  }
  if (layout.sample_type & PERF_SAMPLE_TIME) {
    ByteReader r(body.subspan(body.size() - t.bytes), "perf record sample_id");
    if (layout.sample_type & PERF_SAMPLE_TID) r.u64();
    t.time = r.u64();
  }
  return t;
}

// A NUL-terminated, padded string filling `bytes`; a missing NUL is an error.
std::string padded_string(std::span<const uint8_t> bytes, const char* what) {
  const void* nul = std::memchr(bytes.data(), 0, bytes.size());
  if (nul == nullptr) throw Error(std::string("perf record: unterminated ") + what);
  return std::string(reinterpret_cast<const char*>(bytes.data()),
                     static_cast<const uint8_t*>(nul) - bytes.data());
}

std::string hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

void decode_sample(ByteReader& r, uint16_t misc, const SampleLayout& layout, RecordSink& sink) {
  const uint64_t st = layout.sample_type;
  if (st & (PERF_SAMPLE_READ)) throw Error("perf record: PERF_SAMPLE_READ is not supported");
  Sample s;
  s.mode = mode_of(misc);
  if (st & PERF_SAMPLE_IDENTIFIER) r.u64();
  if (st & PERF_SAMPLE_IP) s.ip = r.u64();
  if (st & PERF_SAMPLE_TID) {
    s.pid = r.u32();
    s.tid = r.u32();
  }
  if (st & PERF_SAMPLE_TIME) s.time = r.u64();
  if (st & PERF_SAMPLE_ADDR) r.u64();
  if (st & PERF_SAMPLE_ID) r.u64();
  if (st & PERF_SAMPLE_STREAM_ID) r.u64();
  if (st & PERF_SAMPLE_CPU) {
    s.cpu = r.u32();
    r.u32();
  }
  if (st & PERF_SAMPLE_PERIOD) s.period = r.u64();
  if (st & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = r.u64();
    if (nr > r.left() / 8) r.fail("callchain of " + std::to_string(nr) + " entries");
    s.callchain.reserve(nr);
    s.kernel_frames = 0;
    s.kernel_frames_known = true;
    // The markers say whose frames follow: the kernel's, then (for a sample
    // taken in a syscall or interrupt from user space) the user's. Frames
    // after any other context (guest, hypervisor) or out of that order are
    // read past and not kept.
    uint64_t context = s.mode == Mode::Kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER;
    bool cut = false;
    for (uint64_t i = 0; i < nr; ++i) {
      const uint64_t ip = r.u64();
      if (ip >= kMaxContext) {
        context = ip;
        continue;
      }
      if (cut) continue;
      if (context == PERF_CONTEXT_KERNEL && s.callchain.size() == s.kernel_frames) {
        ++s.kernel_frames;
      } else if (context != PERF_CONTEXT_USER) {
        cut = true;
        continue;
      }
      s.callchain.push_back(ip);
    }
  }
  sink.on_sample(s);
}

// PERF_RECORD_MMAP and MMAP2 share their first fields; MMAP2 adds the device
// and inode (or the build-id), prot and flags. `r` ends before the sample_id
// trailer, so the filename is what is left.
void decode_mmap(ByteReader& r, bool v2, uint16_t misc, uint64_t time, RecordSink& sink) {
  Mmap m;
  m.time = time;
  m.pid = r.u32();
  m.tid = r.u32();
  m.start = r.u64();
  m.len = r.u64();
  m.pgoff = r.u64();
  if (!v2) {
    m.prot = 4;  // PERF_RECORD_MMAP is only sent for executable mappings here
  } else {
    if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      uint8_t size = r.u8();
      r.raw(3);
      auto id = r.raw(20);
      m.build_id = hex(id.first(std::min<size_t>(size, 20)));
    } else {
      r.raw(24);  // maj, min, ino, ino_generation
    }
    m.prot = r.u32();
    m.flags = r.u32();
  }
  m.filename = padded_string(r.raw(r.left()), v2 ? "mmap2 filename" : "mmap filename");
  sink.on_mmap(m);
}

}  // namespace

bool decode_perf_record(std::span<const uint8_t> rec, const SampleLayout& layout,
                        RecordSink& sink) {
  ByteReader h(rec, "perf record header");
  const uint32_t type = h.u32();
  const uint16_t misc = h.u16();
  const uint16_t size = h.u16();
  if (size != rec.size()) {
    throw Error("perf record: header says " + std::to_string(size) + " bytes, record has " +
                std::to_string(rec.size()));
  }
  const std::span<const uint8_t> body = rec.subspan(8);
  if (type == PERF_RECORD_SAMPLE) {
    ByteReader r(body, "perf sample record");
    decode_sample(r, misc, layout, sink);
    return true;
  }
  // Every other record: fixed fields, maybe a string, then the trailer.
  switch (type) {
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_MMAP:
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES:
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      break;
    default:
      return false;
  }
  const Trailer t = read_trailer(body, layout);
  ByteReader r(body.first(body.size() - t.bytes), "perf record");
  switch (type) {
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_MMAP:
      decode_mmap(r, type == PERF_RECORD_MMAP2, misc, t.time, sink);
      break;
    case PERF_RECORD_COMM: {
      Comm c;
      c.time = t.time;
      c.exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      c.pid = r.u32();
      c.tid = r.u32();
      c.comm = padded_string(r.raw(r.left()), "comm");
      sink.on_comm(c);
      break;
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      Fork f;
      f.pid = r.u32();
      f.ppid = r.u32();
      f.tid = r.u32();
      f.ptid = r.u32();
      f.time = r.u64();
      if (type == PERF_RECORD_FORK)
        sink.on_fork(f);
      else
        sink.on_exit(f);
      break;
    }
    case PERF_RECORD_LOST: {
      r.u64();  // id
      sink.on_lost(Lost{t.time, r.u64()});
      break;
    }
    case PERF_RECORD_LOST_SAMPLES:
      sink.on_lost(Lost{t.time, r.u64()});
      break;
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE: {
      const uint64_t time = r.u64();  // then id, stream_id
      r.u64();
      r.u64();
      if (type == PERF_RECORD_THROTTLE) sink.on_throttle(time);
      break;
    }
  }
  return true;
}

// ------------------------------------------------------------------ ring

RingRead read_ring(std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                   std::vector<uint8_t>& scratch,
                   const std::function<void(std::span<const uint8_t>)>& fn) {
  RingRead out;
  const uint64_t mask = ring.size() - 1;
  if (ring.empty() || (ring.size() & mask) != 0 || head - tail > ring.size()) {
    out.tail = head;
    out.damaged = true;
    return out;
  }
  auto copy = [&](uint64_t pos, size_t n, uint8_t* dst) {
    const size_t off = pos & mask;
    const size_t first = std::min<size_t>(n, ring.size() - off);
    std::memcpy(dst, ring.data() + off, first);
    std::memcpy(dst + first, ring.data(), n - first);
  };
  while (head - tail >= sizeof(perf_event_header)) {
    perf_event_header hdr;
    copy(tail, sizeof hdr, reinterpret_cast<uint8_t*>(&hdr));
    if (hdr.size < sizeof hdr || hdr.size > head - tail) {
      out.damaged = true;
      tail = head;
      break;
    }
    const size_t off = tail & mask;
    if (off + hdr.size <= ring.size()) {
      fn(ring.subspan(off, hdr.size));
    } else {
      scratch.resize(hdr.size);
      copy(tail, hdr.size, scratch.data());
      fn(std::span<const uint8_t>(scratch.data(), hdr.size));
    }
    tail += hdr.size;
    ++out.records;
  }
  out.tail = tail;
  return out;
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
    : fd_(o.fd_),
      base_(std::exchange(o.base_, nullptr)),
      bytes_(o.bytes_),
      page_(o.page_),
      scratch_(std::move(o.scratch_)) {}

RingBuffer& RingBuffer::operator=(RingBuffer&& o) noexcept {
  if (this != &o) {
    if (base_ != nullptr) ::munmap(base_, bytes_);
    fd_ = o.fd_;
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = o.bytes_;
    page_ = o.page_;
    scratch_ = std::move(o.scratch_);
  }
  return *this;
}

RingBuffer::~RingBuffer() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
}

RingRead RingBuffer::drain(const std::function<void(std::span<const uint8_t>)>& fn) {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  const uint64_t head = std::atomic_ref<__u64>(meta->data_head).load(std::memory_order_acquire);
  const uint64_t tail = meta->data_tail;
  std::span<const uint8_t> data(static_cast<const uint8_t*>(base_) + page_, bytes_ - page_);
  RingRead r = read_ring(data, tail, head, scratch_, fn);
  std::atomic_ref<__u64>(meta->data_tail).store(r.tail, std::memory_order_release);
  return r;
}

}  // namespace kprof::collector
