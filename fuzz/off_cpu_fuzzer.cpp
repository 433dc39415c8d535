// Fuzzes the OffCpu chunk's decoder (core/off_cpu.h): the chunk's bytes,
// lengths and thread times included. What decodes must encode and decode
// again to the same.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/error.h"
#include "core/off_cpu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kprof::OffCpu o = kprof::decode_off_cpu(std::span(data, size));
    if (kprof::decode_off_cpu(kprof::encode_off_cpu(o)) != o) __builtin_trap();
  } catch (const kprof::Error&) {
  }
  return 0;
}
