// Fuzzes decode_spool: a PerfRecords chunk's payload (the layout and, for
// --off-cpu, its event table, then blocks of perf records as a ring held
// them) decoded, merged by time and counted, as every reader of a recording
// cut short does; the context switches followed into off-CPU time
// (core/off_cpu_builder.h), whose identity must hold whatever the records say;
// and what compaction decodes (SpoolRecords::kKept, which passes over the
// switches and off-CPU samples unread) must be exactly the records a
// Records chunk keeps of the whole decode, in the same order.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/off_cpu_builder.h"
#include "core/records_chunk.h"
#include "perfabi/spool.h"

namespace {

// What an EncodingSink keeps (CPU and other events' samples, the side-band
// records), as encoded bytes; and whether the decode threw.
struct Kept {
  std::vector<uint8_t> bytes;
  bool threw = false;
};
Kept kept(std::span<const uint8_t> payload, kprof::perfabi::SpoolRecords which) {
  kprof::EncodingSink sink;
  Kept k;
  try {
    kprof::perfabi::decode_spool(payload, sink, nullptr, which);
  } catch (const kprof::Error&) {
    k.threw = true;
  }
  k.bytes = sink.encoder.take();
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kprof::AddressAggregator counts(/*stacks=*/size > 0 && (data[0] & 1));
  kprof::OffCpuBuilder off_cpu;
  kprof::TeeSink sink(counts, off_cpu);
  uint64_t damaged = 0;
  try {
    kprof::perfabi::decode_spool(std::span<const uint8_t>(data, size), sink, &damaged);
  } catch (const kprof::Error&) {
  }
  const kprof::OffCpuCounts c = std::move(off_cpu).finish();
  for (const kprof::OffCpuThread& t : c.threads) {
    if (t.on_ns + t.blocked_ns + t.runq_ns != t.wall_ns()) __builtin_trap();
  }
  const std::span<const uint8_t> payload(data, size);
  const Kept all = kept(payload, kprof::perfabi::SpoolRecords::kAll);
  const Kept only = kept(payload, kprof::perfabi::SpoolRecords::kKept);
  if (all.threw != only.threw || all.bytes != only.bytes) __builtin_trap();
  return 0;
}
