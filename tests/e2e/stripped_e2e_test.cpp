// Records kprof_prog_stripped (tests/programs: kprof_prog_stripped_full
// after `strip --strip-all`) with the real kprof and reads the report's CSV:
// its two static functions, which only .eh_frame still bounds, come out as
// two rows "kprof_prog_stripped+0x<start>", the starts being those the
// unstripped copy's .symtab states, and hold nearly all of the program's
// samples; no large "[unknown]" row is left in the image.
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

// The value of a named symbol in a little-endian ELF64 file's .symtab (the
// test's own build output; every read is still checked against the file).
std::optional<uint64_t> symtab_value(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fits = [&](uint64_t off, uint64_t len) { return off <= f.size() && len <= f.size() - off; };
  Elf64_Ehdr eh;
  if (!fits(0, sizeof eh)) return std::nullopt;
  std::memcpy(&eh, f.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !fits(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr))) {
    return std::nullopt;
  }
  auto shdr = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, f.data() + eh.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sym = shdr(i);
    if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum ||
        !fits(sym.sh_offset, sym.sh_size)) {
      continue;
    }
    const Elf64_Shdr str = shdr(sym.sh_link);
    if (!fits(str.sh_offset, str.sh_size)) continue;
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sym.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym s;
      std::memcpy(&s, f.data() + sym.sh_offset + off, sizeof s);
      if (s.st_name >= str.sh_size) continue;
      const char* n = f.data() + str.sh_offset + s.st_name;
      const size_t max = str.sh_size - s.st_name;
      if (strnlen(n, max) == name.size() && name.compare(0, max, n, name.size()) == 0) {
        return s.st_value;
      }
    }
  }
  return std::nullopt;
}

// "a,b,c" -> fields; quotes as RFC 4180 (kprof's CSV).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::string fde_name(uint64_t start) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(start));
  return "kprof_prog_stripped" + std::string(buf);
}

class StrippedE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  TempDir dir_;
};

TEST_F(StrippedE2E, StaticFunctionsAreRowsNamedByFdeStart) {
  const auto first = symtab_value(program("kprof_prog_stripped_full"), "stripped_first");
  const auto second = symtab_value(program("kprof_prog_stripped_full"), "stripped_second");
  ASSERT_TRUE(first && second) << "the unstripped copy lacks the static functions";
  ASSERT_FALSE(symtab_value(program("kprof_prog_stripped"), "stripped_first"))
      << "kprof_prog_stripped is not stripped";

  const std::string profile = dir_.file("s.kprof");
  RunResult rec = run({kprof_binary(), "record", "-F", "4999", "-o", profile, "--",
                       program("kprof_prog_stripped"), "2"},
                      dir_.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  RunResult rep = run({kprof_binary(), "report", profile, "--csv", "-"}, dir_.path(), 60);
  ASSERT_EQ(rep.exit_code, 0) << rep.describe();

  // samples,percent,image,function,mode: the rows of the stripped image.
  std::map<std::string, uint64_t> in_image;
  std::istringstream csv(rep.out);
  std::string line;
  std::getline(csv, line);
  if (line.ends_with('\r')) line.pop_back();  // RFC 4180 ends lines with CRLF
  ASSERT_EQ(line, "samples,percent,image,function,mode") << rep.out.substr(0, 2000);
  while (std::getline(csv, line)) {
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() < 5 || !f[2].ends_with("/kprof_prog_stripped")) continue;
    in_image[f[3]] += std::stoull(f[0]);
  }
  uint64_t total = 0;
  for (const auto& [name, n] : in_image) total += n;
  const std::string head = rep.out.substr(0, 3000);
  ASSERT_GE(total, 500u) << "too few samples in the program for 2 s at 4999 Hz\n" << head;

  const uint64_t a = in_image[fde_name(*first)], b = in_image[fde_name(*second)];
  EXPECT_GT(a, 0u) << fde_name(*first) << " missing\n" << head;
  EXPECT_GT(b, 0u) << fde_name(*second) << " missing\n" << head;
  // 2 units of work against 1: the first is clearly the larger.
  EXPECT_GT(a, b) << head;
  EXPECT_GE((a + b) * 10, total * 9) << "the two functions are nearly all of the program\n" << head;
  EXPECT_LE(in_image["[unknown]"] * 50, total) << "a large [unknown] row is left\n" << head;
}

}  // namespace
}  // namespace kprof::e2e
