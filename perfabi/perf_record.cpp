#include "perfabi/perf_record.h"

#include <cstring>
#include <optional>
#include <string>

#include "core/bytes.h"
#include "core/error.h"

namespace kprof::perfabi {

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

// The sample_id trailer of a non-sample record: its task, time and CPU.
struct Trailer {
  size_t bytes = 0;
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0, cpu = 0;
};

Trailer read_trailer(std::span<const uint8_t> body, const SampleLayout& layout) {
  Trailer t;
  if (!layout.sample_id_all) return t;
  const uint64_t st = layout.sample_type;
  // Bit by bit, not __builtin_popcountll: without -mpopcnt that is a call
  // to libgcc's software count, once per record.
  const auto has = [st](uint64_t bit) -> size_t { return (st & bit) != 0 ? 8 : 0; };
  t.bytes = has(PERF_SAMPLE_TID) + has(PERF_SAMPLE_TIME) + has(PERF_SAMPLE_ID) +
            has(PERF_SAMPLE_STREAM_ID) + has(PERF_SAMPLE_CPU) + has(PERF_SAMPLE_IDENTIFIER);
  if (t.bytes > body.size()) {
    throw Error("perf record: sample_id trailer of " + std::to_string(t.bytes) +
                " bytes does not fit in a body of " + std::to_string(body.size()));
  }
  ByteReader r(body.subspan(body.size() - t.bytes), "perf record sample_id");
  if (st & PERF_SAMPLE_TID) {
    t.pid = r.u32();
    t.tid = r.u32();
  }
  if (st & PERF_SAMPLE_TIME) t.time = r.u64();
  if (st & PERF_SAMPLE_ID) r.u64();
  if (st & PERF_SAMPLE_STREAM_ID) r.u64();
  if (st & PERF_SAMPLE_CPU) t.cpu = r.u32();
  return t;
}

// The sample's kind (and event) from the id it carries.
void kind_of(uint64_t id, const SampleLayout& layout, Sample& s) {
  for (const EventId& known : layout.kinds) {
    if (known.id == id) {
      s.kind = known.kind;
      s.event = known.event;
      return;
    }
  }
}

// A NUL-terminated, padded string filling `bytes`; a missing NUL is an error.
std::string padded_string(std::span<const uint8_t> bytes, const char* what) {
  const void* nul = std::memchr(bytes.data(), 0, bytes.size());
  if (nul == nullptr) throw Error(std::string("perf record: unterminated ") + what);
  return std::string(reinterpret_cast<const char*>(bytes.data()),
                     static_cast<const uint8_t*>(nul) - bytes.data());
}

// The counter values of PERF_SAMPLE_READ (read_format decides their shape);
// kprof does not use them.
void skip_read_values(ByteReader& r, uint64_t read_format) {
  const size_t extra = ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
                       ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
  const size_t per_value =
      1 + ((read_format & PERF_FORMAT_ID) ? 1 : 0) + ((read_format & PERF_FORMAT_LOST) ? 1 : 0);
  if (read_format & PERF_FORMAT_GROUP) {
    const uint64_t nr = r.u64();
    if (nr > r.left() / 8 / per_value) r.fail("read group of " + std::to_string(nr) + " values");
    r.raw(8 * (extra + nr * per_value));
  } else {
    r.raw(8 * (extra + per_value));
  }
}

// `s` as a fresh Sample, its vectors' room kept: zeroing the whole struct
// per record (a rep stos) was a third of decoding a plain sample.
void reset(Sample& s) {
  s.time = 0;
  s.ip = 0;
  s.pid = s.tid = s.cpu = 0;
  s.period = 0;
  s.callchain.clear();
  s.kernel_frames = 0;
  s.kernel_frames_known = true;
  s.kind = SampleKind::Cpu;
  s.wakee = 0;
  s.event = 0;
  s.user_regs_mask = 0;
  s.user_regs.clear();
  s.user_stack.clear();
}

void decode_sample(ByteReader& r, uint16_t misc, const SampleLayout& layout, RecordSink& sink,
                   Sample& s) {
  const uint64_t st = layout.sample_type;
  reset(s);
  s.mode = mode_of(misc);
  if (st & PERF_SAMPLE_IDENTIFIER) kind_of(r.u64(), layout, s);
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
  if (st & PERF_SAMPLE_READ) skip_read_values(r, layout.read_format);
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
  if (st & PERF_SAMPLE_RAW) {
    const uint32_t size = r.u32();
    const std::span<const uint8_t> raw = r.raw(size);
    if (s.kind == SampleKind::Wakeup) {
      // Compared without adding to the offset, which a file gives (u32: +4 wraps).
      if (layout.wakee_offset == 0 || raw.size() < 4 || layout.wakee_offset > raw.size() - 4) {
        r.fail("wakeup sample without the woken task's pid");
      }
      std::memcpy(&s.wakee, raw.data() + layout.wakee_offset, sizeof s.wakee);
    }
  }
  if (st & PERF_SAMPLE_BRANCH_STACK) r.fail("branch stacks are not decoded");
  if (st & PERF_SAMPLE_REGS_USER) {
    // abi: PERF_SAMPLE_REGS_ABI_NONE (no user context: a kernel thread) has
    // no registers after it. A 32-bit task's (ABI_32) are read past: the
    // unwinder knows x86-64's registers only, so its stack stays unwound
    // no further than the kernel's chain.
    const uint64_t abi = r.u64();
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
      const auto n = static_cast<size_t>(__builtin_popcountll(layout.regs_user));
      if (n > r.left() / 8) r.fail("user registers");
      s.user_regs.resize(n);
      for (uint64_t& reg : s.user_regs) reg = r.u64();
      if (abi == PERF_SAMPLE_REGS_ABI_64) {
        s.user_regs_mask = layout.regs_user;
      } else {
        s.user_regs.clear();
      }
    }
  }
  if (st & PERF_SAMPLE_STACK_USER) {
    // u64 size, size bytes, then (when size != 0) u64 dyn_size: how many of
    // them the kernel filled.
    const uint64_t size = r.u64();
    if (size != 0) {
      if (size > r.left()) r.fail("user stack of " + std::to_string(size) + " bytes");
      const std::span<const uint8_t> bytes = r.raw(static_cast<size_t>(size));
      const uint64_t dyn = r.u64();
      if (dyn > size) r.fail("user stack filled beyond its size");
      if (!s.user_regs.empty())
        s.user_stack.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(dyn));
    }
  }
  if (const auto ip = user_reg(s, kPerfRegIp);
      ip && (st & PERF_SAMPLE_CALLCHAIN) && s.callchain.size() == s.kernel_frames) {
    // The kernel copied the user context instead of walking it
    // (exclude_callchain_user): its IP is the user part until unwound.
    s.callchain.push_back(*ip);
  }
  sink.on_sample(s);
}

