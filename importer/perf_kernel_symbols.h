// The kernel symbols that name a perf.data's kernel samples (import.h lists
// the sources in order): --kallsyms FILE; this machine's kallsyms when it
// runs the recorded kernel (read again from /proc/kallsyms when a sample
// lies in kernel text that comes and goes within a boot); perf's build-id
// cache; else none, and why. A kallsyms of another boot than the recording
// is moved by the KASLR offset: the recording's "_text" (the pgoff of its
// kernel mapping) against the kallsyms's own. What is kept of it is the
// lines `counts` needs (core/kallsyms_subset.h), as kprof record keeps.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/aggregate.h"
#include "core/kallsyms_subset.h"
#include "importer/import.h"
#include "importer/perf_data.h"

namespace kprof::importer {

struct PerfKernelSymbols {
  std::string kallsyms, modules;  // the text, as a Profile keeps it (kallsyms: a subset)
  std::string source;             // where it came from; "" when none was found
  std::string why_none;           // when none was found: why
};

// Step one: the first source that has symbols, in import.h's order, read
// whole (or why there is none). Needs no samples, so the importer runs it
// beside the record walk. Throws kprof::Error for an unreadable --kallsyms
// file.
// The kallsyms is also indexed for the subset step two cuts (the slow part).
struct FoundKernelSymbols {
  PerfKernelSymbols symbols;
  bool running = false;                  // this machine's
  std::unique_ptr<KallsymsIndex> index;  // of symbols.kallsyms, which it views
};
std::unique_ptr<const FoundKernelSymbols> find_kernel_symbols(const PerfDataHeader& h,
                                                              const std::string& kernel_build_id,
                                                              const ImportOptions& options);

// Step two: what the samples need of it. `counts`: the recording's samples;
// `recorded_text`: _text as the recording saw it (ImportSink::kernel_text).
PerfKernelSymbols perf_kernel_symbols(const FoundKernelSymbols& found, const ImportOptions& options,
                                      const AddressCounts& counts,
                                      std::optional<uint64_t> recorded_text);

// "kernel symbols from SOURCE", or "N kernel samples not named: WHY; give
// ..." when none were found and the recording has kernel samples; else "".
std::string kernel_symbols_notice(const PerfKernelSymbols& k, const AddressCounts& counts);

// The address of "_text" in kallsyms text (the first such line), or 0.
uint64_t kallsyms_text_address(std::string_view kallsyms);
// kallsyms text with the address of each line that has one (not 0, which
// is a hidden address) moved by `delta`, written as the kernel writes it;
// lines that do not read as kallsyms lines are kept as they are. The text
// is rewritten, not just the lookups moved, because kprof import stores it
// with the recording's samples.
std::string relocate_kallsyms(std::string_view kallsyms, uint64_t delta);

}  // namespace kprof::importer
