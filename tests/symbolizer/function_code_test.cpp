// What kprof annotate reads of a function (symbolizer/function_code.h,
// ElfResolver::locate, SymbolTable::extent/find): this test binary's own
// code, compared with the bytes the process runs; Capstone on known bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "symbolizer/elf_file.h"
#include "symbolizer/elf_resolver.h"
#include "symbolizer/function_code.h"
#include "symbolizer/symbol_table.h"
#include "tests/symbolizer/self_mapping.h"

namespace {
volatile int annotate_sink;
}

// Defined on one line, so every instruction's source line is kFixtureLine.
// clang-format off
extern "C" __attribute__((noinline, used)) int kprof_annotate_fixture(int x) { annotate_sink = x; return annotate_sink * 3 + 1; }
constexpr int kFixtureLine = __LINE__ - 1;
// clang-format on

namespace kprof::symbolizer {
namespace {

uint64_t fixture_address() {
  return reinterpret_cast<uintptr_t>(&kprof_annotate_fixture);
}

TEST(FunctionCode, LocatesReadsAndListsThisBinarysOwnFunction) {
  const auto m = mapping_of(reinterpret_cast<const void*>(fixture_address()));
  ASSERT_TRUE(m);
  ElfResolver resolver;
  const auto at = resolver.locate(*m, fixture_address() + 1);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->function, "kprof_annotate_fixture");
  EXPECT_EQ(at->start + at->bias, fixture_address());  // the function's first byte, as run
  ASSERT_GT(at->end, at->start);

  std::string why;
  const auto bytes = read_code(at->file, at->start, at->end, &why);
  ASSERT_TRUE(bytes) << why;
  ASSERT_EQ(bytes->size(), at->end - at->start);
  EXPECT_EQ(
      std::memcmp(bytes->data(), reinterpret_cast<const void*>(fixture_address()), bytes->size()),
      0)
      << "the file's bytes are the ones this process runs";

  const auto code = disassemble_x86_64(*bytes, at->start, &why);
  ASSERT_FALSE(code.empty()) << why;
  uint64_t covered = 0;
  for (const Instruction& i : code) {
    EXPECT_EQ(i.address, at->start + covered) << "instructions follow each other";
    covered += i.size;
  }
  EXPECT_EQ(covered, bytes->size());
  // It returns somewhere (not always last: a sanitizer build ends it with
  // the no-return call that reports an error).
  EXPECT_TRUE(std::any_of(code.begin(), code.end(), [](const Instruction& i) {
    return i.text.starts_with("ret");
  })) << code.back().text;

  const SourceLines lines = SourceLines::open(at->file, &why);
  ASSERT_TRUE(lines) << why;
  const auto line = lines.at(at->start);
  ASSERT_TRUE(line);
  EXPECT_TRUE(line->file.ends_with("function_code_test.cpp")) << line->file;
  EXPECT_EQ(line->line, kFixtureLine);
}

TEST(FunctionCode, DisassemblesKnownBytesAndSkipsWhatDoesNotDecode) {
  // mov %rdi,%rax; (0x06: push %es, invalid in 64-bit mode); ret
  const std::vector<uint8_t> bytes = {0x48, 0x89, 0xf8, 0x06, 0xc3};
  std::string why;
  const auto code = disassemble_x86_64(bytes, 0x1000, &why);
  ASSERT_EQ(code.size(), 3u) << why;
  EXPECT_EQ(code[0].address, 0x1000u);
  EXPECT_EQ(code[0].size, 3u);
  EXPECT_EQ(code[0].text, "movq   %rdi, %rax");
  EXPECT_EQ(code[1].address, 0x1003u);
  EXPECT_EQ(code[1].text, ".byte  0x06");
  EXPECT_EQ(code[2].text, "retq");
  EXPECT_TRUE(disassemble_x86_64({}, 0, &why).empty());
}

TEST(FunctionCode, BadFilesAndExtentsSayWhy) {
  std::string why;
  EXPECT_FALSE(read_code("/nonexistent/kprof/file", 0x1000, 0x1010, &why));
  EXPECT_NE(why.find("/nonexistent/kprof/file"), std::string::npos) << why;
  EXPECT_FALSE(read_code("/proc/self/exe", 0x10, 0x10, &why));
  EXPECT_FALSE(read_code("/proc/self/exe", 0, kMaxFunctionBytes + 1, &why));
  EXPECT_FALSE(read_code("/proc/self/exe", UINT64_MAX - 0x10, UINT64_MAX, &why));
  EXPECT_NE(why.find("no section"), std::string::npos) << why;
  const SourceLines none = SourceLines::open("/nonexistent/kprof/file", &why);
  EXPECT_FALSE(none);
  EXPECT_FALSE(none.at(0x1000));
}

// A file whose .debug_line_str does not end in a NUL (found by fuzzing):
// libdw would read its last name past the end, so it is refused.
TEST(FunctionCode, UnterminatedDwarfStringsAreRefused) {
  const std::string path =
      std::string(KPROF_SOURCE_DIR) + "/fuzz/corpus/elf_resolver/unterminated_debug_line_str";
  std::string why;
  const SourceLines lines = SourceLines::open(path, &why);
  EXPECT_FALSE(lines);
  EXPECT_NE(why.find("damaged DWARF"), std::string::npos) << why;
}

TEST(SymbolTableExtent, SizedZeroSizedAndLastSymbols) {
  SymbolTable t;
  t.add(0x1000, 0x20, "sized", Binding::Global);
  t.add(0x1100, 0, "unsized", Binding::Global);
  t.add(0x1180, 0, "last", Binding::Global);
  t.finish();
  auto x = t.extent(0x1010);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->addr, 0x1000u);
  EXPECT_EQ(x->end, 0x1020u);
  EXPECT_FALSE(t.extent(0x1020)) << "past a sized symbol: no function";
  x = t.extent(0x1170);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->name, "unsized");
  EXPECT_EQ(x->end, 0x1180u) << "a zero-sized symbol ends at the next";
  x = t.find("last");
  ASSERT_TRUE(x);
  EXPECT_EQ(x->addr, 0x1180u);
  EXPECT_EQ(x->end, 0x1180u + 4096);
  EXPECT_FALSE(t.find("missing"));
  EXPECT_EQ(t.lookup(0x1010), "sized");
  EXPECT_EQ(t.lookup(0x1180 + 4096), "");
}

}  // namespace
}  // namespace kprof::symbolizer