// The fields a sample can carry that are 8 bytes each, whatever the attr.
constexpr uint64_t kFixedSampleBits = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                                      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

// A sample of only those fields (no callchain, raw data, registers or
// stack: `kprof record` and `perf record` without -g), read at fixed
// offsets after one size check instead of field by field. False when the
// layout has more, or the body is too short (decode_sample then says what
// is wrong); what it decodes is what decode_sample would.
bool decode_fixed_sample(std::span<const uint8_t> body, uint16_t misc, const SampleLayout& layout,
                         RecordSink& sink, Sample& s) {
  const uint64_t st = layout.sample_type;
  if ((st & ~kFixedSampleBits) != 0) return false;
  const auto has = [st](uint64_t bit) -> size_t { return (st & bit) ? 8 : 0; };
  const size_t need = has(PERF_SAMPLE_IDENTIFIER) + has(PERF_SAMPLE_IP) + has(PERF_SAMPLE_TID) +
                      has(PERF_SAMPLE_TIME) + has(PERF_SAMPLE_ADDR) + has(PERF_SAMPLE_ID) +
                      has(PERF_SAMPLE_STREAM_ID) + has(PERF_SAMPLE_CPU) + has(PERF_SAMPLE_PERIOD);
  if (need > body.size()) return false;
  const uint8_t* p = body.data();
  const auto next = [&p] {
    uint64_t v;
    std::memcpy(&v, p, 8);
    p += 8;
    return v;
  };
  reset(s);
  s.mode = mode_of(misc);
  if (st & PERF_SAMPLE_IDENTIFIER) kind_of(next(), layout, s);
  if (st & PERF_SAMPLE_IP) s.ip = next();
  if (st & PERF_SAMPLE_TID) {  // u32 pid, u32 tid
    const uint64_t v = next();
    s.pid = static_cast<uint32_t>(v);
    s.tid = static_cast<uint32_t>(v >> 32);
  }
  if (st & PERF_SAMPLE_TIME) s.time = next();
  p += has(PERF_SAMPLE_ADDR) + has(PERF_SAMPLE_ID) + has(PERF_SAMPLE_STREAM_ID);
  if (st & PERF_SAMPLE_CPU) s.cpu = static_cast<uint32_t>(next());  // u32 cpu, u32 res
  if (st & PERF_SAMPLE_PERIOD) s.period = next();
  sink.on_sample(s);
  return true;
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
      m.build_id = hex_bytes(id.first(std::min<size_t>(size, 20)));
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

std::optional<uint64_t> user_reg(const Sample& s, unsigned reg) {
  const uint64_t bit = uint64_t{1} << reg;
  if (reg >= 64 || !(s.user_regs_mask & bit)) return std::nullopt;
  const auto index = static_cast<size_t>(__builtin_popcountll(s.user_regs_mask & (bit - 1)));
  if (index >= s.user_regs.size()) return std::nullopt;
  return s.user_regs[index];
}

bool decode_perf_record(std::span<const uint8_t> rec, const SampleLayout& layout,
                        RecordSink& sink) {
  Sample scratch;
  return decode_perf_record(rec, layout, sink, scratch);
}

bool decode_perf_record(std::span<const uint8_t> rec, const SampleLayout& layout, RecordSink& sink,
                        Sample& scratch) {
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
    if (decode_fixed_sample(body, misc, layout, sink, scratch)) return true;
    ByteReader r(body, "perf sample record");
    decode_sample(r, misc, layout, sink, scratch);
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
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
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
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE: {
      // CPU_WIDE adds the task switched to or from; the trailer says whose switch it is.
      if (!layout.sample_id_all || !(layout.sample_type & PERF_SAMPLE_TID)) {
        throw Error("perf record: a context switch without its task");
      }
      Switch sw;
      sw.time = t.time;
      sw.pid = t.pid;
      sw.tid = t.tid;
      sw.cpu = t.cpu;
      sw.out = (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
      sw.preempted = sw.out && (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
      sink.on_switch(sw);
      break;
    }
  }
  return true;
}

std::optional<uint64_t> record_event_id(std::span<const uint8_t> rec, const SampleLayout& layout) {
  if (rec.size() < sizeof(perf_event_header)) return std::nullopt;
  uint32_t type;
  std::memcpy(&type, rec.data(), 4);
  const uint64_t st = layout.sample_type;
  const std::span<const uint8_t> body = rec.subspan(sizeof(perf_event_header));
  auto u64_at = [&](size_t off) -> std::optional<uint64_t> {
    if (off + 8 > body.size()) return std::nullopt;
    uint64_t v;
    std::memcpy(&v, body.data() + off, 8);
    return v;
  };
  if (type == PERF_RECORD_SAMPLE) {
    if (st & PERF_SAMPLE_IDENTIFIER) return u64_at(0);
    if (!(st & PERF_SAMPLE_ID)) return std::nullopt;
    // IP, TID, TIME and ADDR come before ID, 8 bytes each.
    const uint64_t before =
        st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
    return u64_at(8 * static_cast<size_t>(__builtin_popcountll(before)));
  }
  // perf's own records (types 64 and up, in perf.data files) carry no trailer.
  if (!layout.sample_id_all || type >= 64) return std::nullopt;
  // The trailer ends with IDENTIFIER; before it CPU, STREAM_ID, ID.
  const size_t n = body.size();
  if (st & PERF_SAMPLE_IDENTIFIER) return n >= 8 ? u64_at(n - 8) : std::nullopt;
  if (!(st & PERF_SAMPLE_ID)) return std::nullopt;
  const size_t after = 8 * static_cast<size_t>(__builtin_popcountll(
                               st & (PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID))) +
                       8;
  return n >= after ? u64_at(n - after) : std::nullopt;
}

TimePosition time_position(const SampleLayout& layout) {
  const uint64_t st = layout.sample_type;
  auto bytes_of = [st](uint64_t bits) {
    return 8 * static_cast<uint32_t>(__builtin_popcountll(st & bits));
  };
  TimePosition t;
  t.has = (st & PERF_SAMPLE_TIME) != 0;
  t.in_trailer = layout.sample_id_all;
  t.sample_off = bytes_of(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  // The trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, at the end.
  t.trailer_bytes = bytes_of(kTrailerBits);
  t.trailer_off = bytes_of(PERF_SAMPLE_TID);
  return t;
}

std::optional<uint64_t> record_time_at(std::span<const uint8_t> rec, const TimePosition& t) {
  if (rec.size() < sizeof(perf_event_header) || !t.has) return std::nullopt;
  uint32_t type;
  std::memcpy(&type, rec.data(), 4);
  const size_t body = rec.size() - sizeof(perf_event_header);
  size_t off;
  if (type == PERF_RECORD_SAMPLE) {
    off = t.sample_off;
  } else {
    if (!t.in_trailer || type >= 64 || t.trailer_bytes > body) return std::nullopt;
    off = body - t.trailer_bytes + t.trailer_off;
  }
  if (off + 8 > body) return std::nullopt;
  uint64_t time;
  std::memcpy(&time, rec.data() + sizeof(perf_event_header) + off, 8);
  return time;
}

std::optional<uint64_t> record_time(std::span<const uint8_t> rec, const SampleLayout& layout) {
  return record_time_at(rec, time_position(layout));
}

// ------------------------------------------------------------------ ring

RingRead ring_records(std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                      RingBytes& bytes) {
  RingRead out;
  bytes = {};
  const uint64_t mask = ring.size() - 1;
  if (ring.empty() || (ring.size() & mask) != 0 || head - tail > ring.size()) {
    out.tail = head;
    out.damaged = true;
    return out;
  }
  uint64_t end = tail;
  while (head - end >= sizeof(perf_event_header)) {
    // The size field, at bytes 6 and 7 of the header, either side of the wrap.
    const auto at = [&](uint64_t pos) { return ring[pos & mask]; };
    const auto size = static_cast<uint16_t>(at(end + 6) | (at(end + 7) << 8));
    if (size < sizeof(perf_event_header) || size > head - end) {
      out.damaged = true;
      break;
    }
    end += size;
    ++out.records;
  }
  const size_t off = tail & mask;
  const auto n = static_cast<size_t>(end - tail);
  bytes.first = ring.subspan(off, std::min(n, ring.size() - off));
  bytes.second = ring.first(n - bytes.first.size());
  out.tail = out.damaged ? head : end;
  return out;
}

}  // namespace kprof::perfabi
