// Fuzzes the ThreadCounts chunk's decoder (core/thread_counts.h), and its
// check against a flat table. Input: the chunk's bytes. What decodes must
// encode and decode again to the same.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/error.h"
#include "core/thread_counts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kprof::ThreadCounts t = kprof::decode_thread_counts(std::span(data, size));
    if (kprof::decode_thread_counts(kprof::encode_thread_counts(t)) != t) __builtin_trap();
    kprof::Histogram flat;
    flat.images = {{"[kernel]", ""}};
    flat.rows = {{0, "first", kprof::Mode::Kernel, 3, 3}, {0, "second", kprof::Mode::Kernel, 1, 1}};
    (void)t.rows_of(flat);
  } catch (const kprof::Error&) {
  }
  return 0;
}
