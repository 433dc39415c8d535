// Fuzzes the kallsyms and modules parsers and lookup, and the subset a
// profile keeps (core/kallsyms_subset.h), which must name the addresses alike. Input: kallsyms
// text, then a NUL byte, then modules text, then (after a second NUL) 8-byte little-endian
// addresses to look up.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <vector>

#include "core/kallsyms_subset.h"
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
  std::vector<uint64_t> ips;
  for (size_t i = 0; i + 8 <= addrs.size(); i += 8) {
    uint64_t addr;
    std::memcpy(&addr, addrs.data() + i, 8);
    ips.push_back(addr);
    const auto hit = ks.lookup(addr);
    if (hit.image.empty() || hit.function.empty()) __builtin_trap();
    (void)ks.in_boot_static_text(addr);
    (void)ks.lookup(addr + 1);
    (void)ks.lookup(addr - 1);
  }
  (void)ks.lookup(0);
  (void)ks.lookup(UINT64_MAX);
  std::sort(ips.begin(), ips.end());
  ips.erase(std::unique(ips.begin(), ips.end()), ips.end());
  const std::string subset = kprof::kallsyms_subset(kallsyms, modules, ips);
  const auto kept = kprof::KernelSymbols::parse(subset, modules);
  for (uint64_t ip : ips) {
    if (kept.lookup(ip).function != ks.lookup(ip).function) __builtin_trap();
  }
  return 0;
}
