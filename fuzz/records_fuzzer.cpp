// Fuzzes the Records chunk decoder, replaying into an AddressAggregator.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/records_chunk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kprof::AddressAggregator sink;
  try {
    kprof::decode_records(std::span<const uint8_t>(data, size), sink);
  } catch (const kprof::Error&) {
  }
  kprof::NullUserResolver null;
  (void)kprof::build_histogram(sink.counts(), kprof::KernelSymbols::parse("", ""), null);
  return 0;
}
