#include "report/canonical.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <numeric>
#include <set>

namespace kprof {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

struct Suffix {
  std::string_view tag;  // ".isra"
  bool number_required;  // ".llvm" without digits is not a clone suffix
};

// Suffixes GCC and clang append when they clone, split or privatize a function.
constexpr std::array<Suffix, 9> kSuffixes = {{
    {".isra", false},
    {".constprop", false},
    {".part", false},
    {".cold", false},
    {".llvm", true},
    {".lto_priv", false},
    {".localalias", false},
    {".clone", false},
    {".specialized", false},
}};

// Length of one clone suffix at the end of `name` (".isra.17", ".cold"), or 0.
size_t trailing_suffix(std::string_view name) {
  std::string_view stem = name;
  std::string_view number;
  // A trailing ".<digits>" belongs to the tag before it.
  if (size_t dot = name.rfind('.');
      dot != std::string_view::npos && all_digits(name.substr(dot + 1))) {
    number = name.substr(dot + 1);
    stem = name.substr(0, dot);
  }
  for (const Suffix& s : kSuffixes) {
    if (!stem.ends_with(s.tag)) continue;
    if (s.number_required && number.empty()) continue;
    if (stem.size() == s.tag.size()) return 0;  // nothing would be left
    return name.size() - (stem.size() - s.tag.size());
  }
  return 0;
}

// Demangled C++ clones carry " [clone .isra.0]" instead of a bare suffix.
size_t trailing_clone_annotation(std::string_view name) {
  constexpr std::string_view kOpen = " [clone .";
  if (!name.ends_with(']')) return 0;
  size_t open = name.rfind(kOpen);
  if (open == std::string_view::npos || open == 0) return 0;
  std::string_view inner = name.substr(open + 2, name.size() - open - 3);  // "clone .isra.0"
  if (inner.find(']') != std::string_view::npos) return 0;
  return name.size() - open;
}

}  // namespace

std::string canonical_name(std::string_view raw) {
  std::string_view name = raw;
  while (true) {
    size_t cut = trailing_clone_annotation(name);
    if (cut == 0) cut = trailing_suffix(name);
    if (cut == 0 || cut >= name.size()) break;
    name.remove_suffix(cut);
  }
  return std::string(name);
}

namespace {

// The name up to its parameter list: the '(' that balances the last ')'
// (after which only qualifiers such as " const" or " &&" may follow).
std::string_view without_parameters(std::string_view name) {
  const size_t close = name.rfind(')');
  if (close == std::string_view::npos) return name;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return i == 0 ? name : name.substr(0, i);
  }
  return name;
}

// The last component of a qualified name, outside template arguments:
// "work" of "ns::Box<long>::work".
std::string_view last_component(std::string_view name) {
  int depth = 0;
  for (size_t i = name.size(); i-- > 1;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (depth == 0 && name[i] == ':' && name[i - 1] == ':') return name.substr(i + 1);
  }
  return name;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

bool names_function(std::string_view function, std::string_view query) {
  if (query.empty()) return false;
  if (function == query) return true;
  const std::string canonical = canonical_name(function);
  if (canonical == query) return true;
  const std::string_view base = without_parameters(canonical);
  return base == query || last_component(base) == query;
}

std::vector<std::string> closest_names(const std::vector<std::string_view>& names,
                                       std::string_view query, size_t n) {
  std::set<std::pair<size_t, std::string>> ranked;  // (rank, name): containing first
  for (std::string_view name : names) {
    const std::string canonical = canonical_name(name);
    const std::string_view base = without_parameters(canonical);
    const size_t rank = base.find(query) != std::string_view::npos
                            ? 0
                            : 1 + edit_distance(last_component(base), query);
    ranked.emplace(rank, std::string(name));
  }
  std::vector<std::string> out;
  for (const auto& [rank, name] : ranked) {
    if (out.size() == n) break;
    if (rank > 1 + std::max<size_t>(2, query.size() / 3)) break;  // nothing close
    out.push_back(name);
  }
  return out;
}

}  // namespace kprof
