// Pure pieces of the symbolizer: file offset -> vaddr over odd PT_LOAD
// layouts, the symbol table's alias and bounds rules, demangling, CRC-32,
// and in-memory ELF images that are not ELF.
#include <gtest/gtest.h>

#include "core/bytes.h"

#include <optional>
#include <string>
#include <vector>

#include "symbolizer/elf_file.h"
#include "symbolizer/symbol_table.h"

namespace kprof::symbolizer {
namespace {

struct OffsetCase {
  const char* what;
  std::vector<LoadSegment> segments;
  uint64_t offset;
  std::optional<uint64_t> vaddr;
};

class FileOffsetToVaddr : public testing::TestWithParam<OffsetCase> {};

TEST_P(FileOffsetToVaddr, Maps) {
  const OffsetCase& c = GetParam();
  EXPECT_EQ(file_offset_to_vaddr(c.segments, c.offset), c.vaddr) << c.what;
}

// {offset, vaddr, filesz, exec}
const std::vector<LoadSegment> kPie = {{0x0, 0x0, 0x8a0, false},
                                       {0x1000, 0x1000, 0x2e5, true},
                                       {0x2000, 0x2000, 0x1f4, false},
                                       {0x2de8, 0x3de8, 0x248, false}};
const std::vector<LoadSegment> kNonPie = {{0x0, 0x400000, 0x5e8, false},
                                          {0x1000, 0x401000, 0x1a5, true}};

INSTANTIATE_TEST_SUITE_P(
    Layouts, FileOffsetToVaddr,
    testing::Values(
        OffsetCase{"PIE text", kPie, 0x1123, 0x1123},
        OffsetCase{"PIE first byte of text", kPie, 0x1000, 0x1000},
        OffsetCase{"PIE data with vaddr != offset", kPie, 0x2e00, 0x3e00},
        OffsetCase{"PIE past the last segment", kPie, 0x9000, std::nullopt},
        OffsetCase{"non-PIE text at 0x400000", kNonPie, 0x1010, 0x401010},
        OffsetCase{"one RWX segment (old -z noseparate-code)",
                   {{0, 0x10000, 0x80000, true}},
                   0x4567,
                   0x14567},
        OffsetCase{"unaligned p_offset, inside", {{0x1234, 0x5234, 0x100, true}}, 0x1300, 0x5300},
        OffsetCase{"page slack before an unaligned segment",
                   {{0x1234, 0x5234, 0x100, true}},
                   0x1200,
                   0x5200},
        OffsetCase{"more than a page before any segment",
                   {{0x3000, 0x3000, 0x100, true}},
                   0x1000,
                   std::nullopt},
        OffsetCase{"overlapping ranges prefer the executable one",
                   {{0x0, 0x0, 0x2000, false}, {0x1000, 0x9000, 0x1000, true}},
                   0x1800,
                   0x9800},
        OffsetCase{
            "zero-size segment never matches", {{0x1000, 0x1000, 0, true}}, 0x1000, std::nullopt},
        OffsetCase{"no segments", {}, 0x1000, std::nullopt}));

TEST(SymbolTable, SizedSymbolsAreBounded) {
  SymbolTable t;
  t.add(0x1000, 0x10, "a", Binding::Global);
  t.add(0x1100, 0x20, "b", Binding::Global);
  t.finish();
  EXPECT_EQ(t.lookup(0xfff), "");
  EXPECT_EQ(t.lookup(0x1000), "a");
  EXPECT_EQ(t.lookup(0x100f), "a");
  EXPECT_EQ(t.lookup(0x1010), "");  // gap between a and b
  EXPECT_EQ(t.lookup(0x111f), "b");
  EXPECT_EQ(t.lookup(0x1120), "");
}

TEST(SymbolTable, ZeroSizedSymbolReachesTheNextOne) {
  SymbolTable t;
  t.add(0x2000, 0, "asm_entry", Binding::Global);
  t.add(0x2400, 0x10, "next", Binding::Local);
  t.finish();
  EXPECT_EQ(t.lookup(0x23ff), "asm_entry");
  EXPECT_EQ(t.lookup(0x2400), "next");
}

TEST(SymbolTable, AliasesPreferGlobalThenFewerUnderscores) {
  SymbolTable t;
  t.add(0x3000, 0x40, "__libc_malloc_local", Binding::Local);
  t.add(0x3000, 0x40, "malloc_weak", Binding::Weak);
  t.add(0x3000, 0x40, "__libc_malloc", Binding::Global);
  t.add(0x3000, 0x40, "malloc", Binding::Global);
  t.add(0x4000, 0x10, "zz_weak", Binding::Weak);
  t.add(0x4000, 0x10, "aa_local", Binding::Local);
  t.finish();
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.lookup(0x3010), "malloc");
  EXPECT_EQ(t.lookup(0x4001), "zz_weak");
}

TEST(SymbolTable, AliasesKeepTheLargestSizeAndDropVersions) {
  SymbolTable t;
  t.add(0x5000, 0, "memcpy@@GLIBC_2.14", Binding::Global);
  t.add(0x5000, 0x80, "__memcpy_impl", Binding::Local);
  t.finish();
  EXPECT_EQ(t.lookup(0x507f), "memcpy");
  EXPECT_EQ(t.lookup(0x5080), "");  // the size from the local alias bounds it
}

TEST(SymbolTable, EmptyTableFindsNothing) {
  SymbolTable t;
  t.finish();
  EXPECT_EQ(t.lookup(0), "");
  EXPECT_EQ(t.lookup(UINT64_MAX), "");
}

TEST(Demangle, CxxAndPlainNames) {
  EXPECT_EQ(demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("_Znot_valid_mangling"), "_Znot_valid_mangling");
}

TEST(Crc32, MatchesTheIeeeCheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(kprof::crc32(bytes_of(s)), 0xCBF43926u);
  // Incremental updates compose.
  uint32_t c = kprof::crc32(bytes_of(s).first(4));
  c = kprof::crc32(bytes_of(s).subspan(4, 5), c);
  EXPECT_EQ(c, 0xCBF43926u);
}

TEST(ElfFile, NonElfMemoryIsRejected) {
  std::string error;
  const uint8_t junk[] = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_FALSE(ElfFile::from_memory(junk, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(ElfFile::from_memory({}, &error));
}

}  // namespace
}  // namespace kprof::symbolizer
