// Fuzzes the kallsyms and modules parsers and lookup. Input: kallsyms text,
// then a NUL byte, then modules text, then (after a second NUL) 8-byte
// little-endian addresses to look up.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/kernel_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t a = in.find('\0');
  const std::string_view kallsyms = in.substr(0, a);
  std::string_view modules, addrs;
  if (a != std::string_view::npos) {
    const std::string_view rest = in.substr(a + 1);
    const size_t b = rest.find('\0');
    modules = rest.substr(0, b);
    if (b != std::string_view::npos) addrs = rest.substr(b + 1);
  }
  const auto ks = kprof::KernelSymbols::parse(kallsyms, modules);
  for (size_t i = 0; i + 8 <= addrs.size(); i += 8) {
    uint64_t addr;
    std::memcpy(&addr, addrs.data() + i, 8);
    const auto hit = ks.lookup(addr);
    if (hit.image.empty() || hit.function.empty()) __builtin_trap();
    (void)ks.in_boot_static_text(addr);
    (void)ks.lookup(addr + 1);
    (void)ks.lookup(addr - 1);
  }
  (void)ks.lookup(0);
  (void)ks.lookup(UINT64_MAX);
  return 0;
}
