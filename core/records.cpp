#include "core/records.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace kprof {

// Deltas are computed with wrapping unsigned arithmetic and stored zigzagged,
// so a jump from a user ip to a kernel ip (close to 2^64) is a small negative
// number and every 64-bit value round-trips.
namespace {
int64_t wrap_delta(uint64_t from, uint64_t to) {
  return static_cast<int64_t>(to - from);
}
}  // namespace

void RecordEncoder::time(uint64_t t) {
  w_.svarint(wrap_delta(last_time_, t));
  last_time_ = t;
}

void RecordEncoder::add(const Sample& s) {
  const size_t n = std::min(s.callchain.size(), kMaxCallchain);
  w_.u8(static_cast<uint8_t>(n == 0 ? RecordKind::Sample : RecordKind::SampleChain));
  time(s.time);
  w_.svarint(wrap_delta(last_ip_, s.ip));
  last_ip_ = s.ip;
  w_.varint(s.pid);
  w_.svarint(wrap_delta(s.pid, s.tid));
  w_.varint(s.cpu);
  w_.u8(static_cast<uint8_t>(s.mode));
  w_.svarint(wrap_delta(last_period_, s.period));
  last_period_ = s.period;
  w_.varint(n);
  uint64_t prev = s.ip;
  for (size_t i = 0; i < n; ++i) {
    w_.svarint(wrap_delta(prev, s.callchain[i]));
    prev = s.callchain[i];
  }
  if (n != 0) w_.varint(std::min<size_t>(s.kernel_frames, n));
  ++count_;
}

void RecordEncoder::add(const Mmap& m) {
  w_.u8(static_cast<uint8_t>(RecordKind::Mmap));
  time(m.time);
  w_.varint(m.pid);
  w_.varint(m.tid);
  w_.varint(m.start);
  w_.varint(m.len);
  w_.varint(m.pgoff);
  w_.varint(m.prot);
  w_.varint(m.flags);
  w_.str(m.build_id);
  w_.str(m.filename);
  ++count_;
}

void RecordEncoder::add(const Comm& c) {
  w_.u8(static_cast<uint8_t>(RecordKind::Comm));
  time(c.time);
  w_.varint(c.pid);
  w_.varint(c.tid);
  w_.u8(c.exec ? 1 : 0);
  w_.str(c.comm);
  ++count_;
}

namespace {
void fork_fields(ByteWriter& w, const Fork& f) {
  w.varint(f.pid);
  w.varint(f.ppid);
  w.varint(f.tid);
  w.varint(f.ptid);
}
}  // namespace

void RecordEncoder::add_fork(const Fork& f) {
  w_.u8(static_cast<uint8_t>(RecordKind::Fork));
  time(f.time);
  fork_fields(w_, f);
  ++count_;
}

void RecordEncoder::add_exit(const Fork& f) {
  w_.u8(static_cast<uint8_t>(RecordKind::Exit));
  time(f.time);
  fork_fields(w_, f);
  ++count_;
}

void RecordEncoder::add(const Lost& l) {
  w_.u8(static_cast<uint8_t>(RecordKind::Lost));
  time(l.time);
  w_.varint(l.count);
  ++count_;
}

std::vector<uint8_t> RecordEncoder::take() {
  last_time_ = 0;
  last_ip_ = 0;
  last_period_ = 0;
  count_ = 0;
  return w_.take();
}

namespace {

uint32_t u32_field(ByteReader& r, std::string_view field) {
  const uint64_t v = r.varint();
  if (v > UINT32_MAX)
    r.fail(std::string(field) + " " + std::to_string(v) + " does not fit 32 bits");
  return static_cast<uint32_t>(v);
}

Fork read_fork(ByteReader& r, uint64_t time) {
  Fork f;
  f.time = time;
  f.pid = u32_field(r, "pid");
  f.ppid = u32_field(r, "ppid");
  f.tid = u32_field(r, "tid");
  f.ptid = u32_field(r, "ptid");
  return f;
}

}  // namespace

