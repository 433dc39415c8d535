// Naming a recorded profile: the one path shared by `kprof record` (when
// recording ends, while the binaries surely exist) and `kprof symbolize`
// (later on the same machine, e.g. after kill -9), both through finish.h.
//
// From the aggregated addresses (core/aggregate.h) it builds the histogram
// and, for a -g recording, the stacks: kernel addresses from the profile's
// kallsyms snapshot, user addresses from ELF files through ElfResolver, which
// checks each file's build-id against the recorded mapping's. An image whose
// file is gone, unreadable or changed is not read: its functions stay
// "[unknown]" in that image, or, given the histogram the file already holds
// and when that one counted the same samples in the image, keep its names
// (they were resolved while recording). A -g profile is not mended that way:
// its stacks, and the flat table they make, keep "[unknown]" in such an image.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/aggregate.h"
#include "core/kernel_symbols.h"
#include "core/model.h"
#include "core/profile_writer.h"
#include "core/stacks.h"
#include "core/thread_counts.h"
#include "symbolizer/elf_resolver.h"

namespace kprof {

struct ProfileSymbols {
  Histogram histogram;
  std::optional<Stacks> stacks;  // only when the records held call chains
  // The flat table's samples per thread and CPU, when the counts had them
  // (AddressAggregator::count_threads) and no image kept older names.
  std::optional<ThreadCounts> threads;
  std::vector<std::string> warnings;     // one line each: files gone, unreadable or changed
  std::vector<std::string> kept_images;  // images whose names came from `previous`
};

// `previous`: the histogram already in the file, or nullptr. `buildid_cache`:
// perf's build-id cache, where a user image's recorded build is looked up
// before the file on disk (ElfResolverOptions::buildid_cache); "" for none.
ProfileSymbols symbolize_profile(const AddressCounts& counts, const KernelSymbols& kernel,
                                 const Histogram* previous = nullptr,
                                 const std::string& buildid_cache = "");
// The same, naming user addresses through `elf` (its options, and the images
// it may have read already: ElfResolver::preload).
ProfileSymbols symbolize_profile(const AddressCounts& counts, const KernelSymbols& kernel,
                                 const Histogram* previous, ElfResolver& elf);

// Writes the Stacks (a -g profile: its flat table is their leaves) or else
// the Histogram (a HistogramColumns chunk), then the ThreadCounts that index
// it, then End.
void write_profile_symbols(ProfileWriter& writer, const ProfileSymbols& symbols);

}  // namespace kprof
