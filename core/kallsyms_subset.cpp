#include "core/kallsyms_subset.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <tuple>

namespace kprof {
namespace {

// The same reading of a line as KernelSymbols::parse (core/kernel_symbols.cpp):
// "ADDR TYPE NAME" or "ADDR TYPE NAME [MODULE]", fields split by blanks.
struct Line {
  std::string_view text;
  uint64_t addr = 0;
  char type = 0;
  std::string_view name, module;  // module "[name]" or ""
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

bool is_bracketed(std::string_view s) {
  return s.size() >= 3 && s.front() == '[' && s.back() == ']';
}

bool parse_hex(std::string_view s, uint64_t* out) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

// Up to 5 blank-separated fields (5 means "too many").
size_t split(std::string_view line, std::array<std::string_view, 5>& f) {
  size_t n = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !is_blank(line[j])) ++j;
    if (j > i) {
      if (n == f.size()) return n;
      f[n++] = line.substr(i, j - i);
    }
    i = j;
  }
  return n;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The layout the kernel prints on 64-bit ("%px %c %s", then "\t[%s]"),
// without splitting the line; anything else goes to parse_line's general
// path, which reads these lines alike.
bool parse_usual_line(std::string_view line, Line* out) {
  if (line.size() < 20 || line[16] != ' ' || line[18] != ' ' || is_blank(line[17])) return false;
  uint64_t addr = 0;
  for (size_t i = 0; i < 16; ++i) {
    const int d = hex_digit(line[i]);
    if (d < 0) return false;
    addr = addr << 4 | static_cast<uint64_t>(d);
  }
  const std::string_view rest = line.substr(19);
  const size_t tab = rest.find('\t');
  const std::string_view name = rest.substr(0, tab);
  std::string_view module;
  if (tab != std::string_view::npos) {
    module = rest.substr(tab + 1);
    if (!is_bracketed(module) || std::any_of(module.begin(), module.end(), is_blank)) return false;
  }
  if (name.empty() || std::any_of(name.begin(), name.end(), is_blank)) return false;
  *out = {line, addr, line[17], name, module};
  return true;
}

bool parse_line(std::string_view text, Line* out) {
  if (parse_usual_line(text, out)) return true;
  std::array<std::string_view, 5> f;
  const size_t n = split(text, f);
  if (n < 3 || n > 4 || f[1].size() != 1 || !parse_hex(f[0], &out->addr) ||
      (n == 4 && !is_bracketed(f[3]))) {
    return false;
  }
  out->text = text;
  out->type = f[1][0];
  out->name = f[2];
  out->module = n == 4 ? f[3] : std::string_view();
  return true;
}

bool is_function(char type) {
  return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

// KernelSymbols' preference among aliases at one address (see binding_rank
// in kernel_symbols.cpp): global, weak, local; fewer leading underscores;
// the greater name.
int binding_rank(char type) {
  switch (type) {
    case 'T':
      return 0;
    case 'W':
      return 1;
    case 't':
      return 2;
    default:
      return 3;
  }
}

size_t leading_underscores(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] == '_') ++n;
  return n;
}

bool better_alias(const Line& a, const Line& b) {
  return std::forward_as_tuple(binding_rank(a.type), leading_underscores(a.name), b.name) <
         std::forward_as_tuple(binding_rank(b.type), leading_underscores(b.name), a.name);
}

struct Sym {
  uint64_t addr;
  std::string_view module;  // of the alias KernelSymbols keeps
};

struct Range {
  uint64_t start, end;
  std::string module;  // "[name]"
};

// /proc/modules: "name size refcount deps state 0xaddr [taints]".
std::vector<Range> module_ranges(std::string_view modules) {
  std::vector<Range> out;
  while (!modules.empty()) {
    const size_t nl = modules.find('\n');
    const std::string_view line = modules.substr(0, nl);
    modules.remove_prefix(nl == std::string_view::npos ? modules.size() : nl + 1);
    std::array<std::string_view, 8> f;
    size_t n = 0, i = 0;
    while (i < line.size() && n < f.size()) {
      while (i < line.size() && is_blank(line[i])) ++i;
      size_t j = i;
      while (j < line.size() && !is_blank(line[j])) ++j;
      if (j > i) f[n++] = line.substr(i, j - i);
      i = j;
    }
    uint64_t size = 0, addr = 0;
    if (n < 6 || !parse_hex(f[5], &addr)) continue;
    auto [p, ec] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), size, 10);
    if (ec != std::errc() || p != f[1].data() + f[1].size()) continue;
    if (addr == 0 || size == 0 || addr + size < addr) continue;
    std::string name(1, '[');
    name.append(f[0]).push_back(']');
    out.push_back({addr, addr + size, std::move(name)});
  }
  std::sort(out.begin(), out.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  return out;
}

