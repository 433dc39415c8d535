#include "core/kernel_symbols.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <tuple>
#include <unordered_map>

namespace kprof {
namespace {

constexpr std::string_view kKernel = "[kernel]";
constexpr std::string_view kUnknown = "[unknown]";
// No kernel function is this large: an ip further past the nearest symbol is
// in a gap (data, unlisted module, BPF) and is not attributed to it.
constexpr uint64_t kMaxFunctionBytes = 1u << 20;

// Up to kMaxFields whitespace-separated fields of a line, without allocating
// (kallsyms has ~100k lines). A line with more fields has size() > kMaxFields.
struct Fields {
  static constexpr size_t kMaxFields = 8;
  std::array<std::string_view, kMaxFields> f;
  size_t n = 0;
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  std::string_view operator[](size_t i) const { return f[i]; }
};

Fields split_fields(std::string_view line) {
  Fields out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) {
      if (out.n == Fields::kMaxFields) {
        ++out.n;  // too many: callers reject the line by its size
        return out;
      }
      out.f[out.n++] = line.substr(i, j - i);
    }
    i = j;
  }
  return out;
}

bool parse_u64(std::string_view s, int base, uint64_t* out) {
  if (base == 16 && (s.starts_with("0x") || s.starts_with("0X"))) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

template <typename Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// Preference among aliases at one address: global, then weak, then local;
// then fewer leading underscores (`do_foo` over `__do_foo`); then by name, so
// the choice does not depend on the order of lines.
int binding_rank(char type) {
  switch (type) {
    case 'T':
      return 0;
    case 'W':
      return 1;
    case 't':
      return 2;
    default:
      return 3;  // 'w'
  }
}

size_t leading_underscores(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] == '_') ++n;
  return n;
}

}  // namespace

KernelSymbols KernelSymbols::parse(std::string_view kallsyms, std::string_view modules) {
  KernelSymbols ks;
  ks.images_.emplace_back(kKernel);
  std::unordered_map<std::string, uint32_t> module_index;
  auto image_for = [&](std::string_view bracketed) -> uint32_t {
    std::string name(bracketed);
    auto [it, inserted] = module_index.try_emplace(name, static_cast<uint32_t>(ks.images_.size()));
    if (inserted) ks.images_.push_back(name);
    return it->second;
  };

  struct Parsed {
    uint64_t addr;
    int rank;
    uint32_t name;
    uint32_t module;
  };
  std::vector<Parsed> parsed;
  bool any_line = false, any_nonzero = false;
  for_each_line(kallsyms, [&](std::string_view line) {
    const auto f = split_fields(line);
    if (f.empty()) return;
    uint64_t addr = 0;
    if (f.size() < 3 || f.size() > 4 || f[1].size() != 1 || !parse_u64(f[0], 16, &addr) ||
        (f.size() == 4 && (f[3].size() < 3 || f[3].front() != '[' || f[3].back() != ']'))) {
      ++ks.skipped_;
      return;
    }
    any_line = true;
    any_nonzero |= addr != 0;
    const char type = f[1][0];
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') return;  // not a function
    if (addr == 0) return;
    const uint32_t module = f.size() == 4 ? image_for(f[3]) : 0;
    parsed.push_back({addr, binding_rank(type), static_cast<uint32_t>(ks.names_.size()), module});
    ks.names_.emplace_back(f[2]);
  });
  ks.hidden_ = any_line && !any_nonzero;

  std::sort(parsed.begin(), parsed.end(), [&](const Parsed& a, const Parsed& b) {
    if (a.addr != b.addr) return a.addr < b.addr;  // the common case: no alias to rank
    const std::string& an = ks.names_[a.name];
    const std::string& bn = ks.names_[b.name];
    return std::forward_as_tuple(a.addr, a.rank, leading_underscores(an), an) <
           std::forward_as_tuple(b.addr, b.rank, leading_underscores(bn), bn);
  });
  for (const auto& p : parsed) {
    if (!ks.syms_.empty() && ks.syms_.back().addr == p.addr) continue;  // alias
    ks.syms_.push_back({p.addr, p.name, p.module});
    if (p.module == 0) {
      if (ks.kernel_first_ > ks.kernel_last_) ks.kernel_first_ = p.addr;
      ks.kernel_last_ = p.addr;
    }
  }

  // /proc/modules: "name size refcount deps state 0xaddr [taints]".
  for_each_line(modules, [&](std::string_view line) {
    const auto f = split_fields(line);
    if (f.empty()) return;
    uint64_t size = 0, addr = 0;
    if (f.size() < 6 || !parse_u64(f[1], 10, &size) || !parse_u64(f[5], 16, &addr)) {
      ++ks.skipped_;
      return;
    }
    if (addr == 0 || size == 0 || addr + size < addr) return;  // hidden or absurd
    ks.ranges_.push_back({addr, addr + size, image_for("[" + std::string(f[0]) + "]")});
  });
  std::sort(ks.ranges_.begin(), ks.ranges_.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  ks.has_range_.assign(ks.images_.size(), false);
  for (const Range& r : ks.ranges_) ks.has_range_[r.module] = true;
  return ks;
}

KernelSymbols::Hit KernelSymbols::lookup(uint64_t addr) const {
  const Hit unknown{kKernel, kUnknown};
  if (hidden_) return unknown;
  // Last symbol at or below addr.
  auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                             [](uint64_t a, const Sym& s) { return a < s.addr; });
  auto range = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                                [](uint64_t a, const Range& r) { return a < r.start; });
  if (range != ranges_.begin() && addr < std::prev(range)->end) {
    const Range& r = *std::prev(range);
    // Inside a module: only that module's symbols count.
    while (it != syms_.begin()) {
      const Sym& s = *std::prev(it);
      if (s.addr < r.start) break;
      if (s.module == r.module) return {images_[r.module], names_[s.name]};
      --it;
    }
    return {images_[r.module], kUnknown};
  }
  if (it == syms_.begin()) return unknown;
  const Sym& s = *std::prev(it);
  if (addr - s.addr > kMaxFunctionBytes) return unknown;
  if (s.module != 0) {
    // A module symbol whose module has a known range does not cover ips outside it.
    if (has_range_[s.module]) return unknown;
  }
  return {images_[s.module], names_[s.name]};
}

bool KernelSymbols::in_boot_static_text(uint64_t addr) const {
  if (hidden_) return true;
  if (addr >= kernel_first_ && addr <= kernel_last_) return true;
  auto range = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                                [](uint64_t a, const Range& r) { return a < r.start; });
  return range != ranges_.begin() && addr < std::prev(range)->end;
}

}  // namespace kprof
