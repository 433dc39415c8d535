// Fuzzes the Unwind chunk's decoder (core/unwind_stats.h). Input: the
// chunk's bytes. What decodes must encode and decode again to the same, and
// its notice must be made without fault.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/error.h"
#include "core/unwind_stats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kprof::UnwindStats s = kprof::decode_unwind_stats(std::span(data, size));
    if (kprof::decode_unwind_stats(kprof::encode_unwind_stats(s)) != s) __builtin_trap();
    (void)kprof::unwind_notice(s);
  } catch (const kprof::Error&) {
  }
  return 0;
}
