// Fuzzes the profile reader end to end: header, chunk walk, zstd, every
// payload codec and the Records decoder feeding an AddressAggregator.
// Mutated payloads almost never keep a valid crc32, which would stop the walk
// before the decoders; so unless the input ends with an odd byte, the harness
// first rewrites each chunk's checksum to match its bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "core/aggregate.h"
#include "core/bytes.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "perfabi/load.h"
#include "perfabi/spool.h"

namespace {

void fix_checksums(std::vector<uint8_t>& b) {
  size_t pos = kprof::kHeaderBytes;
  while (pos <= b.size() && b.size() - pos >= kprof::kChunkHeaderBytes) {
    uint32_t stored_len;
    std::memcpy(&stored_len, &b[pos + 4], 4);  // little-endian hosts only, fine for fuzzing
    const size_t body = pos + kprof::kChunkHeaderBytes;
    if (stored_len > b.size() - body) return;
    const uint32_t crc = kprof::crc32(std::span<const uint8_t>(&b[body], stored_len));
    std::memcpy(&b[pos + 12], &crc, 4);
    pos = body + stored_len;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  if (size > 0 && (data[size - 1] & 1) == 0 && size >= kprof::kHeaderBytes) fix_checksums(bytes);
  // The last byte picks the checksum repair (bit 0) and -g stack counting (bit 1).
  kprof::AddressAggregator sink(/*stacks=*/size > 0 && (data[size - 1] & 2));
  try {
    kprof::Profile p =
        kprof::perfabi::load_profile_bytes(std::move(bytes), "fuzz.kprof", {.records = &sink});
    // What report does next with a loaded profile.
    const auto ks = kprof::KernelSymbols::parse(p.kallsyms, p.modules);
    kprof::NullUserResolver null;
    const auto named = kprof::symbolize_counts(sink.counts(), ks, null);
    const auto& h = named.histogram;
    if (p.histogram) (void)p.histogram->total_samples();
    if (p.stacks) (void)kprof::leaf_histogram(*p.stacks).total_samples();
    (void)h.total_samples();
  } catch (const kprof::Error&) {
  }
  return 0;
}
