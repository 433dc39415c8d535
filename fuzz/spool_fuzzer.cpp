// Fuzzes decode_spool: a PerfRecords chunk's payload (the layout and, for
// --off-cpu, its event table, then blocks of perf records as a ring held
// them) decoded, merged by time and counted, as every reader of a recording
// cut short does; the context switches followed into off-CPU time
// (core/off_cpu_builder.h), whose identity must hold whatever the records say.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/off_cpu_builder.h"
#include "perfabi/spool.h"

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
  return 0;
}
