// Loading kprof's own profiles: the one entry point every reader of a .kprof
// file outside core uses. It hands core's read_profile (core/profile.h) the
// decoder of PerfRecords chunks (decode_spool, spool.h), so a file cut short
// while recording, whose samples are still in perf's layout, reads like any
// other; there is no way to load a profile without it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/compact.h"
#include "core/profile.h"
#include "perfabi/spool.h"

namespace kprof::perfabi {

// decode_spool as core's PerfRecordsDecoder. Records skipped as damaged are
// added to *damaged when given (kprof record's closing line). `which`: all
// records, or those a Records chunk keeps (compaction's).
class SpoolDecoder final : public PerfRecordsDecoder {
 public:
  explicit SpoolDecoder(uint64_t* damaged = nullptr, SpoolRecords which = SpoolRecords::kAll)
      : damaged_(damaged), which_(which) {}
  void decode(std::span<const uint8_t> payload, RecordSink& sink) const override;

 private:
  uint64_t* damaged_;
  SpoolRecords which_;
};

// A profile by path ("-": standard input), from a reader, or from bytes in
// memory. `damaged` as SpoolDecoder's.
Profile load_profile(const std::string& path, const LoadOptions& options = {},
                     uint64_t* damaged = nullptr);
Profile load_profile(ProfileReader& reader, const LoadOptions& options = {});
Profile load_profile_bytes(std::vector<uint8_t> bytes, const std::string& name,
                           const LoadOptions& options = {});

// compact_records (core/compact.h) with the same decoder, given only the
// records a Records chunk keeps.
CompactResult compact_profile(const std::string& path);

}  // namespace kprof::perfabi
