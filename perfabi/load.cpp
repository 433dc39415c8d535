#include "perfabi/load.h"

#include <utility>

#include "core/profile_reader.h"
#include "perfabi/spool.h"

namespace kprof::perfabi {

void SpoolDecoder::decode(std::span<const uint8_t> payload, RecordSink& sink) const {
  decode_spool(payload, sink, damaged_, which_);
}

Profile load_profile(const std::string& path, const LoadOptions& options, uint64_t* damaged) {
  ProfileReader reader = ProfileReader::open(path);
  return read_profile(reader, SpoolDecoder(damaged), options);
}

Profile load_profile(ProfileReader& reader, const LoadOptions& options) {
  return read_profile(reader, SpoolDecoder(), options);
}

Profile load_profile_bytes(std::vector<uint8_t> bytes, const std::string& name,
                           const LoadOptions& options) {
  ProfileReader reader(std::move(bytes), name);
  return read_profile(reader, SpoolDecoder(), options);
}

CompactResult compact_profile(const std::string& path) {
  return compact_records(path, SpoolDecoder(nullptr, SpoolRecords::kKept));
}

}  // namespace kprof::perfabi
