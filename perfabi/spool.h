// The PerfRecords chunk: perf records kept as the kernel wrote them.
//
// At high rates every CPU takes ~100k sampling interrupts a second, and
// under that storm any per-sample work in kprof's drain loop (decoding,
// sorting, encoding, counting) ran 5x slower than quiet, enough to make the
// rings overflow where perf, which only copies ring bytes, kept up. So kprof
// record copies ring bytes too: a Spool collects each ring's new records as
// one block, and the recorder writes the spool as a PerfRecords chunk
// (uncompressed). When recording ends they are decoded at quiet-machine
// speed: into the aggregator, and by compact_records (core/compact.h) into
// compressed Records chunks. A file cut short keeps its PerfRecords chunks;
// every reader decodes them with decode_spool (perfabi/load.h).
//
// Payload: u64 sample_type, u8 sample_id_all, u64 read_format (the
// SampleLayout), then blocks: u32 byte count, then that many bytes of whole
// perf records of one ring, in the ring's (time) order. When the stored
// sample_type has bit 63 (kLayoutHasKinds; no PERF_SAMPLE_* bit), the
// layout's event table follows read_format: u32 n, n times (u64 id, u8
// SampleKind), then u32 wakee_offset (--off-cpu recordings). Then, when
// sample_type has bit 62 (kLayoutHasRegs), u64 regs_user (--call-graph
// dwarf recordings).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/model.h"
#include "core/profile.h"
#include "perfabi/perf_record.h"

namespace kprof::perfabi {

inline constexpr uint64_t kLayoutHasKinds = uint64_t{1} << 63;
inline constexpr uint64_t kLayoutHasRegs = uint64_t{1} << 62;

class Spool {
 public:
  explicit Spool(const SampleLayout& layout) : layout_(layout) { start(); }
  // Appends one whole perf record (header included) to the current block,
  // counting samples, losses and throttles from the header alone.
  void add(std::span<const uint8_t> rec);
  // Appends a ring's whole records as ring_records() gives them (two
  // memcpys), counting them the same way.
  void add(const RingBytes& bytes);
  void end_block();  // the current ring's records are done
  size_t size() const { return buf_.size(); }
  bool empty() const { return records_ == 0; }
  std::vector<uint8_t> take();  // the chunk payload; starts the next one

  uint64_t samples = 0, lost = 0, throttled = 0;  // since construction

 private:
  void start();
  SampleLayout layout_;
  std::vector<uint8_t> buf_;
  size_t block_ = 0;  // offset of the current block's length field
  size_t records_ = 0;
};

// Which records decode_spool delivers: all, or (kKept) only those a Records
// chunk keeps (RecordEncoder): no context switches and no --off-cpu switch
// or wakeup samples, which are then passed over unread, as compaction wants
// (in a context-switch storm they are nearly all of the records).
enum class SpoolRecords { kAll, kKept };

// Decodes a PerfRecords payload into `sink`: every block's records merged
// by time (stably: ties keep block order), so side-band records and samples
// of different CPUs come in the order they happened. A record whose fields
// do not fit is skipped (counted in *damaged when given); a block or record
// length that does not fit the payload throws kprof::Error.
void decode_spool(std::span<const uint8_t> payload, RecordSink& sink, uint64_t* damaged = nullptr,
                  SpoolRecords which = SpoolRecords::kAll);

}  // namespace kprof::perfabi
