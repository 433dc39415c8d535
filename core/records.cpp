#include "core/records.h"

#include <algorithm>
#include <span>
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
  if (n == 0) {
    w_.varint(0);
  } else {
    chain(s, n);
  }
  ++count_;
}

// A chain as SampleChain stores it: without the leaf when the leaf is the
// sample's own ip, so samples that differ only in where in a function they
// hit share one stored chain; each distinct one is written once per chunk
// and referred to by its index after that.
void RecordEncoder::chain(const Sample& s, size_t n) {
  const bool leaf = s.callchain[0] == s.ip;
  const std::span<const uint64_t> tail(s.callchain.data() + (leaf ? 1 : 0), n - (leaf ? 1 : 0));
  const uint32_t kernel_frames = static_cast<uint32_t>(std::min<size_t>(s.kernel_frames, n));
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t{kernel_frames} << 1 | leaf);
  for (uint64_t ip : tail) h = (h ^ ip) * 0x100000001b3ULL;
  for (auto [it, end] = chain_ids_.equal_range(h); it != end; ++it) {
    const StoredChain& c = chains_[it->second];
    if (c.leaf == leaf && c.kernel_frames == kernel_frames &&
        std::equal(c.tail.begin(), c.tail.end(), tail.begin(), tail.end())) {
      w_.varint((uint64_t{it->second} + 1) << 1 | leaf);
      return;
    }
  }
  chain_ids_.emplace(h, static_cast<uint32_t>(chains_.size()));
  chains_.push_back({leaf, kernel_frames, {tail.begin(), tail.end()}});
  w_.varint(uint64_t{leaf});  // index 0: a new chain follows
  w_.varint(tail.size());
  uint64_t prev = s.ip;
  for (uint64_t ip : tail) {
    w_.svarint(wrap_delta(prev, ip));
    prev = ip;
  }
  w_.varint(kernel_frames);
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
  chains_.clear();
  chain_ids_.clear();
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
  struct Chain {
    std::vector<uint64_t> tail;
    uint32_t kernel_frames = 0;
  };
  std::vector<Chain> chains;  // SampleChain's stored chains, in order
};

const Sample& read_sample(ByteReader& r, DecodeState& st, bool with_chain_table) {
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
  s.kernel_frames = 0;
  s.kernel_frames_known = true;
  if (!with_chain_table) {  // kind 1: n, then the ips as deltas; no kernel/user split
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
    s.kernel_frames_known = n == 0;
    return s;
  }
  const uint64_t ref = r.varint();
  const bool leaf = ref & 1;
  if (ref >> 1 == 0) {  // a new chain: its tail and kernel frame count
    const size_t m = r.count(1);
    if (m + leaf > kMaxCallchain || m + leaf == 0) {
      r.fail("callchain of " + std::to_string(m + leaf) + " ips (the limit is " +
             std::to_string(kMaxCallchain) + ")");
    }
    DecodeState::Chain c;
    c.tail.resize(m);
    uint64_t prev = st.ip;
    for (auto& ip : c.tail) {
      prev += static_cast<uint64_t>(r.svarint());
      ip = prev;
    }
    const uint64_t k = r.varint();
    if (k > m + leaf) {
      r.fail("sample says " + std::to_string(k) + " of its " + std::to_string(m + leaf) +
             " callchain ips are kernel frames");
    }
    c.kernel_frames = static_cast<uint32_t>(k);
    st.chains.push_back(std::move(c));
  } else if ((ref >> 1) > st.chains.size()) {
    r.fail("sample refers to stored callchain " + std::to_string(ref >> 1) + " of " +
           std::to_string(st.chains.size()));
  }
  const DecodeState::Chain& c = ref >> 1 == 0 ? st.chains.back() : st.chains[(ref >> 1) - 1];
  if (c.kernel_frames > c.tail.size() + leaf) r.fail("callchain's kernel frames exceed its ips");
  s.callchain.clear();
  if (leaf) s.callchain.push_back(st.ip);
  s.callchain.insert(s.callchain.end(), c.tail.begin(), c.tail.end());
  s.kernel_frames = c.kernel_frames;
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
