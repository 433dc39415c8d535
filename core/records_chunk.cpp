#include "core/records_chunk.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <string>

#include "core/error.h"

namespace kprof {

using namespace record_columns;

// Deltas are computed with wrapping unsigned arithmetic and stored zigzagged,
// so a jump from a user ip to a kernel ip (close to 2^64) is a small negative
// number and every 64-bit value round-trips.
namespace {
int64_t wrap_delta(uint64_t from, uint64_t to) {
  return static_cast<int64_t>(to - from);
}
}  // namespace

// Records other than samples: kind and time in their columns, fields in
// the `other` column.
void RecordEncoder::other(RecordKind kind, uint64_t t) {
  col_[Kinds].u8(static_cast<uint8_t>(kind));
  time(t);
  ++count_;
  ++span_.side_band;
}

void RecordEncoder::time(uint64_t t) {
  col_[Times].svarint(wrap_delta(last_time_, t));
  last_time_ = t;
}

void RecordsSpan::add(const RecordsSpan& o) {
  first_ns = std::min(first_ns, o.first_ns);
  last_ns = std::max(last_ns, o.last_ns);
  samples += o.samples;
  event_samples += o.event_samples;
  side_band += o.side_band;
}

void RecordEncoder::add(const Sample& s) {
  const size_t n = std::min(s.callchain.size(), kMaxCallchain);
  ++(s.kind == SampleKind::Event ? span_.event_samples : span_.samples);
  span_.first_ns = std::min(span_.first_ns, s.time);
  span_.last_ns = std::max(span_.last_ns, s.time);
  if (s.kind == SampleKind::Event) {
    col_[Kinds].u8(
        static_cast<uint8_t>(n == 0 ? RecordKind::EventSample : RecordKind::EventSampleChain));
    col_[Events].varint(s.event);
  } else {
    col_[Kinds].u8(static_cast<uint8_t>(n == 0 ? RecordKind::Sample : RecordKind::SampleChain));
  }
  CpuState& cpu = cpus_[s.cpu];
  col_[Times].svarint(wrap_delta(cpu.predicted_time(s.period, last_time_), s.time));
  last_time_ = s.time;
  col_[Ips].u64(s.ip);
  col_[Cpus].varint(s.cpu);
  col_[Pids].svarint(wrap_delta(cpu.pid, s.pid));
  col_[Tids].svarint(wrap_delta(s.pid, s.tid));
  col_[Modes].u8(static_cast<uint8_t>(s.mode));
  col_[Periods].svarint(wrap_delta(cpu.period, s.period));
  cpu = {s.time, s.period, s.pid, true};
  if (n != 0) chain(s, n);
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
      col_[ChainRefs].varint((uint64_t{it->second} + 1) << 1 | leaf);
      return;
    }
  }
  chain_ids_.emplace(h, static_cast<uint32_t>(chains_.size()));
  chains_.push_back({leaf, kernel_frames, {tail.begin(), tail.end()}});
  col_[ChainRefs].varint(uint64_t{leaf});  // index 0: a new chain follows
  ByteWriter& w = col_[ChainIps];
  w.varint(tail.size());
  uint64_t prev = s.ip;
  for (uint64_t ip : tail) {
    w.svarint(wrap_delta(prev, ip));
    prev = ip;
  }
  w.varint(kernel_frames);
}

void RecordEncoder::add(const Mmap& m) {
  other(RecordKind::Mmap, m.time);
  ByteWriter& w = col_[Other];
  w.varint(m.pid);
  w.varint(m.tid);
  w.varint(m.start);
  w.varint(m.len);
  w.varint(m.pgoff);
  w.varint(m.prot);
  w.varint(m.flags);
  w.str(m.build_id);
  w.str(m.filename);
}

void RecordEncoder::add(const Comm& c) {
  other(RecordKind::Comm, c.time);
  ByteWriter& w = col_[Other];
  w.varint(c.pid);
  w.varint(c.tid);
  w.u8(c.exec ? 1 : 0);
  w.str(c.comm);
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
  other(RecordKind::Fork, f.time);
  fork_fields(col_[Other], f);
}

void RecordEncoder::add_exit(const Fork& f) {
  other(RecordKind::Exit, f.time);
  fork_fields(col_[Other], f);
}

void RecordEncoder::add(const Lost& l) {
  other(RecordKind::Lost, l.time);
  col_[Other].varint(l.count);
}

size_t RecordEncoder::size() const {
  size_t n = 16;
  for (const ByteWriter& c : col_) n += c.size() + 4;
  return n;
}

