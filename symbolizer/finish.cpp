#include "symbolizer/finish.h"

#include <algorithm>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/bytes.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/kallsyms_subset.h"
#include "core/kernel_symbols.h"
#include "perfabi/load.h"
#include "symbolizer/kcore.h"

namespace kprof {
namespace {

// Marks the kernel rows of `fresh` whose peak address `previous` marked: the
// same samples give the same peak, and the mark was read from the text that
// ran there.
void keep_irq_enable_marks(Histogram& fresh, const Histogram& previous) {
  std::set<uint64_t> marked;
  for (const FunctionCount& row : previous.rows) {
    if (row.mode == Mode::Kernel && row.peak_after_irq_enable && row.peak_ip != 0) {
      marked.insert(row.peak_ip);
    }
  }
  if (marked.empty()) return;
  for (FunctionCount& row : fresh.rows) {
    if (row.mode == Mode::Kernel && marked.contains(row.peak_ip)) row.peak_after_irq_enable = true;
  }
}

// The kernel addresses finishing names: the samples' and, with --off-cpu,
// the off-CPU stacks'. Sorted, distinct.
std::vector<uint64_t> named_kernel_ips(const AddressCounts& counts, const OffCpuCounts* off_cpu) {
  std::vector<uint64_t> ips = kernel_ips(counts);
  if (off_cpu != nullptr) {
    for (const AddressCounts* more : {&off_cpu->blocked, &off_cpu->runq}) {
      const std::vector<uint64_t> add = kernel_ips(*more);
      ips.insert(ips.end(), add.begin(), add.end());
    }
    std::sort(ips.begin(), ips.end());
    ips.erase(std::unique(ips.begin(), ips.end()), ips.end());
  }
  return ips;
}

// The kernel's names for `ips`, from the lines of `kallsyms` they need
// (kallsyms_subset's contract: the same lookup() for each of them, and the
// same in_boot_static_text() and addresses_hidden() everywhere), not from
// parsing the whole ~5 MB text; and the lines that name `counts` alone, for
// the profile's Kallsyms chunk.
struct KernelNames {
  KernelSymbols symbols;
  std::string subset;
};
KernelNames kernel_names(std::string_view kallsyms, std::string_view modules,
                         std::span<const uint64_t> ips, const AddressCounts& counts) {
  const auto index = std::make_unique<const KallsymsIndex>(kallsyms, modules);
  return {KernelSymbols::parse(index->subset(ips), modules), index->subset(kernel_ips(counts))};
}

}  // namespace

FinishedProfile finish_profile(ProfileWriter writer, const AddressCounts& counts,
                               const KernelSnapshot& kernel, const FinishOptions& options) {
  const std::vector<uint64_t> ips = named_kernel_ips(counts, options.off_cpu);
  KernelNames names = kernel_names(kernel.kallsyms, kernel.modules, ips, counts);
  if (kernel.refresh && !kernel_ips_in_boot_static_text(counts, names.symbols)) {
    // A sample in BPF or trampoline text, which the cached snapshot may predate.
    names = kernel_names(kernel.refresh(), kernel.modules, ips, counts);
  }
  const KernelSymbols& symbols = names.symbols;
  if (!kernel.in_file) {
    // The lines that name the kernel samples (a few KB, not ~1 MB), so the
    // profile reports the same anywhere. Readers take the last Kallsyms chunk.
    writer.write_chunk(ChunkType::Kallsyms, bytes_of(names.subset));
  }
  FinishedProfile out;
  out.symbols = symbolize_profile(counts, symbols, options.previous);
  out.kernel_addresses_hidden = symbols.addresses_hidden();
  if (!out.symbols.stacks) {
    Histogram& h = out.symbols.histogram;
    if (options.previous) keep_irq_enable_marks(h, *options.previous);
    if (options.this_boot) {
      if (const auto kcore = symbolizer::KernelMemory::open(nullptr)) {
        symbolizer::mark_irq_enable_peaks(h, *kcore);
      }
    }
  }
  if (options.off_cpu) {
    // Named as the CPU samples are; the files' warnings were said for those.
    const ProfileSymbols blocked = symbolize_profile(options.off_cpu->blocked, symbols);
    const ProfileSymbols runq = symbolize_profile(options.off_cpu->runq, symbols);
    out.off_cpu = off_cpu_from_stacks(blocked.stacks.value_or(Stacks{}),
                                      runq.stacks.value_or(Stacks{}), std::move(*options.off_cpu),
                                      options.off_cpu_tick_ns, options.sampled_is_ns);
    out.off_cpu->source = options.off_cpu_source;
    writer.write_chunk(ChunkType::OffCpu, encode_off_cpu(*out.off_cpu), true, kZstdSmall);
  }
  if (options.unwind) {
    writer.write_chunk(ChunkType::Unwind, encode_unwind_stats(*options.unwind), true, kZstdSmall);
  }
  write_profile_symbols(writer, out.symbols);
  out.messages = out.symbols.warnings;
  for (const std::string& image : out.symbols.kept_images) {
    out.messages.push_back(image + ": kept the names from the recording");
  }
  out.bytes = writer.bytes_written();
  const std::string path = writer.path();
  { ProfileWriter done = std::move(writer); }  // closed before the file is replaced
  try {
    const perfabi::SpoolDecoder plain(nullptr, perfabi::SpoolRecords::kKept);
    out.bytes = compact_records(path, options.perf_records ? *options.perf_records : plain,
                                options.keep_perf_records)
                    .bytes_after;
  } catch (const Error& e) {
    out.messages.push_back(std::string(e.what()) +
                           "; the profile is complete, its records left uncompressed");
  }
  return out;
}

}  // namespace kprof
