#include "core/kernel_symbols.h"

#include <gtest/gtest.h>

#include <string>

namespace kprof {
namespace {

constexpr std::string_view kKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81001000 t __do_foo\n"
    "ffffffff81001000 T do_foo\n"
    "ffffffff81001000 W do_foo_alias\n"
    "ffffffff81001800 T __ia32_sys_getpid\n"
    "ffffffff81001800 T __x64_sys_getpid\n"
    "ffffffff81002000 T do_bar\n"
    "ffffffff81003000 D some_data\n"
    "ffffffff81004000 T last_text\n"
    "ffffffffc0a01000 t ext4_fn\t[ext4]\n"
    "ffffffffc0a02000 T ext4_other\t[ext4]\n"
    "ffffffffc0b00100 t xfs_fn\t[xfs]\n";

constexpr std::string_view kModules =
    "ext4 65536 3 - Live 0xffffffffc0a00000\n"
    "xfs 4096 0 - Live 0xffffffffc0b00000 (OE)\n";

struct LookupCase {
  uint64_t addr;
  std::string_view image;
  std::string_view function;
};

class KallsymsLookup : public ::testing::TestWithParam<LookupCase> {};

TEST_P(KallsymsLookup, FindsTheCoveringSymbol) {
  const auto ks = KernelSymbols::parse(kKallsyms, kModules);
  const auto& c = GetParam();
  const auto hit = ks.lookup(c.addr);
  EXPECT_EQ(hit.image, c.image) << std::hex << c.addr;
  EXPECT_EQ(hit.function, c.function) << std::hex << c.addr;
}

INSTANTIATE_TEST_SUITE_P(
    Boundaries, KallsymsLookup,
    ::testing::Values(
        LookupCase{0xffffffff80ffffffULL, "[kernel]", "[unknown]"},   // before the first symbol
        LookupCase{0xffffffff81000000ULL, "[kernel]", "startup_64"},  // alias: no underscore
        LookupCase{0xffffffff81000fffULL, "[kernel]", "startup_64"},
        LookupCase{0xffffffff81001000ULL, "[kernel]", "do_foo"},  // global over weak/local
        LookupCase{0xffffffff810017ffULL, "[kernel]", "do_foo"},
        LookupCase{0xffffffff81001800ULL, "[kernel]",
                   "__x64_sys_getpid"},  // the greater name, as perf
        LookupCase{0xffffffff81001fffULL, "[kernel]", "__x64_sys_getpid"},
        LookupCase{0xffffffff81002000ULL, "[kernel]", "do_bar"},
        LookupCase{0xffffffff81003500ULL, "[kernel]", "do_bar"},  // data symbols are not kept
        LookupCase{0xffffffff81004010ULL, "[kernel]", "last_text"},
        LookupCase{0xffffffff81004000ULL + (2u << 20), "[kernel]", "[unknown]"},  // far past
        LookupCase{0xffffffffc0a00000ULL, "[ext4]", "[unknown]"},  // module before first symbol
        LookupCase{0xffffffffc0a01000ULL, "[ext4]", "ext4_fn"},
        LookupCase{0xffffffffc0a01fffULL, "[ext4]", "ext4_fn"},
        LookupCase{0xffffffffc0a02000ULL, "[ext4]", "ext4_other"},
        LookupCase{0xffffffffc0a0ffffULL, "[ext4]", "ext4_other"},   // last byte of ext4
        LookupCase{0xffffffffc0a10000ULL, "[kernel]", "[unknown]"},  // just past ext4
        LookupCase{0xffffffffc0b00050ULL, "[xfs]", "[unknown]"},
        LookupCase{0xffffffffc0b00100ULL, "[xfs]", "xfs_fn"},
        LookupCase{0xffffffffc0b01000ULL, "[kernel]", "[unknown]"},  // past xfs (4096 bytes)
        LookupCase{0, "[kernel]", "[unknown]"}));

TEST(Kallsyms, CountsAndSkipsOddLines) {
  const auto ks = KernelSymbols::parse(
      "ffffffff81000000 T a\n"
      "\n"
      "garbage\n"
      "zzzz T bad_hex\n"
      "ffffffff81000100 TT two_letter_type\n"
      "ffffffff81000200 t b [mod] extra\n"
      "ffffffff81000300 t c notbracketed\n"
      "(null)\n"
      "ffffffff81000400 T d\r\n",
      "");
  EXPECT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks.skipped_lines(), 6u);
  EXPECT_EQ(ks.lookup(0xffffffff81000450ULL).function, "d");
  EXPECT_EQ(ks.lookup(0xffffffff81000250ULL).function, "a");
  EXPECT_FALSE(ks.addresses_hidden());
}

TEST(Kallsyms, AllZeroAddressesMeanHidden) {
  const auto ks = KernelSymbols::parse(
      "0000000000000000 T _stext\n"
      "0000000000000000 t foo\t[ext4]\n"
      "0000000000000000 A (null)\n",
      "ext4 65536 3 - Live 0x0000000000000000\n");
  EXPECT_TRUE(ks.addresses_hidden());
  const auto hit = ks.lookup(0xffffffff81000000ULL);
  EXPECT_EQ(hit.image, "[kernel]");
  EXPECT_EQ(hit.function, "[unknown]");
}

TEST(Kallsyms, EmptyInputs) {
  const auto ks = KernelSymbols::parse("", "");
  EXPECT_FALSE(ks.addresses_hidden());
  EXPECT_EQ(ks.size(), 0u);
  EXPECT_EQ(ks.lookup(123).function, "[unknown]");
}

TEST(Kallsyms, DuplicatesAreStableRegardlessOfLineOrder) {
  // Equal binding and underscores: the greater name, as perf (see binding_rank).
  const auto a = KernelSymbols::parse(
      "ffffffff81000000 t zeta\nffffffff81000000 t alpha\nffffffff81000000 t __beta\n", "");
  const auto b = KernelSymbols::parse(
      "ffffffff81000000 t __beta\nffffffff81000000 t alpha\nffffffff81000000 t zeta\n", "");
  EXPECT_EQ(a.lookup(0xffffffff81000010ULL).function, "zeta");
  EXPECT_EQ(b.lookup(0xffffffff81000010ULL).function, "zeta");
  EXPECT_EQ(a.size(), 1u);
}

TEST(Kallsyms, ModuleSymbolsWithoutModulesFile) {
  // /proc/modules missing (as on this machine): module symbols still name ips.
  const auto ks =
      KernelSymbols::parse("ffffffff81000000 T _stext\nffffffffc0a01000 t ext4_fn\t[ext4]\n", "");
  const auto hit = ks.lookup(0xffffffffc0a01010ULL);
  EXPECT_EQ(hit.image, "[ext4]");
  EXPECT_EQ(hit.function, "ext4_fn");
}

TEST(Kallsyms, UnsortedInputIsSorted) {
  const auto ks = KernelSymbols::parse("ffffffff81002000 T second\nffffffff81001000 T first\n", "");
  EXPECT_EQ(ks.lookup(0xffffffff81001500ULL).function, "first");
  EXPECT_EQ(ks.lookup(0xffffffff81002500ULL).function, "second");
}

TEST(Kallsyms, OddModulesLinesAreSkipped) {
  const auto ks = KernelSymbols::parse("ffffffff81000000 T a\n",
                                       "short line\n"
                                       "ext4 notanumber 3 - Live 0xffffffffc0a00000\n"
                                       "ok 4096 0 - Live 0xffffffffc0c00000\n");
  EXPECT_EQ(ks.skipped_lines(), 2u);
  const auto hit = ks.lookup(0xffffffffc0c00010ULL);
  EXPECT_EQ(hit.image, "[ok]");
  EXPECT_EQ(hit.function, "[unknown]");
}

TEST(Kallsyms, BootStaticTextIsTheImageSpanAndModuleRanges) {
  const auto ks = KernelSymbols::parse(
      std::string(kKallsyms) + "ffffffffc0c00000 t bpf_prog_1234_filter\t[bpf]\n", kModules);
  EXPECT_TRUE(ks.in_boot_static_text(0xffffffff81000000ULL));  // first kernel symbol
  EXPECT_TRUE(ks.in_boot_static_text(0xffffffff81002345ULL));
  EXPECT_TRUE(ks.in_boot_static_text(0xffffffff81004000ULL));   // last kernel symbol
  EXPECT_FALSE(ks.in_boot_static_text(0xffffffff81004001ULL));  // past it: may be newer text
  EXPECT_FALSE(ks.in_boot_static_text(0xffffffff80ffffffULL));
  EXPECT_TRUE(ks.in_boot_static_text(0xffffffffc0a0ffffULL));   // inside ext4's range
  EXPECT_FALSE(ks.in_boot_static_text(0xffffffffc0a10000ULL));  // just past it
  EXPECT_TRUE(ks.in_boot_static_text(0xffffffffc0b00000ULL));   // xfs
  // A BPF program is named, but comes and goes within a boot.
  EXPECT_EQ(ks.lookup(0xffffffffc0c00010ULL).function, "bpf_prog_1234_filter");
  EXPECT_FALSE(ks.in_boot_static_text(0xffffffffc0c00010ULL));
}

TEST(Kallsyms, BootStaticTextWhenAddressesAreHiddenOrAbsent) {
  const auto hidden = KernelSymbols::parse("0000000000000000 T _stext\n", "");
  EXPECT_TRUE(hidden.in_boot_static_text(0xffffffff81000000ULL));  // nothing newer would help
  const auto empty = KernelSymbols::parse("", "");
  EXPECT_FALSE(empty.in_boot_static_text(0xffffffff81000000ULL));
}

TEST(Kallsyms, ExtentRunsToTheNextSymbolOrTheModulesEnd) {
  const auto ks = KernelSymbols::parse(
      "ffffffff81001000 T first\nffffffff81001040 T second\nffffffff81002000 T last\n"
      "ffffffffc0a01000 t ext4_fn\t[ext4]\n",
      "ext4 8192 0 - Live 0xffffffffc0a00000\n");
  auto x = ks.extent(0xffffffff81001010ULL);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->start, 0xffffffff81001000ULL);
  EXPECT_EQ(x->end, 0xffffffff81001040ULL);
  x = ks.extent(0xffffffff81002010ULL);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->end - x->start, 1u << 20) << "the last symbol: at most 1 MiB";
  x = ks.extent(0xffffffffc0a01010ULL);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->start, 0xffffffffc0a01000ULL);
  EXPECT_EQ(x->end, 0xffffffffc0a02000ULL) << "the module's range ends after its 8 KiB";
  EXPECT_FALSE(ks.extent(0xffffffff80000000ULL)) << "before any symbol: [unknown]";
}

}  // namespace
}  // namespace kprof
