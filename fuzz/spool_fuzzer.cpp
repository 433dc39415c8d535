// Fuzzes decode_spool: a PerfRecords chunk's payload (the layout, then
// blocks of perf records as a ring held them) decoded, merged by time and
// counted, as every reader of a recording cut short does.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/aggregate.h"
#include "core/error.h"
#include "perfabi/spool.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kprof::AddressAggregator sink(/*stacks=*/size > 0 && (data[0] & 1));
  uint64_t damaged = 0;
  try {
    kprof::perfabi::decode_spool(std::span<const uint8_t>(data, size), sink, &damaged);
  } catch (const kprof::Error&) {
  }
  return 0;
}
