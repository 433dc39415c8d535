#include "core/kallsyms_subset.h"

#include "core/kernel_symbols.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <tuple>

namespace kprof {
namespace {

// A kallsyms line as KernelSymbols reads it, with its text kept.
struct Line {
  std::string_view text;
  uint64_t addr = 0;
  char type = 0;
  std::string_view name, module;  // module "[name]" or ""
};

bool parse_line(std::string_view text, Line* out) {
  kallsyms::Line k;
  if (!kallsyms::parse_line(text, &k)) return false;
  *out = {text, k.addr, k.type, k.name, k.module};
  return true;
}

bool is_function(char type) {
  return kallsyms::is_function(type);
}

bool better_alias(const Line& a, const Line& b) {
  return kallsyms::better_alias(a.type, a.name, b.type, b.name);
}

using FuncLine = KallsymsIndex::FuncLine;
using Sym = KallsymsIndex::Sym;
using Range = KallsymsIndex::Range;

// A function line's fields (it parsed once already).
Line fields_of(std::string_view kallsyms, const FuncLine& f) {
  Line l;
  parse_line(kallsyms.substr(f.off, f.len), &l);
  return l;
}

// /proc/modules: "name size refcount deps state 0xaddr [taints]".
std::vector<Range> module_ranges(std::string_view modules) {
  std::vector<Range> out;
  while (!modules.empty()) {
    const size_t nl = modules.find('\n');
    const std::string_view line = modules.substr(0, nl);
    modules.remove_prefix(nl == std::string_view::npos ? modules.size() : nl + 1);
    kallsyms::ModuleLine m;
    if (!kallsyms::parse_module_line(line, &m)) continue;
    const uint64_t addr = m.addr, size = m.size;
    if (addr == 0 || size == 0 || addr + size < addr) continue;
    std::string name(1, '[');
    name.append(m.name).push_back(']');
    out.push_back({addr, addr + size, std::move(name)});
  }
  std::sort(out.begin(), out.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  return out;
}

// The index in `syms` of the symbol KernelSymbols::lookup(ip) names ip
// with, or npos (mirrors its search: inside a module's range only that
// module's symbols count).
size_t covering(std::string_view kallsyms, const std::vector<FuncLine>& funcs,
                const std::vector<Sym>& syms, const std::vector<Range>& ranges, uint64_t ip) {
  constexpr size_t npos = SIZE_MAX;
  size_t it =
      static_cast<size_t>(std::upper_bound(syms.begin(), syms.end(), ip,
                                           [](uint64_t a, const Sym& s) { return a < s.addr; }) -
                          syms.begin());
  auto range = std::upper_bound(ranges.begin(), ranges.end(), ip,
                                [](uint64_t a, const Range& r) { return a < r.start; });
  if (range != ranges.begin() && ip < std::prev(range)->end) {
    const Range& r = *std::prev(range);
    while (it > 0) {
      const Sym& s = syms[it - 1];
      if (s.addr < r.start) break;
      if (fields_of(kallsyms, funcs[s.best]).module == r.module) return it - 1;
      --it;
    }
    return npos;
  }
  return it > 0 ? it - 1 : npos;
}

constexpr std::array<std::string_view, 6> kAnchors = {"_text",      "_stext",     "_etext",
                                                      "_sinittext", "_einittext", "_end"};

}  // namespace

std::string kallsyms_digest(std::string_view text) {
  // 8 bytes at a time, each mixed in with a multiply and a rotate; the tail
  // and the length last. Not cryptographic: it tells snapshots apart.
  uint64_t h = 0x9e3779b97f4a7c15ull;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, text.data() + i, 8);
    h = std::rotl((h ^ w) * 0xff51afd7ed558ccdull, 29);
  }
  uint64_t tail = 0;
  if (i < text.size()) std::memcpy(&tail, text.data() + i, text.size() - i);
  h = std::rotl((h ^ tail) * 0xc4ceb9fe1a85ec53ull, 29) ^ text.size();
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string(hex) + "-" + std::to_string(text.size());
}

std::vector<uint64_t> kernel_ips(const AddressCounts& counts) {
  auto kernel = [](Mode m) {
    return m == Mode::Kernel || m == Mode::Hypervisor || m == Mode::GuestKernel;
  };
  std::vector<uint64_t> ips;
  for (const auto& [key, c] : counts.counts) {
    if (kernel(key.mode)) ips.push_back(key.ip);
  }
  for (const AddressCounts::Key& key : counts.frames) {
    if (kernel(key.mode)) ips.push_back(key.ip);
  }
  std::sort(ips.begin(), ips.end());
  ips.erase(std::unique(ips.begin(), ips.end()), ips.end());
  return ips;
}

