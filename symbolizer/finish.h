// Finishing a profile once its records are in the file: the one sequence
// `kprof record` runs when recording ends and `kprof symbolize` runs later
// (a file cut short, or named again on this machine). In order:
//   1. the kernel snapshot: one taken from this boot's cache
//      (collector/kallsyms_cache.h) is read afresh (KernelSnapshot::refresh)
//      when a kernel sample lies outside the boot's static text (BPF
//      programs, trampolines), which the cached one may predate;
//   2. a Kallsyms chunk of the lines the samples need
//      (core/kallsyms_subset.h), when the file does not hold the snapshot;
//   3. naming (profile_symbols.h), keeping the names of `previous` for
//      images whose files changed;
//   4. cpu-clock skid (report/skid.h), flat profiles only: the kernel rows
//      whose peak address follows an interrupt enable are marked, from this
//      boot's kernel text (kcore.h) when the addresses are this boot's, and
//      as `previous` marked them (they were read while recording);
//   5. with --call-graph dwarf, the Unwind chunk; with --off-cpu, the OffCpu chunk (its stacks
//   named as in 3:
//      core/off_cpu_builder.h); then the Stacks or HistogramColumns chunk,
//      then End;
//   6. the records compressed into Records chunks (perfabi::compact_profile,
//      PerfRecords decoded on the way); a failure (disk full for the copy)
//      keeps the complete, uncompressed profile, with one message saying so.
// What the commands print is returned, not printed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/aggregate.h"
#include "core/model.h"
#include "core/off_cpu_builder.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "core/unwind_stats.h"
#include "symbolizer/profile_symbols.h"

namespace kprof {

// The kallsyms and modules text that names the profile's kernel addresses.
struct KernelSnapshot {
  std::string_view kallsyms, modules;
  // Whether the file already holds the snapshot (else it gets the subset).
  bool in_file = true;
  // Set when the snapshot came from this boot's cache: reads /proc/kallsyms
  // now and returns it (valid until finish_profile returns; `kallsyms` is
  // not used after it is called, so it may replace what that viewed).
  std::function<std::string_view()> refresh;
};

struct FinishOptions {
  // Whether the profile's kernel addresses are this boot's, so that
  // /proc/kcore holds the text that ran at them (step 4).
  bool this_boot = false;
  // The histogram the file already holds (names and skid marks to keep), or
  // nullptr.
  const Histogram* previous = nullptr;
  // The off-CPU intervals of a --off-cpu recording (none: nullptr), counted
  // in ticks of off_cpu_tick_ns; sampled_is_ns: OffCpu::sampled_is_ns.
  OffCpuCounts* off_cpu = nullptr;
  uint64_t off_cpu_tick_ns = 0;
  bool sampled_is_ns = false;
  std::string off_cpu_source;  // OffCpu::source
  // --call-graph dwarf: how the user stacks ended (an Unwind chunk), and the
  // decoder that gives compaction the unwound stacks (unwind/unwinder.h:
  // Unwinder::replay); nullptr: none, and perfabi's plain decoder.
  const UnwindStats* unwind = nullptr;
  const PerfRecordsDecoder* perf_records = nullptr;
  // --keep-stacks: the PerfRecords stay (compressed) with their stack
  // copies, for unwinding again later (kprof symbolize).
  bool keep_perf_records = false;
};

struct FinishedProfile {
  ProfileSymbols symbols;
  uint64_t bytes = 0;  // the file's size once finished
  // Whether the snapshot hides every address (kptr_restrict): kernel
  // samples stay [unknown].
  bool kernel_addresses_hidden = false;
  // For stderr, in order, one line each without the "kprof: " prefix: files
  // gone, unreadable or changed; "IMAGE: kept the names from the
  // recording"; a compaction that failed.
  std::vector<std::string> messages;
  std::optional<OffCpu> off_cpu;  // what the OffCpu chunk holds, when written
};

// Writes steps 2 to 5 through `writer` (which it closes) and compacts the
// file at writer.path(). `counts`: the profile's records counted by address.
// Throws kprof::Error when a write fails.
FinishedProfile finish_profile(ProfileWriter writer, const AddressCounts& counts,
                               const KernelSnapshot& kernel, const FinishOptions& options = {});

}  // namespace kprof