namespace {

// Delta state of one chunk; the sample is reused so callchains do not
// allocate per sample.
struct DecodeState {
  uint64_t time = 0, ip = 0, period = 0;
  Sample sample;
};

const Sample& read_sample(ByteReader& r, DecodeState& st, bool with_kernel_frames) {
  Sample& s = st.sample;
  st.ip += static_cast<uint64_t>(r.svarint());
  s.time = st.time;
  s.ip = st.ip;
  s.pid = u32_field(r, "pid");
  const uint64_t tid = s.pid + static_cast<uint64_t>(r.svarint());
  if (tid > UINT32_MAX) r.fail("tid " + std::to_string(tid) + " does not fit 32 bits");
  s.tid = static_cast<uint32_t>(tid);
  s.cpu = u32_field(r, "cpu");
  const uint8_t mode = r.u8();
  if (mode > static_cast<uint8_t>(Mode::Unknown)) {
    r.fail("unknown sample mode " + std::to_string(mode));
  }
  s.mode = static_cast<Mode>(mode);
  st.period += static_cast<uint64_t>(r.svarint());
  s.period = st.period;
  const size_t n = r.count(1);
  if (n > kMaxCallchain) {
    r.fail("callchain of " + std::to_string(n) + " ips is over the limit of " +
           std::to_string(kMaxCallchain));
  }
  s.callchain.resize(n);
  uint64_t prev = st.ip;
  for (auto& c : s.callchain) {
    prev += static_cast<uint64_t>(r.svarint());
    c = prev;
  }
  s.kernel_frames = 0;
  s.kernel_frames_known = with_kernel_frames || n == 0;
  if (with_kernel_frames) {
    const uint64_t k = r.varint();
    if (k > n) {
      r.fail("sample says " + std::to_string(k) + " of its " + std::to_string(n) +
             " callchain ips are kernel frames");
    }
    s.kernel_frames = static_cast<uint32_t>(k);
  }
  return s;
}

Mmap read_mmap(ByteReader& r, uint64_t time) {
  Mmap m;
  m.time = time;
  m.pid = u32_field(r, "pid");
  m.tid = u32_field(r, "tid");
  m.start = r.varint();
  m.len = r.varint();
  m.pgoff = r.varint();
  m.prot = u32_field(r, "prot");
  m.flags = u32_field(r, "flags");
  m.build_id = r.str();
  m.filename = r.str();
  return m;
}

Comm read_comm(ByteReader& r, uint64_t time) {
  Comm c;
  c.time = time;
  c.pid = u32_field(r, "pid");
  c.tid = u32_field(r, "tid");
  c.exec = r.u8() != 0;
  c.comm = r.str();
  return c;
}

}  // namespace

void decode_records(std::span<const uint8_t> payload, RecordSink& sink) {
  ByteReader r(payload, "profile chunk 'records'");
  DecodeState st;
  while (!r.done()) {
    const size_t at = r.offset();
    const uint8_t kind = r.u8();
    if (kind < static_cast<uint8_t>(RecordKind::Sample) ||
        kind > static_cast<uint8_t>(RecordKind::SampleChain)) {
      r.fail("unknown record kind " + std::to_string(kind) + " (record at offset " +
             std::to_string(at) + ")");
    }
    st.time += static_cast<uint64_t>(r.svarint());
    switch (static_cast<RecordKind>(kind)) {
      case RecordKind::Sample:
      case RecordKind::SampleChain:
        sink.on_sample(read_sample(r, st, kind == static_cast<uint8_t>(RecordKind::SampleChain)));
        break;
      case RecordKind::Mmap:
        sink.on_mmap(read_mmap(r, st.time));
        break;
      case RecordKind::Comm:
        sink.on_comm(read_comm(r, st.time));
        break;
      case RecordKind::Fork:
        sink.on_fork(read_fork(r, st.time));
        break;
      case RecordKind::Exit:
        sink.on_exit(read_fork(r, st.time));
        break;
      case RecordKind::Lost:
        sink.on_lost(Lost{st.time, r.varint()});
        break;
    }
  }
}

}  // namespace kprof
