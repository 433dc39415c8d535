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
// then fewer leading underscores (`do_foo` over `__do_foo`); then the
// greater name, so the choice does not depend on the order of lines. The
// greater name is what perf shows: it keeps the last alias kallsyms lists,
// and kallsyms lists one address's names in name order (`__x64_sys_getpid`
// after `__ia32_sys_getpid`, the x86-64 entry point), so kprof and perf
// reports of one recording name it alike.
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

// One kallsyms line: "ADDR TYPE NAME" or "ADDR TYPE NAME [MODULE]".
struct KallsymsLine {
  uint64_t addr = 0;
  char type = 0;
  std::string_view name, module;
};

constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

bool is_bracketed(std::string_view s) {
  return s.size() >= 3 && s.front() == '[' && s.back() == ']';
}

// The layout the kernel prints on 64-bit ("%px %c %s", then "\t[%s]" for a
// module), taken without splitting the line. Returns false for anything
// else, which split_line() then judges; for the lines it takes, the result
// is the same as split_line()'s.
// hex_digit's answers as a table (0xff: not a hex digit): the 16 digits of
// an address are looked up independently, not one branchy call after another.
constexpr std::array<uint8_t, 256> kHexDigit = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const int d = hex_digit(static_cast<char>(c));
    t[static_cast<size_t>(c)] = d < 0 ? 0xff : static_cast<uint8_t>(d);
  }
  return t;
}();

bool parse_usual_line(std::string_view line, KallsymsLine* out) {
  if (line.size() < 20 || line[16] != ' ' || line[18] != ' ' || is_space(line[17])) return false;
  uint64_t addr = 0;
  uint8_t bad = 0;
  for (size_t i = 0; i < 16; ++i) {
    const uint8_t d = kHexDigit[static_cast<uint8_t>(line[i])];
    bad |= d & 0xf0;
    addr = addr << 4 | (d & 0xf);
  }
  if (bad != 0) return false;
  // The name runs to a tab (then the module) or the end; one pass finds the
  // tab and any space (not this layout). Every byte of a name is above ' '.
  const std::string_view rest = line.substr(19);
  size_t tab = std::string_view::npos;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (static_cast<uint8_t>(rest[i]) > ' ') continue;
    if (rest[i] != '\t' || tab != std::string_view::npos) {
      if (is_space(rest[i]) || rest[i] == '\t') return false;
      continue;  // another control byte: kept in the name, as before
    }
    tab = i;
  }
  const std::string_view name = rest.substr(0, tab);
  std::string_view module;
  if (tab != std::string_view::npos) {
    module = rest.substr(tab + 1);
    if (!is_bracketed(module)) return false;
  }
  if (name.empty()) return false;
  *out = {addr, line[17], name, module};
  return true;
}

// Any whitespace-separated line. Returns false for a malformed one (counted
// as skipped); *blank tells an empty line, which is not counted.
bool split_line(std::string_view line, KallsymsLine* out, bool* blank) {
  const auto f = split_fields(line);
  *blank = f.empty();
  if (f.size() < 3 || f.size() > 4 || f[1].size() != 1 || !parse_u64(f[0], 16, &out->addr) ||
      (f.size() == 4 && !is_bracketed(f[3]))) {
    return false;
  }
  out->type = f[1][0];
  out->name = f[2];
  out->module = f.size() == 4 ? f[3] : std::string_view();
  return true;
}

}  // namespace

