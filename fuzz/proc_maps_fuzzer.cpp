// Fuzzes the /proc text parsers: maps, stat, cpu lists, cpuinfo, and the
// kernel notes (build-id) reader.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "collector/procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto maps = kprof::collector::parse_proc_maps(text, 1, 2);
  for (const auto& m : maps) {
    if (m.filename.empty()) __builtin_trap();  // nameless mappings become "//anon"
  }
  kprof::collector::parse_proc_stat(text, 0);
  kprof::collector::parse_cpu_list(text.substr(0, 64));
  kprof::collector::cpu_model_from_cpuinfo(text);
  kprof::collector::build_id_from_notes(std::span<const uint8_t>(data, size));
  return 0;
}
