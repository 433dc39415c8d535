// sniff_format, input_format_name, file_format (import.h): which of the
// formats kprof reads an input is, from its first bytes alone.
#include <cstring>
#include <string_view>

#include "core/error.h"
#include "core/file_layout.h"
#include "core/input.h"
#include "core/mapped_file.h"
#include "importer/import.h"
#include "importer/perf_data.h"

namespace kprof::importer {

InputFormat sniff_format(std::span<const uint8_t> head) {
  if (head.size() >= sizeof kMagic && std::memcmp(head.data(), kMagic, sizeof kMagic) == 0) {
    return InputFormat::Kprof;
  }
  if (is_perf_data(head)) return InputFormat::PerfData;
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  if (looks_like_listing(text)) return InputFormat::Listing;
  return InputFormat::Unknown;
}

const char* input_format_name(InputFormat f) {
  switch (f) {
    case InputFormat::Kprof:
      return "kprof profile";
    case InputFormat::PerfData:
      return "perf.data";
    case InputFormat::Listing:
      return "listing";
    case InputFormat::Unknown:
      break;
  }
  return "unknown";
}

InputFormat file_format(const std::string& path) {
  try {
    const InputFile in = InputFile::open(path);
    return sniff_format(read_fd(in.fd(), path, kSniffBytes));
  } catch (const Error&) {
    return InputFormat::Unknown;
  }
}

}  // namespace kprof::importer
