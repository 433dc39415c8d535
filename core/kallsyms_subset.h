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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/aggregate.h"

namespace kprof {

// A 64-bit hash of `text` and its length: "0123456789abcdef-5242880".
std::string kallsyms_digest(std::string_view text);

std::string kallsyms_subset(std::string_view kallsyms, std::string_view modules,
                            std::span<const uint64_t> ips);

// The same in two steps: the text read once into an index (the slow part,
// which needs no samples: the importer makes it while the records are
// walked), then subset(ips) == kallsyms_subset(kallsyms, modules, ips).
// Holds views into `kallsyms`, which must outlive it.
class KallsymsIndex {
 public:
  KallsymsIndex(std::string_view kallsyms, std::string_view modules);
  std::string subset(std::span<const uint64_t> ips) const;

  // A function line, kept small (a kallsyms has ~150k of them, and on the
  // machines kprof runs on first-touched memory costs ~10 us a page): where
  // its text is, and its address. The rest is parsed again where needed.
  struct FuncLine {
    uint64_t addr;
    uint32_t off, len;  // of its text in the kallsyms
  };
  struct Sym {
    uint64_t addr;
    uint32_t best;  // index of the alias KernelSymbols keeps, in the function lines
  };
  struct Range {
    uint64_t start, end;
    std::string module;  // "[name]"
  };

 private:
  std::string_view kallsyms_;
  std::vector<FuncLine> funcs_;            // by address
  std::vector<Sym> syms_;                  // one per address
  std::vector<uint32_t> first_of_;         // per sym: its first line in funcs_, then the end
  std::vector<std::string_view> anchors_;  // _text, _stext, ... lines
  std::vector<Range> ranges_;              // the modules', by start
  std::string_view first_line_;
  bool any_nonzero_ = false;                              // some address is not hidden
  std::optional<std::pair<size_t, size_t>> kernel_span_;  // the image's first and last syms
};

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
