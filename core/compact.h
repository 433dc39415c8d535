// Compressing a profile's Records chunks once recording is over.
//
// kprof record writes its records uncompressed (PerfRecords chunks,
// perfabi/spool.h, and a Records chunk of what already ran): at high sampling
// rates every CPU takes ~100k interrupts a second, and under that storm
// zstd ran about 23x slower than on a quiet machine here (bench/storm.sh:
// 216 MB/s quiet, 9 MB/s at -a -F 100000 on 2 vCPUs), so compressing in the drain
// loop was half of kprof's CPU and the reason rings overflowed. Once the
// events are disabled the same work is cheap: compact_records() copies the
// complete profile at `path` chunk by chunk to a temporary file beside it,
// decoding each PerfRecords chunk into a Records chunk and compressing it and
// each uncompressed Records chunk (zstd kZstdCompact; kept as it is where
// that does not make it smaller) and copying every other chunk's stored
// bytes unchanged, then renames it over `path`. Memory: one chunk.
//
// Nothing is lost on failure: the temporary file is removed and `path` is
// left as it was (complete and readable, only larger); the Error says why
// (disk full, no permission). A profile that is not complete is refused
// (a cut-short file is appended to first: kprof symbolize).
#pragma once

#include <cstdint>
#include <string>

#include "core/profile.h"

namespace kprof {

struct CompactResult {
  uint64_t bytes_before = 0, bytes_after = 0;
  uint64_t chunks_compressed = 0;
};
// `perf_records` decodes PerfRecords chunks (perfabi::SpoolDecoder): each
// becomes a compressed Records chunk. perfabi::compact_profile (perfabi/load.h)
// passes it.
// `keep_perf_records` (kprof record --keep-stacks): PerfRecords chunks stay
// PerfRecords (compressed, their --call-graph dwarf stack copies kept for
// unwinding again: kprof symbolize), and `perf_records` is not used.
CompactResult compact_records(const std::string& path, const PerfRecordsDecoder& perf_records,
                              bool keep_perf_records = false);

}  // namespace kprof
