// The part of a kallsyms snapshot that one profile needs, and a digest that
// names a whole snapshot.
//
// A kprof profile whose recording found this boot's snapshot in its cache
// (collector/kallsyms_cache.h) does not carry the ~1 MB snapshot; when
// recording ends it gets one Kallsyms chunk of kallsyms_subset() instead, a
// few KB, so it stays self-contained (reports the same on any machine).
// RunInfo::kallsyms_digest holds kallsyms_digest() of the snapshot it
// started with, so a file cut short before its subset was written can be
// named from the cache on the same boot.
//
// kallsyms_subset(kallsyms, modules, ips) contract: the lines of `kallsyms`
// (in their order, each ending in '\n') that are
//   - at the address of the symbol KernelSymbols::parse(kallsyms, modules)
//     names each ip with (every alias at that address, so the same one wins),
//     and at the next function symbol's address after it (where that
//     function ends);
//   - at the kernel image's first and last function symbols (what
//     KernelSymbols::in_boot_static_text() depends on), and the anchors
//     _text, _stext, _etext, _sinittext, _einittext, _end (the importer moves
//     a snapshot by its _text for KASLR).
// So KernelSymbols::parse(subset, modules) gives the same lookup() for every
// one of `ips` as the full text, and the same in_boot_static_text() and
// addresses_hidden() for every address. When every address is hidden
// (kptr_restrict), the subset is the first line. Malformed lines are dropped.
// The Modules text stays whole in a profile: it is small.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/aggregate.h"

namespace kprof {

// A 64-bit hash of `text` and its length: "0123456789abcdef-5242880".
std::string kallsyms_digest(std::string_view text);

std::string kallsyms_subset(std::string_view kallsyms, std::string_view modules,
                            std::span<const uint64_t> ips);

// The kernel addresses a profile names: the kernel-mode keys of `counts`
// and, with stacks, every kernel frame. Sorted, distinct.
std::vector<uint64_t> kernel_ips(const AddressCounts& counts);

inline std::string kallsyms_subset(std::string_view kallsyms, std::string_view modules,
                                   const AddressCounts& counts) {
  return kallsyms_subset(kallsyms, modules, kernel_ips(counts));
}

// The start of the notice a profile gets when its kernel names came from
// this boot's cache rather than the file (importer/import.h); kprof info
// looks for it.
inline constexpr std::string_view kBootCacheKallsymsNotice =
    "kernel names from this boot's kallsyms cache";

}  // namespace kprof
