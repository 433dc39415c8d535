#include "core/records_index.h"

#include <algorithm>
#include <utility>

#include "core/bytes.h"
#include "core/file_layout.h"

namespace kprof {

std::vector<uint8_t> encode_records_index(const RecordsIndex& index) {
  FieldWriter f;
  ByteWriter& w = f.field();
  w.varint(index.chunks.size());
  for (const RecordsIndexEntry& e : index.chunks) {
    w.varint(e.raw_len);
    w.varint(e.crc);
    const bool any = e.span.has_samples();
    // A chunk without samples has no times: stored as 0, 0.
    w.varint(any ? e.span.first_ns : 0);
    w.varint(any ? e.span.last_ns - e.span.first_ns : 0);
    w.varint(e.span.samples);
    w.varint(e.span.event_samples);
    w.varint(e.span.side_band);
  }
  return f.take();
}

RecordsIndex decode_records_index(std::span<const uint8_t> data) {
  RecordsIndex index;
  FieldReader f(data, "profile chunk 'records index'");
  if (!f.next()) return index;
  const uint64_t n = f.r.count(7);
  index.chunks.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    RecordsIndexEntry e;
    const uint64_t raw_len = f.r.varint(), crc = f.r.varint();
    if (raw_len > kMaxChunkBytes) f.r.fail("a raw length over the chunk limit");
    if (crc > UINT32_MAX) f.r.fail("a checksum beyond 32 bits");
    e.raw_len = static_cast<uint32_t>(raw_len);
    e.crc = static_cast<uint32_t>(crc);
    const uint64_t first = f.r.varint(), length = f.r.varint();
    if (length > UINT64_MAX - first) f.r.fail("a time span beyond 64 bits");
    e.span.samples = f.r.varint();
    e.span.event_samples = f.r.varint();
    e.span.side_band = f.r.varint();
    // A chunk without samples has no times (what was stored is not used).
    if (e.span.has_samples()) {
      e.span.first_ns = first;
      e.span.last_ns = first + length;
    }
    index.chunks.push_back(e);
  }
  return index;
}

RecordsOutside records_outside(const std::vector<ChunkHeaderInfo>& headers,
                               const RecordsIndex& index, uint64_t from_ns, uint64_t to_ns) {
  // Each Records chunk in file order, with its entry when one names it.
  std::vector<std::pair<const ChunkHeaderInfo*, const RecordsIndexEntry*>> chunks;
  size_t next = 0;  // the first entry not matched yet
  for (const ChunkHeaderInfo& h : headers) {
    if (h.type != static_cast<uint16_t>(ChunkType::Records)) continue;
    const RecordsIndexEntry* e = nullptr;
    if (next < index.chunks.size() && index.chunks[next].raw_len == h.raw_len &&
        index.chunks[next].crc == h.crc) {
      e = &index.chunks[next++];
    }
    chunks.emplace_back(&h, e);
  }
  // From the last chunk back: one whose samples lie outside is passed over
  // when it holds nothing else, or when every chunk after it is passed over
  // too (its mappings, names and exits then come after every sample read,
  // so nothing read depends on them).
  RecordsOutside out;
  bool rest_passed_over = true;
  for (auto it = chunks.rbegin(); it != chunks.rend(); ++it) {
    const RecordsIndexEntry* e = it->second;
    bool pass = false;
    if (e != nullptr) {
      const RecordsSpan& s = e->span;
      const bool outside = !s.has_samples() || s.last_ns < from_ns || s.first_ns >= to_ns;
      pass = outside && (s.side_band == 0 || rest_passed_over);
    }
    rest_passed_over = rest_passed_over && pass;
    if (!pass) continue;
    out.offsets.push_back(it->first->offset);
    out.held.add(e->span);
  }
  std::reverse(out.offsets.begin(), out.offsets.end());
  return out;
}

}  // namespace kprof
