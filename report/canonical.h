// Canonical function names for matching functions across kernel builds.
//
// Compilers clone and split functions under names that change from build to
// build: GCC's `.isra.N`, `.constprop.N`, `.part.N`, `.cold` / `.cold.N`,
// `.lto_priv.N`, `.localalias`, clang's `.llvm.<digits>`, in any combination
// (`count.isra.17.constprop.23`, `foo.part.0.cold`). The canonical name drops
// every such trailing suffix, so a function and its `.cold` part fold into one
// identity. Demangled C++ clones (`f(int) [clone .isra.0] [clone .cold]`) are
// handled the same way. Anything else is left alone: a dot that is not one of
// these suffixes is part of the name, and a name is never reduced to "".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// The name with its clone suffixes removed ("kfree.cold" -> "kfree").
std::string canonical_name(std::string_view raw);

// How a user names a function on the command line (--callers FUNC): its full
// name, its canonical name, the name without its parameter list
// ("ns::Box<long>::work" for "ns::Box<long>::work(long) const"), or that
// name's last component ("work").
bool names_function(std::string_view function, std::string_view query);

// Up to `n` of `names` closest to `query` (a name containing it first, then
// by edit distance of the short names), for "no function X; closest: ...".
std::vector<std::string> closest_names(const std::vector<std::string_view>& names,
                                       std::string_view query, size_t n = 3);

}  // namespace kprof
