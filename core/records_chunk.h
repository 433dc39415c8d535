// Encoding of the Records chunk: a stream of records in time order
// (roughly: decode_spool merges a PerfRecords chunk's rings by time,
// perfabi/spool.h; kprof import keeps perf's order).
// Aim: a few bytes per sample once the writer has zstd-compressed the chunk.
//
// Column layout (what kprof writes now; a payload that starts with byte 0):
// u8 0, varint record count, varint column count, then each column as
// varint length + bytes. Each column holds one field of every record that
// has it, so zstd sees like next to like (with the histogram's columns:
// 11.0 marginal bytes a sample of a compile recording against 13.8 for the
// row layouts, bench/overhead.sh). Columns, in order (a reader takes those
// it knows and ignores extra ones):
//    0 kinds       u8 RecordKind per record
//    1 times       svarint per record: a sample's time minus its CPU's last
//                  sample time plus its period (what a timer would predict);
//                  other records, and a CPU's first sample: minus the
//                  previous record's time
//    2 ips         u64 per sample (as is: hot ips repeat, which zstd finds)
//    3 cpus        varint per sample
//    4 pids        svarint per sample: minus its CPU's last sample pid
//    5 tids        svarint per sample: minus its pid
//    6 modes       u8 per sample
//    7 periods     svarint per sample: minus its CPU's last sample period
//    8 chain refs  varint per SampleChain (see below)
//    9 chain ips   per new chain: varint length, ips as zigzag deltas (from
//                  the sample's ip, then from the ip before), varint
//                  kernel_frames
//   10 other       Mmap/Comm/Fork/Exit/Lost fields, as in the row layout
//   11 events      varint per EventSample(Chain): 1 + its event's index into
//                  RunInfo::more_events (absent from files before it, which
//                  hold no such records)
//
// Row layout (older files; read, no longer written): each record u8 kind,
// then its time as a zigzag delta from the previous record's, then fields
// as varints: a sample's ip as a zigzag delta from the previous sample's,
// pid, tid as a delta from pid, cpu, u8 mode, period as a delta from the
// previous sample's, then its chain (SampleChain) or a 0 (Sample).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/bytes.h"
#include "core/dense_hash_map.h"
#include "core/model.h"

namespace kprof {

// Longest callchain stored; the encoder keeps the innermost kMaxCallchain ips.
inline constexpr size_t kMaxCallchain = 1024;

// SampleChain: a Sample with a callchain. Its chain reference (one varint
// after the sample's fields in the row layout; column 8): bit 0 says the chain starts with the
// sample's ip (not stored again); the rest is 0 for a new chain, which
// follows (varint length, ips as zigzag deltas from the sample's ip, varint
// kernel_frames), or i + 1 for the chunk's i-th chain stored before. Kind 1
// samples (files before the split was stored) carry the chain inline and no
// kernel_frames: they read back with kernel_frames_known false.
enum class RecordKind : uint8_t {
  Sample = 1,
  Mmap = 2,
  Comm = 3,
  Fork = 4,
  Exit = 5,
  Lost = 6,
  SampleChain = 7,
  EventSample = 8,
  EventSampleChain = 9
};

// What the column layout's encoder and decoder share: the columns' order,
// and the per-CPU state a sample's deltas are taken from.
namespace record_columns {
enum Column {
  Kinds,
  Times,
  Ips,
  Cpus,
  Pids,
  Tids,
  Modes,
  Periods,
  ChainRefs,
  ChainIps,
  Other,
  Events,
  kColumns
};
struct CpuState {
  uint64_t time = 0, period = 0;  // of the CPU's last sample
  uint32_t pid = 0;
  bool seen = false;
  // The time a sample of `period` is stored against: a timer's next tick
  // after the CPU's last sample, or the previous record's time.
  uint64_t predicted_time(uint64_t period, uint64_t previous_record) const {
    return seen ? time + period : previous_record;
  }
};
// Each CPU's state, looked up once per sample.
using CpuStates = ById<CpuState>;
}  // namespace record_columns

// What a Records chunk holds, as its encoder counted it (the RecordsIndex
// chunk keeps one per chunk: core/records_index.h).
struct RecordsSpan {
  uint64_t first_ns = UINT64_MAX, last_ns = 0;  // its samples' times; none: as set here
  uint64_t samples = 0;                         // of the first event (RecordKind::Sample*)
  uint64_t event_samples = 0;                   // of more events (RecordKind::EventSample*)
  uint64_t side_band = 0;                       // Mmap, Comm, Fork, Exit and Lost records
  bool has_samples() const { return samples != 0 || event_samples != 0; }
  void add(const RecordsSpan&);
  bool operator==(const RecordsSpan&) const = default;
};

class RecordEncoder {
 public:
  void add(const Sample&);
  void add(const Mmap&);
  void add(const Comm&);
  void add_fork(const Fork&);
  void add_exit(const Fork&);
  void add(const Lost&);

  size_t size() const;  // bytes take() returns, about
  size_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // What was added since the last take().
  const RecordsSpan& span() const { return span_; }
  // Returns the encoded chunk payload and resets the delta state, so each
  // chunk decodes on its own.
  std::vector<uint8_t> take();

 private:
  void time(uint64_t t);
  void chain(const Sample& s, size_t n);
  void other(RecordKind kind, uint64_t time);
  struct StoredChain {
    bool leaf = false;
    uint32_t kernel_frames = 0;
    std::vector<uint64_t> tail;
  };
  ByteWriter col_[record_columns::kColumns];
  std::vector<StoredChain> chains_;                        // this chunk's, in order
  std::unordered_multimap<uint64_t, uint32_t> chain_ids_;  // hash -> index into chains_
  record_columns::CpuStates cpus_;
  uint64_t last_time_ = 0;
  size_t count_ = 0;
  RecordsSpan span_;
};

// A RecordSink that encodes what it is given (compact_records: perf records
// decoded into a Records chunk): the samples of every sampled event
// (SampleKind Cpu and Event). --off-cpu's switch and wakeup samples and
// context switches are not kept: the OffCpu chunk (core/off_cpu.h) holds
// what they add up to, and a file cut short keeps them in its PerfRecords.
class EncodingSink : public RecordSink {
 public:
  void on_sample(const Sample& s) override {
    if (s.kind == SampleKind::Cpu || s.kind == SampleKind::Event) encoder.add(s);
  }
  void on_mmap(const Mmap& m) override { encoder.add(m); }
  void on_comm(const Comm& c) override { encoder.add(c); }
  void on_fork(const Fork& f) override { encoder.add_fork(f); }
  void on_exit(const Fork& f) override { encoder.add_exit(f); }
  void on_lost(const Lost& l) override { encoder.add(l); }
  RecordEncoder encoder;
};

// Decodes one Records chunk payload, calling `sink` per record. Throws
// kprof::Error on damage (unknown kind, truncated field, absurd callchain).
void decode_records(std::span<const uint8_t> payload, RecordSink& sink);

}  // namespace kprof
