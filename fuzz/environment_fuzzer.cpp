// Fuzzes the Environment chunk's decoder and the kernel configuration
// parser (core/environment.h). Input: the chunk's bytes. What decodes must
// encode and decode again to the same Environment; the same bytes read as a
// .config either parse or throw kprof::Error.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/environment.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kprof::Environment e = kprof::decode_environment(std::span(data, size));
    if (kprof::decode_environment(kprof::encode_environment(e)) != e) __builtin_trap();
  } catch (const kprof::Error&) {
  }
  try {
    (void)kprof::parse_kernel_config(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const kprof::Error&) {
  }
  return 0;
}
