// Fuzzes the OffCpu chunk's decoder (core/off_cpu.h): the chunk's bytes,
// lengths and thread times included. What decodes must encode to bytes that
// decode and encode to the same bytes (the encoding is a fixed point; the
// decoded structs may differ in what encodes alike, such as a Stacks' empty
// time slices).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.h"
#include "core/off_cpu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const std::vector<uint8_t> once =
        kprof::encode_off_cpu(kprof::decode_off_cpu(std::span(data, size)));
    if (kprof::encode_off_cpu(kprof::decode_off_cpu(once)) != once) __builtin_trap();
  } catch (const kprof::Error&) {
  }
  return 0;
}
