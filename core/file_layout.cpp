#include "core/file_layout.h"

#include <zstd.h>

#include <string>

#include "core/error.h"

namespace kprof {

const char* chunk_type_name(uint16_t type) {
  switch (static_cast<ChunkType>(type)) {
    case ChunkType::Meta:
      return "meta";
    case ChunkType::Kallsyms:
      return "kallsyms";
    case ChunkType::Modules:
      return "modules";
    case ChunkType::Records:
      return "records";
    case ChunkType::Summary:
      return "summary";
    case ChunkType::Histogram:
    case ChunkType::HistogramColumns:
      return "histogram";
    case ChunkType::End:
      return "end";
    case ChunkType::Stacks:
      return "stacks";
    case ChunkType::PerfRecords:
      return "perf-records";
    case ChunkType::Environment:
      return "environment";
    case ChunkType::SyscallCounts:
      return "syscall counts";
    case ChunkType::OffCpu:
      return "off-cpu";
    case ChunkType::Unwind:
      return "unwind";
    case ChunkType::ThreadCounts:
      return "thread counts";
    case ChunkType::RecordsIndex:
      return "records index";
  }
  return "unknown";
}

StoredChunk pack_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress, int level) {
  if (payload.size() > kMaxChunkBytes) {
    throw Error("internal: chunk '" + std::string(chunk_type_name(static_cast<uint16_t>(type))) +
                "' of " + std::to_string(payload.size()) + " bytes is over the limit of " +
                std::to_string(kMaxChunkBytes));
  }
  StoredChunk c;
  c.type = static_cast<uint16_t>(type);
  c.raw_len = static_cast<uint32_t>(payload.size());
  if (compress && payload.size() > 64) {
    c.bytes.resize(ZSTD_compressBound(payload.size()));
    const size_t n =
        ZSTD_compress(c.bytes.data(), c.bytes.size(), payload.data(), payload.size(), level);
    if (!ZSTD_isError(n) && n < payload.size()) {
      c.bytes.resize(n);
      c.flags = kChunkZstd;
      return c;
    }
  }
  c.bytes.assign(payload.begin(), payload.end());
  return c;
}

}  // namespace kprof
