// Kernel and module symbols from a /proc/kallsyms + /proc/modules snapshot
// (stored in the profile, so KASLR and module load addresses are those of the
// recorded run). Parsing tolerates odd lines (skipped and counted), zero
// addresses (kptr_restrict: then addresses_hidden() is true and every lookup
// returns "[unknown]" in "[kernel]"), duplicate addresses (aliases: global
// over weak over local, then fewer leading underscores, then name order, so
// the result does not depend on line order). Only function symbols (t T w W)
// are kept.
//
// lookup(ip): inside a /proc/modules range, the last symbol of that module at
// or below ip ("[unknown]" in "[module]" before its first symbol); elsewhere the
// last symbol at or below ip, unless ip is more than 1 MiB past it.
// The returned views live as long as the KernelSymbols.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// The reading of /proc/kallsyms and /proc/modules lines that KernelSymbols
// uses, for the code that must read them alike (core/kallsyms_subset.h).
namespace kallsyms {
struct Line {
  uint64_t addr = 0;
  char type = 0;
  std::string_view name, module;  // module "[name]" or ""
};
// "ADDR TYPE NAME" or "ADDR TYPE NAME [MODULE]"; false for a malformed or
// blank line (*blank says which).
bool parse_line(std::string_view text, Line* out, bool* blank = nullptr);
bool is_function(char type);  // t, T, w, W
// Which alias of one address KernelSymbols names it by: global, weak, local;
// then fewer leading underscores; then the greater name (what perf shows).
bool better_alias(char a_type, std::string_view a_name, char b_type, std::string_view b_name);
// "name size refcount deps state 0xaddr [taints]".
struct ModuleLine {
  std::string_view name;
  uint64_t size = 0, addr = 0;
};
bool parse_module_line(std::string_view text, ModuleLine* out, bool* blank = nullptr);
}  // namespace kallsyms

class KernelSymbols {
 public:
  struct Hit {
    std::string_view image;     // "[kernel]" or "[module_name]"
    std::string_view function;  // "[unknown]" when nothing covers the address
  };

  static KernelSymbols parse(std::string_view kallsyms, std::string_view modules);

  Hit lookup(uint64_t addr) const;
  // The extent of the function lookup(addr) names: from its symbol's address
  // to the next symbol's (or its module's end), at most 1 MiB; nullopt where
  // lookup() says "[unknown]". For reading a function's code (kprof annotate).
  struct Extent {
    uint64_t start = 0, end = 0;
  };
  std::optional<Extent> extent(uint64_t addr) const;
  // Whether the snapshot's answer for addr holds for the whole boot: addr lies
  // between the kernel image's first and last function symbols, or inside a
  // /proc/modules range (true as well when addresses are hidden: nothing
  // newer would help). Other kernel text (BPF programs, ftrace and kprobe
  // trampolines) comes and goes, so an older snapshot of this boot may not
  // know it (collector/kallsyms_cache.h).
  bool in_boot_static_text(uint64_t addr) const;
  bool addresses_hidden() const { return hidden_; }
  size_t size() const { return syms_.size(); }
  size_t skipped_lines() const { return skipped_; }

 private:
  struct Sym {
    uint64_t addr;
    uint32_t name;    // offset of its NUL-terminated name in names_
    uint32_t module;  // index into images_ (0 = "[kernel]")
  };
  struct Range {  // from /proc/modules
    uint64_t start, end;
    uint32_t module;
  };
  // What names addr: its symbol (nullptr: none) and the /proc/modules
  // range it lies in (nullptr: none). lookup() and extent() read it.
  struct Found {
    const Sym* sym = nullptr;
    const Range* range = nullptr;
  };
  Found find(uint64_t addr) const;
  const Range* range_of(uint64_t addr) const;
  std::vector<Sym> syms_;      // sorted by addr
  std::vector<Range> ranges_;  // sorted by start
  std::string names_;          // every kept name, NUL-terminated
  std::string_view name_at(uint32_t offset) const;
  std::vector<std::string> images_;
  std::vector<bool> has_range_;                  // per image: /proc/modules gave its address range
  uint64_t kernel_first_ = 1, kernel_last_ = 0;  // the kernel image's function span
  bool hidden_ = false;
  size_t skipped_ = 0;
};

}  // namespace kprof
