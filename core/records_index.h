// The RecordsIndex chunk (issue 29): where each Records chunk lies in time,
// so a reader of one time range (--time) passes over the Records chunks that
// hold nothing in it without reading, checking or decompressing them.
//
// Written after the Records chunks by compact_records (core/compact.h: what
// kprof record leaves) and by kprof import. One entry per Records chunk it
// wrote, in file order, naming the chunk by its raw length and checksum (as
// its header has them), so an entry never applies to another chunk: a
// Records chunk no entry names (an older file, a chunk of what already ran
// before recording) is read as before. A chunk is passed over only when all
// its samples lie outside the range and it holds nothing else, or nothing
// after it is read (mappings, names, forks and exits must stay whole for
// the samples after them); what it held is summed for the reader, so the
// totals it reports stay those of the whole recording.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/profile_reader.h"
#include "core/records_chunk.h"

namespace kprof {

struct RecordsIndexEntry {
  uint32_t raw_len = 0, crc = 0;  // the chunk's, as its header says
  RecordsSpan span;
  bool operator==(const RecordsIndexEntry&) const = default;
};

struct RecordsIndex {
  std::vector<RecordsIndexEntry> chunks;  // in file order
  bool operator==(const RecordsIndex&) const = default;
};

std::vector<uint8_t> encode_records_index(const RecordsIndex& index);
// Throws kprof::Error on damage (truncated, a count beyond the bytes, a
// time span beyond 64 bits).
RecordsIndex decode_records_index(std::span<const uint8_t> data);

// Which Records chunks of `headers` (ProfileReader::chunk_headers) a reader
// of [from_ns, to_ns) passes over, by `index` (see above): their offsets,
// ascending, and what they held, summed.
struct RecordsOutside {
  std::vector<uint64_t> offsets;
  RecordsSpan held;
};
RecordsOutside records_outside(const std::vector<ChunkHeaderInfo>& headers,
                               const RecordsIndex& index, uint64_t from_ns, uint64_t to_ns);

}  // namespace kprof