std::vector<uint8_t> RecordEncoder::take() {
  ByteWriter out;
  out.u8(0);  // the column layout
  out.varint(count_);
  // The events column only where there are event samples: a chunk of one
  // event's is as before it.
  const size_t columns = col_[Events].size() == 0 ? Events : kColumns;
  out.varint(columns);
  for (size_t i = 0; i < kColumns; ++i) {
    if (i < columns) {
      out.varint(col_[i].size());
      out.raw(col_[i].bytes());
    }
    col_[i].clear();
  }
  last_time_ = 0;
  count_ = 0;
  span_ = {};
  chains_.clear();
  chain_ids_.clear();
  cpus_ = {};
  return out.take();
}

namespace {

// Out of the decode loop: a field that does not fit, or a byte that names
// nothing ("unknown sample mode 9"). Kept apart so the small readers below
// inline into the loop.
[[noreturn, gnu::cold, gnu::noinline]] void fail_value(const ByteReader& r, std::string_view what,
                                                       uint64_t v, std::string_view after = "") {
  r.fail(std::string(what) + " " + std::to_string(v) + std::string(after));
}

inline uint32_t u32_field(ByteReader& r, std::string_view field) {
  const uint64_t v = r.varint();
  if (v > UINT32_MAX) [[unlikely]]
    fail_value(r, field, v, " does not fit 32 bits");
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

inline Mode read_mode(ByteReader& r) {
  const uint8_t mode = r.u8();
  if (mode > static_cast<uint8_t>(Mode::Unknown)) [[unlikely]]
    fail_value(r, "unknown sample mode", mode);
  return static_cast<Mode>(mode);
}

inline uint32_t tid_of(ByteReader& r, uint32_t pid) {
  const uint64_t tid = pid + static_cast<uint64_t>(r.svarint());
  if (tid > UINT32_MAX) [[unlikely]]
    fail_value(r, "tid", tid, " does not fit 32 bits");
  return static_cast<uint32_t>(tid);
}

// A SampleChain's chain: its reference from `refs`, a new chain's ips from
// `ips` (the same reader in the row layout).
void read_chain(ByteReader& refs, ByteReader& ips, DecodeState& st, Sample& s) {
  const uint64_t ref = refs.varint();
  const bool leaf = ref & 1;
  if (ref >> 1 == 0) {  // a new chain: its tail and kernel frame count
    const size_t m = ips.count(1);
    if (m + leaf > kMaxCallchain || m + leaf == 0) {
      ips.fail("callchain of " + std::to_string(m + leaf) + " ips (the limit is " +
               std::to_string(kMaxCallchain) + ")");
    }
    DecodeState::Chain c;
    c.tail.resize(m);
    uint64_t prev = s.ip;
    for (auto& ip : c.tail) {
      prev += static_cast<uint64_t>(ips.svarint());
      ip = prev;
    }
    const uint64_t k = ips.varint();
    if (k > m + leaf) {
      ips.fail("sample says " + std::to_string(k) + " of its " + std::to_string(m + leaf) +
               " callchain ips are kernel frames");
    }
    c.kernel_frames = static_cast<uint32_t>(k);
    st.chains.push_back(std::move(c));
  } else if ((ref >> 1) > st.chains.size()) {
    refs.fail("sample refers to stored callchain " + std::to_string(ref >> 1) + " of " +
              std::to_string(st.chains.size()));
  }
  const DecodeState::Chain& c = ref >> 1 == 0 ? st.chains.back() : st.chains[(ref >> 1) - 1];
  if (c.kernel_frames > c.tail.size() + leaf) refs.fail("callchain's kernel frames exceed its ips");
  s.callchain.clear();
  if (leaf) s.callchain.push_back(s.ip);
  s.callchain.insert(s.callchain.end(), c.tail.begin(), c.tail.end());
  s.kernel_frames = c.kernel_frames;
}

// Row layout (older files).
const Sample& read_row_sample(ByteReader& r, DecodeState& st, bool with_chain_table) {
  Sample& s = st.sample;
  st.ip += static_cast<uint64_t>(r.svarint());
  s.time = st.time;
  s.ip = st.ip;
  s.pid = u32_field(r, "pid");
  s.tid = tid_of(r, s.pid);
  s.cpu = u32_field(r, "cpu");
  s.mode = read_mode(r);
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
  read_chain(r, r, st, s);
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

// A record other than a sample: its fields from `r`.
void read_other(RecordKind kind, ByteReader& r, uint64_t time, RecordSink& sink) {
  switch (kind) {
    case RecordKind::Mmap:
      sink.on_mmap(read_mmap(r, time));
      break;
    case RecordKind::Comm:
      sink.on_comm(read_comm(r, time));
      break;
    case RecordKind::Fork:
      sink.on_fork(read_fork(r, time));
      break;
    case RecordKind::Exit:
      sink.on_exit(read_fork(r, time));
      break;
    case RecordKind::Lost:
      sink.on_lost(Lost{time, r.varint()});
      break;
    case RecordKind::Sample:
    case RecordKind::SampleChain:
    case RecordKind::EventSample:
    case RecordKind::EventSampleChain:
      break;
  }
}

// The row layout predates the event samples: `last` is SampleChain there.
inline RecordKind read_kind(ByteReader& r, RecordKind last = RecordKind::EventSampleChain) {
  const uint8_t kind = r.u8();
  if (kind < static_cast<uint8_t>(RecordKind::Sample) || kind > static_cast<uint8_t>(last))
      [[unlikely]] {
    fail_value(r, "unknown record kind", kind,
               " (record at offset " + std::to_string(r.offset() - 1) + ")");
  }
  return static_cast<RecordKind>(kind);
}

void decode_rows(std::span<const uint8_t> payload, RecordSink& sink) {
  ByteReader r(payload, "profile chunk 'records'");
  DecodeState st;
  while (!r.done()) {
    const RecordKind kind = read_kind(r, RecordKind::SampleChain);
    st.time += static_cast<uint64_t>(r.svarint());
    if (kind == RecordKind::Sample || kind == RecordKind::SampleChain) {
      sink.on_sample(read_row_sample(r, st, kind == RecordKind::SampleChain));
    } else {
      read_other(kind, r, st.time, sink);
    }
  }
}

constexpr const char* kColumnNames[] = {
    "profile chunk 'records' column 'kinds'",      "profile chunk 'records' column 'times'",
    "profile chunk 'records' column 'ips'",        "profile chunk 'records' column 'cpus'",
    "profile chunk 'records' column 'pids'",       "profile chunk 'records' column 'tids'",
    "profile chunk 'records' column 'modes'",      "profile chunk 'records' column 'periods'",
    "profile chunk 'records' column 'chain refs'", "profile chunk 'records' column 'chain ips'",
    "profile chunk 'records' column 'other'",      "profile chunk 'records' column 'events'"};
static_assert(std::size(kColumnNames) == kColumns);

void decode_columns(std::span<const uint8_t> payload, RecordSink& sink) {
  ByteReader r(payload, "profile chunk 'records'");
  r.u8();  // the layout marker
  const uint64_t records = r.varint();
  std::vector<ByteReader> col = read_columns(r, kColumnNames, Events);
  if (!r.done()) r.fail(std::to_string(r.left()) + " bytes after the last column");
  if (col.size() == Events) col.emplace_back(std::span<const uint8_t>(), kColumnNames[Events]);
  ByteReader &kinds = col[Kinds], &times = col[Times], &ips = col[Ips], &cpus = col[Cpus],
             &pids = col[Pids], &tids = col[Tids], &modes = col[Modes], &periods = col[Periods],
             &refs = col[ChainRefs], &chain_ips = col[ChainIps], &other = col[Other],
             &events = col[Events];
  if (records != kinds.left()) {
    kinds.fail("holds " + std::to_string(kinds.left()) + " kinds for " + std::to_string(records) +
               " records");
  }
  DecodeState st;
  CpuStates cpu_state;
  Sample& s = st.sample;
  for (uint64_t i = 0; i < records; ++i) {
    const RecordKind kind = read_kind(kinds);
    const bool event = kind == RecordKind::EventSample || kind == RecordKind::EventSampleChain;
    if (kind != RecordKind::Sample && kind != RecordKind::SampleChain && !event) {
      st.time += static_cast<uint64_t>(times.svarint());
      read_other(kind, other, st.time, sink);
      continue;
    }
    s.kind = event ? SampleKind::Event : SampleKind::Cpu;
    s.event = event ? u32_field(events, "event") : 0;
    if (event && s.event == 0) events.fail("event sample of event 0 (the first is not stored so)");
    s.ip = ips.u64();
    s.cpu = u32_field(cpus, "cpu");
    CpuState& cpu = cpu_state[s.cpu];
    const uint64_t pid = cpu.pid + static_cast<uint64_t>(pids.svarint());
    if (pid > UINT32_MAX) pids.fail("pid " + std::to_string(pid) + " does not fit 32 bits");
    s.pid = static_cast<uint32_t>(pid);
    s.tid = tid_of(tids, s.pid);
    s.mode = read_mode(modes);
    s.period = cpu.period + static_cast<uint64_t>(periods.svarint());
    st.time = cpu.predicted_time(s.period, st.time) + static_cast<uint64_t>(times.svarint());
    s.time = st.time;
    cpu = {s.time, s.period, s.pid, true};
    s.kernel_frames = 0;
    s.kernel_frames_known = true;
    s.callchain.clear();
    if (kind == RecordKind::SampleChain || kind == RecordKind::EventSampleChain) {
      read_chain(refs, chain_ips, st, s);
    }
    sink.on_sample(s);
  }
  expect_columns_done(col);
}

}  // namespace

void decode_records(std::span<const uint8_t> payload, RecordSink& sink) {
  if (!payload.empty() && payload[0] == 0) {
    decode_columns(payload, sink);
  } else {
    decode_rows(payload, sink);
  }
}

}  // namespace kprof
