#include "symbolizer/symbol_table.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace kprof::symbolizer {

void SymbolTable::add(uint64_t addr, uint64_t size, std::string_view name, Binding binding) {
  // Versioned names ("memcpy@GLIBC_2.2.5") would make the same function look
  // different across library builds; mangled names never contain '@'.
  if (auto at = name.find('@'); at != std::string_view::npos) name = name.substr(0, at);
  if (name.empty() || name.size() > UINT32_MAX || names_.size() > UINT32_MAX - name.size()) return;
  entries_.push_back({addr, size, static_cast<uint32_t>(names_.size()),
                      static_cast<uint32_t>(name.size()), binding});
  names_.append(name);
}

static size_t leading_underscores(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] == '_') ++n;
  return n;
}

bool SymbolTable::better(const Entry& a, const Entry& b) const {
  if (a.binding != b.binding) return a.binding > b.binding;
  if ((a.size != 0) != (b.size != 0)) return a.size != 0;
  std::string_view na = name_of(a), nb = name_of(b);
  size_t ua = leading_underscores(na), ub = leading_underscores(nb);
  if (ua != ub) return ua < ub;
  if (na.size() != nb.size()) return na.size() < nb.size();
  return na < nb;
}

void SymbolTable::finish() {
  std::sort(entries_.begin(), entries_.end(), [this](const Entry& a, const Entry& b) {
    if (a.addr != b.addr) return a.addr < b.addr;
    return better(a, b);
  });
  // Keep the best alias per address, with the largest size any alias states
  // (in place: a copy would be fresh memory to fault in).
  size_t kept = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (kept != 0 && entries_[kept - 1].addr == entries_[i].addr) {
      entries_[kept - 1].size = std::max(entries_[kept - 1].size, entries_[i].size);
    } else {
      entries_[kept++] = entries_[i];
    }
  }
  entries_.resize(kept);
}

SymbolTable::Extent SymbolTable::extent_of(size_t index) const {
  const Entry& e = entries_[index];
  uint64_t end = e.addr + e.size;
  if (e.size == 0) {
    // Zero-sized: up to the next symbol; the last is bounded by nothing, so
    // it claims only nearby addresses rather than the rest of the space.
    end = index + 1 < entries_.size() ? entries_[index + 1].addr : e.addr + 4096;
  }
  return {e.addr, end < e.addr ? UINT64_MAX : end, name_of(e)};
}

std::optional<SymbolTable::Extent> SymbolTable::extent(uint64_t vaddr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), vaddr,
                             [](uint64_t v, const Entry& e) { return v < e.addr; });
  if (it == entries_.begin()) return std::nullopt;
  const Extent x = extent_of(static_cast<size_t>(it - entries_.begin()) - 1);
  if (vaddr >= x.end) return std::nullopt;
  return x;
}

std::string_view SymbolTable::lookup(uint64_t vaddr) const {
  auto x = extent(vaddr);
  return x ? x->name : std::string_view{};
}

std::optional<SymbolTable::Extent> SymbolTable::find(std::string_view name) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (name_of(entries_[i]) == name) return extent_of(i);
  }
  return std::nullopt;
}

namespace {
struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
}  // namespace

std::string demangle(std::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  std::string mangled(name);  // __cxa_demangle needs a NUL-terminated string
  int status = 0;
  std::unique_ptr<char, FreeDeleter> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status));
  if (status != 0 || !out) return mangled;
  return std::string(out.get());
}

}  // namespace kprof::symbolizer
