#include "core/compact.h"

#include <unistd.h>

#include <cerrno>

#include <filesystem>

#include "core/bytes.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile_reader.h"
#include "core/profile_writer.h"
#include "core/records_chunk.h"
#include "core/records_index.h"

namespace kprof {

CompactResult compact_records(const std::string& path, const PerfRecordsDecoder& perf_records,
                              bool keep_perf_records) {
  CompactResult r;
  ProfileReader reader = ProfileReader::open(path);
  if (!reader.rewindable()) throw Error("cannot compress " + path + ": not a regular file");
  const std::string tmp = path + ".compact-" + std::to_string(::getpid());
  try {
    ProfileWriter out = ProfileWriter::create(tmp);
    // Consecutive PerfRecords chunks become one Records chunk of up to
    // kMergedBytes: a --call-graph dwarf recording flushes a chunk every ~30
    // samples (their stack copies), which decode to a few KB each, and a
    // zstd context per tiny chunk cost more than the rest of compaction.
    // 1 MiB (66k samples of a flat recording), not more: a --time range
    // reads the chunks it overlaps whole (core/records_index.h), and 4 MiB
    // chunks made its edges cost four times as much for a file 3% smaller.
    constexpr size_t kMergedBytes = 1u << 20;
    EncodingSink merged;
    // Each Records chunk made here, for the RecordsIndex chunk written after
    // the last of them (core/records_index.h).
    RecordsIndex index;
    auto flush = [&] {
      if (merged.encoder.empty()) return;
      const RecordsSpan span = merged.encoder.span();
      const StoredChunk chunk =
          pack_chunk(ChunkType::Records, merged.encoder.take(), true, kZstdCompact);
      index.chunks.push_back({chunk.raw_len, crc32(chunk.bytes), span});
      out.write_stored(chunk);
      ++r.chunks_compressed;
    };
    auto write_index = [&] {
      if (index.chunks.empty()) return;
      out.write_chunk(ChunkType::RecordsIndex, encode_records_index(index));
      index.chunks.clear();
    };
    const ReadStatus& st = reader.for_each_chunk(
        [](uint16_t) { return true; },
        [&](const Chunk& c) {
          if (c.type == static_cast<uint16_t>(ChunkType::PerfRecords) && keep_perf_records &&
              !(c.flags & kChunkZstd)) {
            out.write_stored(pack_chunk(ChunkType::PerfRecords, c.payload, true, kZstdCompact));
            ++r.chunks_compressed;
            return;
          }
          if (c.type == static_cast<uint16_t>(ChunkType::PerfRecords) && !keep_perf_records) {
            perf_records.decode(c.payload, merged);
            if (merged.encoder.size() >= kMergedBytes) flush();
            return;
          }
          flush();
          if (c.type != static_cast<uint16_t>(ChunkType::Records) &&
              c.type != static_cast<uint16_t>(ChunkType::PerfRecords)) {
            write_index();
          }
          if (c.type == static_cast<uint16_t>(ChunkType::Records) && !(c.flags & kChunkZstd)) {
            out.write_stored(pack_chunk(ChunkType::Records, c.payload, true, kZstdCompact));
            ++r.chunks_compressed;
            return;
          }
          StoredChunk s;
          s.type = c.type;
          s.flags = c.flags;
          s.raw_len = static_cast<uint32_t>(c.payload.size());
          s.bytes.assign(c.stored.begin(), c.stored.end());
          out.write_stored(s);
        });
    flush();
    write_index();
    if (!st.intact()) {
      throw Error("cannot compress " + path + ": " +
                  (!st.damaged.empty()  ? "damaged: " + st.describe_damage()
                   : st.problem.empty() ? std::string("not complete")
                                        : st.problem));
    }
    r.bytes_before = st.file_bytes;
    r.bytes_after = out.bytes_written();
    out.sync();
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error("cannot replace " + path + " with its compressed copy: " + ec.message());
  }
  return r;
}

}  // namespace kprof
