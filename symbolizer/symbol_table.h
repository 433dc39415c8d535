// A sorted table of function symbols for one ELF image, searched by virtual
// address. Built once per file (add() then finish()), read-only afterwards.
//
// Aliases at one address collapse to one entry with a stable name: GLOBAL over
// WEAK over LOCAL, then a sized symbol over a zero-sized one, then fewer
// leading underscores, then the shorter and lexically smaller name. A sized
// symbol covers [addr, addr + size); a zero-sized one covers up to the next
// symbol. Names are copied into the table, so the ELF handle they came from
// may be closed after finish().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::symbolizer {

enum class Binding : uint8_t { Local = 0, Weak = 1, Global = 2 };

class SymbolTable {
 public:
  // `name` may carry a "@VERSION" / "@@VERSION" suffix; it is dropped.
  void add(uint64_t addr, uint64_t size, std::string_view name, Binding binding);
  // Room for `symbols` more entries and `name_bytes` more of their names,
  // so adding a file's symbols copies nothing (an upper bound costs only
  // address space: what is never written is never faulted in).
  void reserve(size_t symbols, size_t name_bytes) {
    entries_.reserve(entries_.size() + symbols);
    names_.reserve(names_.size() + name_bytes);
  }
  // Sorts and collapses aliases, in place; lookup() needs it.
  void finish();

  // The raw (mangled) name of the function covering `vaddr`, or "".
  // The view lives as long as the table.
  std::string_view lookup(uint64_t vaddr) const;

  // A function's extent: [addr, end) and its raw name (a view into the table).
  // A zero-sized symbol ends at the next one (the last: 4 KiB on).
  struct Extent {
    uint64_t addr = 0, end = 0;
    std::string_view name;
  };
  // The function covering `vaddr` (as lookup() finds it), or nullopt.
  std::optional<Extent> extent(uint64_t vaddr) const;
  // The function named `name` exactly (raw, as in the file), or nullopt;
  // a linear search, for one-off lookups (kprof annotate --vmlinux).
  std::optional<Extent> find(std::string_view name) const;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    uint64_t addr = 0;
    uint64_t size = 0;
    uint32_t name_off = 0;
    uint32_t name_len = 0;
    Binding binding = Binding::Local;
  };
  std::string_view name_of(const Entry& e) const {
    return {names_.data() + e.name_off, e.name_len};
  }
  bool better(const Entry& a, const Entry& b) const;  // a is the preferred alias
  Extent extent_of(size_t index) const;

  std::vector<Entry> entries_;
  std::string names_;  // all names, back to back
};

// abi::__cxa_demangle for "_Z..." names; anything else (or a failure) is
// returned unchanged.
std::string demangle(std::string_view name);

}  // namespace kprof::symbolizer
