// The .kprof file layout: a 16-byte header, then self-delimiting chunks.
//
//   header:  "KPROF\r\n\x1a" (8 bytes), u32 version, u32 reserved
//   chunk:   u16 type, u16 flags, u32 stored_len, u32 raw_len, u32 crc32(stored bytes)
//            then stored_len bytes (zstd-compressed when flags & kChunkZstd).
//
// A file normally holds: Meta, Kallsyms, Modules, Records..., RecordsIndex, Summary,
// HistogramColumns (Histogram in older files; or, for a -g recording,
// Stacks: its flat table is their leaves, core/stacks.h), ThreadCounts (the
// flat table's samples per thread and CPU), End. The Kallsyms
// chunk is left out at the start when this boot's cache holds the snapshot
// (RunInfo::kallsyms_digest); one Kallsyms chunk of the lines the samples
// need then comes before Histogram (core/kallsyms_subset.h). Readers take
// the last one. While recording, the rings' perf records are written as
// PerfRecords chunks (undecoded, uncompressed: perfabi/spool.h); when it ends
// they become compressed Records chunks (core/compact.h). Either way they are
// written as they come, so a file cut short (kill -9, full disk) still reads
// up to its last complete chunk; the reader says where it stopped and why.
// Unknown chunk types are skipped, so new chunk types do not need a version
// bump; a changed encoding of an existing chunk does, unless its payload says
// which one it is (Records: a first byte 0 is the column layout,
// core/records_chunk.h).
//
// Limits: raw_len and stored_len <= kMaxChunkBytes.
//
// Who does what: core/chunk_codecs.h (payloads), core/profile_writer.h
// (appending chunks), core/profile_reader.h (walking them),
// core/profile.h (the Profile a view reads, loaded in one walk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kprof {

inline constexpr uint8_t kMagic[8] = {'K', 'P', 'R', 'O', 'F', '\r', '\n', 0x1a};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kChunkHeaderBytes = 16;
inline constexpr uint32_t kMaxChunkBytes = 256u << 20;
inline constexpr uint16_t kChunkZstd = 1;
// A writer of records (kprof record's PerfRecords while sampling, kprof
// import's Records) ends a chunk once its payload reaches this size. Small
// enough that reading costs little (a reader holds one chunk at a time,
// ProfileReader) and that a file cut short loses little (only the chunk not
// yet written); large enough that the 16-byte header, the checksum and a
// zstd frame per chunk are a negligible share and compress well.
inline constexpr size_t kRecordsChunkBytes = 256 << 10;

enum class ChunkType : uint16_t {
  Meta = 1,               // RunInfo
  Kallsyms = 2,           // /proc/kallsyms text at record start
  Modules = 3,            // /proc/modules text
  Records = 4,            // encoded Sample/Mmap/Comm/Fork/Exit/Lost (records_chunk.h)
  Summary = 5,            // Summary
  Histogram = 6,          // Histogram (symbolized)
  End = 7,                // empty; the file is complete
  Stacks = 8,             // Stacks (symbolized call stacks; -g profiles, in place of Histogram)
  PerfRecords = 9,        // perf records as the kernel wrote them (perfabi/spool.h)
  HistogramColumns = 10,  // Histogram in column layout (what kprof writes; 6 in older files)
  Environment = 11,       // Environment (core/environment.h): the machine and kernel config
  SyscallCounts = 12,     // SyscallCounts (core/syscall_counts.h): calls counted while sampled
  OffCpu = 13,            // OffCpu (core/off_cpu.h): time off CPU, from the context switches
  Unwind = 14,            // UnwindStats (core/unwind_stats.h): how DWARF-unwound stacks ended
  ThreadCounts = 15,      // ThreadCounts (core/thread_counts.h): samples per thread and CPU
  RecordsIndex = 16,      // RecordsIndex (core/records_index.h): each Records chunk's time span
};
const char* chunk_type_name(uint16_t type);

// zstd levels. kZstdFast while recording (the kallsyms snapshot, Meta,
// Modules; records are written uncompressed): about as small as level 3 on
// kallsyms, at a third of the CPU. kZstdCompact for the Records chunks
// compact_records writes once the events are off. kZstdSmall for the
// histogram, written once and read by every report.
inline constexpr int kZstdFast = 1;
inline constexpr int kZstdCompact = 3;
inline constexpr int kZstdSmall = 9;

// A chunk in its stored form (what follows its header in a file), so it can be
// copied from one file to another without compressing it again: kprof record
// keeps this boot's kallsyms snapshot this way (collector/kallsyms_cache.h).
struct StoredChunk {
  uint16_t type = 0;
  uint16_t flags = 0;  // kChunkZstd
  uint32_t raw_len = 0;
  std::vector<uint8_t> bytes;  // the stored (maybe compressed) payload
};

// Packs a payload as ProfileWriter::write_chunk does: zstd at `level` when
// `compress` and that makes it smaller, else the bytes as they are.
StoredChunk pack_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress = true,
                       int level = kZstdFast);

}  // namespace kprof