KallsymsIndex::KallsymsIndex(std::string_view kallsyms, std::string_view modules)
    : kallsyms_(kallsyms) {
  // The function lines (what KernelSymbols keeps) and the anchors; any
  // other line only tells whether addresses are hidden.
  std::vector<FuncLine>& funcs = funcs_;
  funcs.reserve(kallsyms.size() / 32);  // lines are ~40 bytes; untouched room costs nothing
  for (std::string_view rest = kallsyms; !rest.empty();) {
    const size_t nl = rest.find('\n');
    Line line;
    const size_t off = static_cast<size_t>(rest.data() - kallsyms.data());
    if (parse_line(rest.substr(0, nl), &line)) {
      if (first_line_.empty()) first_line_ = line.text;
      any_nonzero_ |= line.addr != 0;
      if (is_function(line.type) && line.addr != 0 && off <= UINT32_MAX &&
          line.text.size() <= UINT32_MAX) {
        funcs.push_back(
            {line.addr, static_cast<uint32_t>(off), static_cast<uint32_t>(line.text.size())});
      }
      if (line.module.empty() && line.name.size() <= 10 && line.name.starts_with('_') &&
          std::find(kAnchors.begin(), kAnchors.end(), line.name) != kAnchors.end()) {
        anchors_.push_back(line.text);
      }
    }
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  if (first_line_.empty() || !any_nonzero_) return;

  // One symbol per address: the alias KernelSymbols keeps. kallsyms lists
  // the kernel in address order, then each module: sort only when needed.
  auto by_addr = [](const FuncLine& a, const FuncLine& b) { return a.addr < b.addr; };
  if (!std::is_sorted(funcs.begin(), funcs.end(), by_addr)) {
    std::stable_sort(funcs.begin(), funcs.end(), by_addr);
  }
  syms_.reserve(funcs.size());
  first_of_.reserve(funcs.size() + 1);
  for (size_t i = 0; i < funcs.size();) {
    size_t j = i + 1;
    size_t best = i;
    if (j < funcs.size() && funcs[j].addr == funcs[i].addr) {  // aliases: parse them again
      Line best_line = fields_of(kallsyms, funcs[i]);
      for (; j < funcs.size() && funcs[j].addr == funcs[i].addr; ++j) {
        Line l = fields_of(kallsyms, funcs[j]);
        if (better_alias(l, best_line)) {
          best = j;
          best_line = l;
        }
      }
    }
    syms_.push_back({funcs[i].addr, static_cast<uint32_t>(best)});
    first_of_.push_back(static_cast<uint32_t>(i));
    i = j;
  }
  first_of_.push_back(static_cast<uint32_t>(funcs.size()));
  ranges_ = module_ranges(modules);
  // The kernel image's function span (in_boot_static_text).
  auto kernel = [&](const Sym& sym) { return fields_of(kallsyms, funcs[sym.best]).module.empty(); };
  if (auto first = std::find_if(syms_.begin(), syms_.end(), kernel); first != syms_.end()) {
    kernel_span_ = {
        static_cast<size_t>(first - syms_.begin()),
        static_cast<size_t>(syms_.rend() - std::find_if(syms_.rbegin(), syms_.rend(), kernel)) - 1};
  }
}

std::string KallsymsIndex::subset(std::span<const uint64_t> ips) const {
  if (first_line_.empty()) return "";
  if (!any_nonzero_) return std::string(first_line_) + "\n";  // hidden: stays hidden
  std::vector<std::string_view> out_lines = anchors_;         // views into the kallsyms
  std::vector<size_t> keep;                                   // indexes into syms_
  for (uint64_t ip : ips) {
    const size_t i = covering(kallsyms_, funcs_, syms_, ranges_, ip);
    if (i == SIZE_MAX) continue;
    keep.push_back(i);
    if (i + 1 < syms_.size()) keep.push_back(i + 1);
  }
  if (kernel_span_) {
    keep.push_back(kernel_span_->first);
    keep.push_back(kernel_span_->second);
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  for (size_t k : keep) {
    for (size_t i = first_of_[k]; i < first_of_[k + 1]; ++i) {
      out_lines.push_back(kallsyms_.substr(funcs_[i].off, funcs_[i].len));
    }
  }

  // In the order of the text, each once (an anchor can be a kept function).
  std::sort(out_lines.begin(), out_lines.end(),
            [](std::string_view a, std::string_view b) { return a.data() < b.data(); });
  out_lines.erase(
      std::unique(out_lines.begin(), out_lines.end(),
                  [](std::string_view a, std::string_view b) { return a.data() == b.data(); }),
      out_lines.end());
  std::string out;
  for (std::string_view l : out_lines) {
    out += l;
    out += '\n';
  }
  return out;
}

std::string kallsyms_subset(std::string_view kallsyms, std::string_view modules,
                            std::span<const uint64_t> ips) {
  return KallsymsIndex(kallsyms, modules).subset(ips);
}

}  // namespace kprof
