#include "report/canonical.h"

#include <array>
#include <cctype>

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

}  // namespace kprof