namespace kallsyms {

bool parse_line(std::string_view text, Line* out, bool* blank) {
  KallsymsLine l;
  bool empty = false;
  if (!parse_usual_line(text, &l) && !split_line(text, &l, &empty)) {
    if (blank) *blank = empty;
    return false;
  }
  if (blank) *blank = false;
  *out = {l.addr, l.type, l.name, l.module};
  return true;
}

bool is_function(char type) {
  return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

bool parse_module_line(std::string_view text, ModuleLine* out, bool* blank) {
  const auto f = split_fields(text);
  if (blank) *blank = f.empty();
  if (f.size() < 6 || !parse_u64(f[1], 10, &out->size) || !parse_u64(f[5], 16, &out->addr)) {
    return false;
  }
  out->name = f[0];
  return true;
}

bool better_alias(char a_type, std::string_view a_name, char b_type, std::string_view b_name) {
  return std::forward_as_tuple(binding_rank(a_type), leading_underscores(a_name), b_name) <
         std::forward_as_tuple(binding_rank(b_type), leading_underscores(b_name), a_name);
}

}  // namespace kallsyms

std::string_view KernelSymbols::name_at(uint32_t offset) const {
  return std::string_view(names_.c_str() + offset);
}

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
    uint32_t name;  // offset into names_
    uint32_t module;
  };
  std::vector<Parsed> parsed;
  // Names NUL-separated in one buffer: no allocation per symbol. The reserve
  // is an upper bound; pages it does not fill are never touched.
  ks.names_.reserve(kallsyms.size());
  bool any_line = false, any_nonzero = false;
  uint32_t last_module = 0;
  std::string_view last_module_name;
  for_each_line(kallsyms, [&](std::string_view text) {
    KallsymsLine line;
    bool blank = false;
    if (!parse_usual_line(text, &line) && !split_line(text, &line, &blank)) {
      if (!blank) ++ks.skipped_;
      return;
    }
    any_line = true;
    any_nonzero |= line.addr != 0;
    if (!kallsyms::is_function(line.type)) return;
    if (line.addr == 0) return;
    uint32_t module = 0;
    if (!line.module.empty()) {
      // A module's symbols come together: look its index up once per run.
      if (line.module != last_module_name) {
        last_module = image_for(line.module);
        last_module_name = line.module;
      }
      module = last_module;
    }
    const size_t offset = ks.names_.size();
    if (offset > UINT32_MAX - line.name.size() - 1) return;  // over 4 GiB of names
    parsed.push_back({line.addr, binding_rank(line.type), static_cast<uint32_t>(offset), module});
    ks.names_.append(line.name);
    ks.names_.push_back('\0');
  });
  ks.hidden_ = any_line && !any_nonzero;

  // kallsyms lists the kernel in address order (then each module): sort only
  // when needed. Aliases at one address are ranked below, so the order among
  // them does not matter.
  auto by_addr = [](const Parsed& a, const Parsed& b) { return a.addr < b.addr; };
  if (!std::is_sorted(parsed.begin(), parsed.end(), by_addr)) {
    std::sort(parsed.begin(), parsed.end(), by_addr);
  }
  auto better_alias = [&](const Parsed& a, const Parsed& b) {
    const std::string_view an = ks.name_at(a.name), bn = ks.name_at(b.name);
    // The greater name last: see the comment on binding_rank.
    return std::forward_as_tuple(a.rank, leading_underscores(an), bn) <
           std::forward_as_tuple(b.rank, leading_underscores(bn), an);
  };
  ks.syms_.reserve(parsed.size());
  for (auto run = parsed.begin(); run != parsed.end();) {
    auto end =
        std::find_if(run, parsed.end(), [&](const Parsed& p) { return p.addr != run->addr; });
    const Parsed& p = end - run == 1 ? *run : *std::min_element(run, end, better_alias);
    ks.syms_.push_back({p.addr, p.name, p.module});
    if (p.module == 0) {
      if (ks.kernel_first_ > ks.kernel_last_) ks.kernel_first_ = p.addr;
      ks.kernel_last_ = p.addr;
    }
    run = end;
  }

  // /proc/modules: "name size refcount deps state 0xaddr [taints]".
  for_each_line(modules, [&](std::string_view line) {
    kallsyms::ModuleLine m;
    bool blank = false;
    if (!kallsyms::parse_module_line(line, &m, &blank)) {
      if (!blank) ++ks.skipped_;
      return;
    }
    const uint64_t addr = m.addr, size = m.size;
    if (addr == 0 || size == 0 || addr + size < addr) return;  // hidden or absurd
    ks.ranges_.push_back({addr, addr + size, image_for("[" + std::string(m.name) + "]")});
  });
  std::sort(ks.ranges_.begin(), ks.ranges_.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  ks.has_range_.assign(ks.images_.size(), false);
  for (const Range& r : ks.ranges_) ks.has_range_[r.module] = true;
  return ks;
}

const KernelSymbols::Range* KernelSymbols::range_of(uint64_t addr) const {
  auto range = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                                [](uint64_t a, const Range& r) { return a < r.start; });
  return range != ranges_.begin() && addr < std::prev(range)->end ? &*std::prev(range) : nullptr;
}

KernelSymbols::Found KernelSymbols::find(uint64_t addr) const {
  Found f;
  if (hidden_) return f;
  // Last symbol at or below addr.
  auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                             [](uint64_t a, const Sym& s) { return a < s.addr; });
  f.range = range_of(addr);
  if (f.range) {
    // Inside a module: only that module's symbols count.
    for (; it != syms_.begin() && std::prev(it)->addr >= f.range->start; --it) {
      if (std::prev(it)->module == f.range->module) {
        f.sym = &*std::prev(it);
        break;
      }
    }
    return f;
  }
  if (it == syms_.begin()) return f;
  const Sym& s = *std::prev(it);
  if (addr - s.addr > kMaxFunctionBytes) return f;
  // A module symbol whose module has a known range does not cover ips outside it.
  if (s.module != 0 && has_range_[s.module]) return f;
  f.sym = &s;
  return f;
}

KernelSymbols::Hit KernelSymbols::lookup(uint64_t addr) const {
  const Found f = find(addr);
  if (f.sym) return {images_[f.sym->module], name_at(f.sym->name)};
  return {f.range ? std::string_view(images_[f.range->module]) : kKernel, kUnknown};
}

std::optional<KernelSymbols::Extent> KernelSymbols::extent(uint64_t addr) const {
  const Found f = find(addr);
  if (!f.sym) return std::nullopt;
  const uint64_t start = f.sym->addr;
  uint64_t end = start + kMaxFunctionBytes;
  // To the next symbol (of any module), or the module's end.
  const size_t next = static_cast<size_t>(f.sym - syms_.data()) + 1;
  if (next < syms_.size()) end = std::min(end, syms_[next].addr);
  if (f.range) end = std::min(end, f.range->end);
  if (end <= addr) end = addr + 1;
  return Extent{start, end};
}

bool KernelSymbols::in_boot_static_text(uint64_t addr) const {
  if (hidden_) return true;
  if (addr >= kernel_first_ && addr <= kernel_last_) return true;
  return range_of(addr) != nullptr;
}

}  // namespace kprof
