// Fuzzes the RecordsIndex chunk's decoder (core/records_index.h) and what a
// reader does with it. Input: the chunk's bytes. What decodes must encode
// and decode again to the same, and the chunks it passes over must be
// Records chunks it names.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/error.h"
#include "core/file_layout.h"
#include "core/records_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kprof::RecordsIndex index = kprof::decode_records_index(std::span(data, size));
    if (kprof::decode_records_index(kprof::encode_records_index(index)) != index) __builtin_trap();
    std::vector<kprof::ChunkHeaderInfo> headers;
    for (const kprof::RecordsIndexEntry& e : index.chunks) {
      headers.push_back({static_cast<uint16_t>(kprof::ChunkType::Records), 1, headers.size() + 1, 0,
                         e.raw_len, e.crc});
    }
    const kprof::RecordsOutside out = kprof::records_outside(headers, index, 1000, 2000);
    if (out.offsets.size() > headers.size()) __builtin_trap();
  } catch (const kprof::Error&) {
  }
  return 0;
}
