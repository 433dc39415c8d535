// Encoding of the Records chunk: a stream of records in time order
// (roughly: the collector merges per-CPU buffers by timestamp per drain).
//
// Each record: u8 kind, then fields as varints. Times are zigzag deltas from
// the previous record's time; sample ips are zigzag deltas from the previous
// sample's ip; a sample's tid is a zigzag delta from its pid and its period a
// zigzag delta from the previous sample's period; callchain ips are zigzag
// deltas from the ip before them; other fields are plain varints. The chunk is then zstd
// compressed by the writer. Aim: a few bytes per sample.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/bytes.h"
#include "core/model.h"

namespace kprof {

// Longest callchain stored; the encoder keeps the innermost kMaxCallchain ips.
inline constexpr size_t kMaxCallchain = 1024;

// SampleChain: a Sample with a callchain. After the fields a Sample has
// (without its chain), one varint: bit 0 says the chain starts with the
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
  SampleChain = 7
};

class RecordEncoder {
 public:
  void add(const Sample&);
  void add(const Mmap&);
  void add(const Comm&);
  void add_fork(const Fork&);
  void add_exit(const Fork&);
  void add(const Lost&);

  size_t size() const { return w_.size(); }
  size_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Returns the encoded chunk payload and resets the delta state, so each
  // chunk decodes on its own.
  std::vector<uint8_t> take();

 private:
  void time(uint64_t t);
  void chain(const Sample& s, size_t n);
  struct StoredChain {
    bool leaf = false;
    uint32_t kernel_frames = 0;
    std::vector<uint64_t> tail;
  };
  ByteWriter w_;
  std::vector<StoredChain> chains_;                        // this chunk's, in order
  std::unordered_multimap<uint64_t, uint32_t> chain_ids_;  // hash -> index into chains_
  uint64_t last_time_ = 0, last_ip_ = 0, last_period_ = 0;
  size_t count_ = 0;
};

// A RecordSink that encodes what it is given (compact_records: perf records
// decoded into a Records chunk).
class EncodingSink : public RecordSink {
 public:
  void on_sample(const Sample& s) override { encoder.add(s); }
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