// The index in `syms` of the symbol KernelSymbols::lookup(ip) names ip
// with, or npos (mirrors its search: inside a module's range only that
// module's symbols count).
size_t covering(const std::vector<Sym>& syms, const std::vector<Range>& ranges, uint64_t ip) {
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
      if (s.module == r.module) return it - 1;
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

std::string kallsyms_subset(std::string_view kallsyms, std::string_view modules,
                            std::span<const uint64_t> ips) {
  // The function lines (what KernelSymbols keeps) and the anchors; any
  // other line only tells whether addresses are hidden.
  std::vector<Line> funcs;
  funcs.reserve(kallsyms.size() / 32);      // lines are ~40 bytes
  std::vector<std::string_view> out_lines;  // views into `kallsyms`
  std::string_view first_line;
  bool any_nonzero = false;
  for (std::string_view rest = kallsyms; !rest.empty();) {
    const size_t nl = rest.find('\n');
    Line line;
    if (parse_line(rest.substr(0, nl), &line)) {
      if (first_line.empty()) first_line = line.text;
      any_nonzero |= line.addr != 0;
      if (is_function(line.type) && line.addr != 0) funcs.push_back(line);
      if (line.module.empty() && line.name.size() <= 10 && line.name.starts_with('_') &&
          std::find(kAnchors.begin(), kAnchors.end(), line.name) != kAnchors.end()) {
        out_lines.push_back(line.text);
      }
    }
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  if (first_line.empty()) return "";
  if (!any_nonzero) return std::string(first_line) + "\n";  // hidden: stays hidden

  // One symbol per address: the alias KernelSymbols keeps. kallsyms lists
  // the kernel in address order, then each module: sort only when needed.
  auto by_addr = [](const Line& a, const Line& b) { return a.addr < b.addr; };
  if (!std::is_sorted(funcs.begin(), funcs.end(), by_addr)) {
    std::stable_sort(funcs.begin(), funcs.end(), by_addr);
  }
  std::vector<Sym> syms;
  std::vector<size_t> first_of;  // per sym: its first line in funcs
  syms.reserve(funcs.size());
  first_of.reserve(funcs.size() + 1);
  for (size_t i = 0; i < funcs.size();) {
    size_t j = i + 1;
    const Line* best = &funcs[i];
    for (; j < funcs.size() && funcs[j].addr == funcs[i].addr; ++j) {
      if (better_alias(funcs[j], *best)) best = &funcs[j];
    }
    syms.push_back({best->addr, best->module});
    first_of.push_back(i);
    i = j;
  }
  first_of.push_back(funcs.size());

  std::vector<size_t> keep;  // indexes into syms
  const std::vector<Range> ranges = module_ranges(modules);
  for (uint64_t ip : ips) {
    const size_t i = covering(syms, ranges, ip);
    if (i == SIZE_MAX) continue;
    keep.push_back(i);
    if (i + 1 < syms.size()) keep.push_back(i + 1);
  }
  // The kernel image's function span (in_boot_static_text).
  auto kernel = [](const Sym& s) { return s.module.empty(); };
  if (auto first = std::find_if(syms.begin(), syms.end(), kernel); first != syms.end()) {
    keep.push_back(static_cast<size_t>(first - syms.begin()));
    keep.push_back(
        static_cast<size_t>(syms.rend() - std::find_if(syms.rbegin(), syms.rend(), kernel)) - 1);
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  for (size_t k : keep) {
    for (size_t i = first_of[k]; i < first_of[k + 1]; ++i) out_lines.push_back(funcs[i].text);
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

}  // namespace kprof
