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

namespace kprof {

// The name with its clone suffixes removed ("kfree.cold" -> "kfree").
std::string canonical_name(std::string_view raw);

}  // namespace kprof
