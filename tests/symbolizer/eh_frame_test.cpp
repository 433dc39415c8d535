// The FDE fallback for stripped binaries: FdeTable's rules, the .eh_frame
// decoder on hand-built sections (encodings, augmentations, damage), and
// ElfResolver on kprof_prog_stripped (tests/programs), a copy of
// kprof_prog_stripped_full after `strip --strip-all`: its static functions
// come out as "kprof_prog_stripped+0x<start>", with the start addresses the
// unstripped copy's .symtab states.
#include <gelf.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symbolizer/eh_frame.h"
#include "symbolizer/elf_file.h"
#include "symbolizer/elf_resolver.h"
#include "symbolizer/profile_symbols.h"

namespace fs = std::filesystem;

namespace kprof {
namespace {

using symbolizer::add_cfi_fdes;
using symbolizer::CfiSection;
using symbolizer::FdeRange;
using symbolizer::FdeTable;
using symbolizer::LoadSegment;

// ------------------------------------------------------------ FdeTable

TEST(FdeTable, LooksUpByExtentAndDropsWhatIsNotCode) {
  const LoadSegment segs[] = {{0, 0, 0x1000, false}, {0x1000, 0x1000, 0x1000, true}};
  FdeTable t;
  t.add(0x1100, 0x40);
  t.add(0x1000, 0x10);
  t.add(0x0800, 0x10);    // in the non-executable segment: dropped
  t.add(0x3000, 0x10);    // in no segment: dropped
  t.add(0x1f00, 0x1000);  // runs past the segment: clipped at 0x2000
  t.add(0, 0x10);         // a zero start or range is no function
  t.add(0x1200, 0);
  t.finish(segs);
  EXPECT_EQ(std::vector<FdeRange>(t.ranges().begin(), t.ranges().end()),
            (std::vector<FdeRange>{{0x1000, 0x10}, {0x1100, 0x40}, {0x1f00, 0x100}}));
  EXPECT_EQ(t.lookup(0x1000), 0x1000u);
  EXPECT_EQ(t.lookup(0x100f), 0x1000u);
  EXPECT_EQ(t.lookup(0x1010), std::nullopt);  // between extents
  EXPECT_EQ(t.lookup(0x0fff), std::nullopt);
  EXPECT_EQ(t.lookup(0x113f), 0x1100u);
  EXPECT_EQ(t.lookup(0x1140), std::nullopt);
  EXPECT_EQ(t.lookup(0x1fff), 0x1f00u);
  EXPECT_EQ(t.lookup(0x2000), std::nullopt);
  EXPECT_EQ(t.lookup(0x0800), std::nullopt);
}

TEST(FdeTable, EqualStartsMergeAndOverlapsAreClipped) {
  const LoadSegment segs[] = {{0, 0x1000, 0x1000, true}};
  FdeTable t;
  t.add(0x1000, 0x20);
  t.add(0x1000, 0x80);  // the larger range wins
  t.add(0x1040, 0x100);
  t.add(0x1010, 0x8);  // inside the first: the first stops at 0x1010
  t.finish(segs);
  EXPECT_EQ(std::vector<FdeRange>(t.ranges().begin(), t.ranges().end()),
            (std::vector<FdeRange>{{0x1000, 0x10}, {0x1010, 0x8}, {0x1040, 0x100}}));
  EXPECT_EQ(t.lookup(0x1012), 0x1010u);
  EXPECT_EQ(t.lookup(0x1018), std::nullopt);  // the first FDE no longer claims it
  EXPECT_EQ(t.lookup(0x1100), 0x1040u);
}

// ------------------------------------------------------------ add_cfi_fdes

// Builds a .eh_frame (or .debug_frame) section at `addr`, byte by byte.
struct CfiBuilder {
  std::vector<uint8_t> b;
  uint64_t addr = 0x2000;
  bool big = false;

  void put(uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const size_t shift = 8 * (big ? n - 1 - i : i);
      b.push_back(static_cast<uint8_t>(v >> shift));
    }
  }
  void patch_length(size_t at) {
    const uint64_t len = b.size() - at - 4;
    std::vector<uint8_t> saved(b.begin() + static_cast<long>(at) + 4, b.end());
    b.resize(at);
    put(len, 4);
    b.insert(b.end(), saved.begin(), saved.end());
  }
  void pad() {
    while (b.size() % 4) b.push_back(0);  // DW_CFA_nop
  }
  // A CIE with `aug` and its augmentation data; returns its offset.
  size_t cie(const std::string& aug, const std::vector<uint8_t>& aug_data, uint32_t id = 0) {
    const size_t at = b.size();
    put(0, 4);
    put(id, 4);
    b.push_back(1);  // version
    b.insert(b.end(), aug.begin(), aug.end());
    b.push_back(0);
    b.push_back(1);     // code alignment
    b.push_back(0x78);  // data alignment -8
    b.push_back(16);    // return address register
    if (!aug.empty() && aug[0] == 'z') {
      b.push_back(static_cast<uint8_t>(aug_data.size()));
      b.insert(b.end(), aug_data.begin(), aug_data.end());
    }
    b.insert(b.end(), {0x0c, 0x07, 0x08, 0x90, 0x01});  // def_cfa rsp+8; ra at cfa-8
    pad();
    patch_length(at);
    return at;
  }
  // An FDE of the CIE at `cie_at`; `fields` writes initial location and
  // range in whatever encoding that CIE states.
  template <typename F>
  size_t fde(size_t cie_at, F fields, bool eh = true, bool aug_len = true) {
    const size_t at = b.size();
    put(0, 4);
    put(eh ? b.size() - cie_at : cie_at, 4);
    fields(*this);
    if (aug_len) b.push_back(0);  // 'z': no augmentation data
    pad();
    patch_length(at);
    return at;
  }
  // pc-relative sdata4 initial location, sdata4 range.
  size_t fde_pcrel(size_t cie_at, uint64_t start, uint32_t range) {
    return fde(cie_at, [&](CfiBuilder& c) {
      const uint64_t field = c.addr + c.b.size();
      c.put(static_cast<uint32_t>(start - field), 4);
      c.put(range, 4);
    });
  }
  void end() { put(0, 4); }

  CfiSection section(bool eh_frame = true, bool elf64 = true) const {
    return CfiSection{.bytes = b,
                      .eh_frame = eh_frame,
                      .address = addr,
                      .text_address = 0x1000,
                      .elf64 = elf64,
                      .big_endian = big};
  }
};

std::vector<FdeRange> parse(const CfiSection& s, size_t* added = nullptr) {
  FdeTable t;
  const size_t n = add_cfi_fdes(s, t);
  if (added) *added = n;
  const LoadSegment all[] = {{0, 0, ~uint64_t{0} >> 1, true}};
  t.finish(all);
  return {t.ranges().begin(), t.ranges().end()};
}

TEST(CfiFdes, PcRelativeSdata4AsGccWritesIt) {
  CfiBuilder c;
  const size_t cie = c.cie("zR", {0x1b});  // DW_EH_PE_pcrel | sdata4
  c.fde_pcrel(cie, 0x1100, 0x40);
  c.fde_pcrel(cie, 0x1040, 0x20);  // before the section: a negative offset
  c.end();
  size_t added = 0;
  EXPECT_EQ(parse(c.section(), &added), (std::vector<FdeRange>{{0x1040, 0x20}, {0x1100, 0x40}}));
  EXPECT_EQ(added, 2u);
}

TEST(CfiFdes, PersonalityLsdaAndSignalAugmentationsAreSkipped) {
  CfiBuilder c;
  // P: udata4 personality pointer (4 bytes); L: LSDA encoding; R: FDE encoding.
  const size_t cie = c.cie("zPLRS", {0x03, 0xef, 0xbe, 0xad, 0xde, 0x1b, 0x1b});
  c.fde(
      cie,
      [](CfiBuilder& b) {
        const uint64_t field = b.addr + b.b.size();
        b.put(static_cast<uint32_t>(0x1500 - field), 4);
        b.put(0x30, 4);
        b.b.push_back(4);  // augmentation data: a 4-byte LSDA pointer
        b.put(0, 4);
      },
      true, false);
  // uleb128 personality pointer.
  const size_t cie2 = c.cie("zPR", {0x01, 0x80, 0x01, 0x1b});
  c.fde_pcrel(cie2, 0x1600, 0x10);
  c.end();
  EXPECT_EQ(parse(c.section()), (std::vector<FdeRange>{{0x1500, 0x30}, {0x1600, 0x10}}));
}

TEST(CfiFdes, AbsoluteTextRelativeAndUleb) {
  CfiBuilder c;
  const size_t abs8 = c.cie("zR", {0x00});  // absptr: 8 bytes on ELFCLASS64
  c.fde(abs8, [](CfiBuilder& b) {
    b.put(0x4a1b20, 8);
    b.put(0x100, 8);
  });
  const size_t text = c.cie("zR", {0x21});  // textrel | uleb128
  c.fde(text, [](CfiBuilder& b) {
    b.b.insert(b.b.end(), {0x80, 0x02});  // 0x100 from .text (0x1000)
    b.b.insert(b.b.end(), {0x20});        // range 0x20
  });
  const size_t none = c.cie("", {});  // no augmentation: absptr, no 'z' length
  c.fde(
      none,
      [](CfiBuilder& b) {
        b.put(0x5000, 8);
        b.put(0x8, 8);
      },
      true, false);
  c.end();
  EXPECT_EQ(parse(c.section()),
            (std::vector<FdeRange>{{0x1100, 0x20}, {0x5000, 0x8}, {0x4a1b20, 0x100}}));
}

TEST(CfiFdes, Elf32BigEndianAndDebugFrame) {
  CfiBuilder c;
  c.big = true;
  c.addr = 0;                                     // .debug_frame is not loaded
  const size_t cie = c.cie("", {}, 0xffffffffu);  // .debug_frame CIE id
  c.fde(
      cie,
      [](CfiBuilder& b) {
        b.put(0x8048400, 4);  // absptr is 4 bytes on ELFCLASS32
        b.put(0x44, 4);
      },
      false, false);
  EXPECT_EQ(parse(c.section(/*eh_frame=*/false, /*elf64=*/false)),
            (std::vector<FdeRange>{{0x8048400, 0x44}}));
}

TEST(CfiFdes, UndecodableEntriesAreSkippedAndTheRestKept) {
  CfiBuilder c;
  const size_t unknown_aug = c.cie("zX", {0x1b});  // an augmentation nobody knows
  c.fde_pcrel(unknown_aug, 0x1100, 0x10);
  const size_t indirect = c.cie("zR", {0x9b});  // indirect | pcrel | sdata4
  c.fde_pcrel(indirect, 0x1200, 0x10);
  const size_t datarel = c.cie("zR", {0x3b});  // datarel: no base known here
  c.fde_pcrel(datarel, 0x1300, 0x10);
  const size_t good = c.cie("zR", {0x1b});
  c.fde_pcrel(good, 0x1400, 0x10);
  // An FDE whose CIE pointer leads nowhere useful (into the good FDE).
  c.fde(c.b.size() - 8, [](CfiBuilder& b) {
    b.put(0, 4);
    b.put(0x10, 4);
  });
  // An FDE cut short: no room for its range.
  c.fde(
      good, [](CfiBuilder& b) { b.put(0x10, 4); }, true, false);
  c.fde_pcrel(good, 0x1500, 0x10);
  c.end();
  EXPECT_EQ(parse(c.section()), (std::vector<FdeRange>{{0x1400, 0x10}, {0x1500, 0x10}}));
}

TEST(CfiFdes, DamagedSectionsNeverReadOutside) {
  CfiBuilder c;
  const size_t cie = c.cie("zPLR", {0x03, 1, 2, 3, 4, 0x1b, 0x1b});
  for (uint64_t i = 0; i < 4; ++i) c.fde_pcrel(cie, 0x1000 + 0x100 * i, 0x80);
  c.end();
  const std::vector<uint8_t> whole = c.b;
  ASSERT_EQ(parse(c.section()).size(), 4u);
  // Every prefix, and every single-byte change, parses to at most the whole.
  for (size_t n = 0; n <= whole.size(); ++n) {
    c.b.assign(whole.begin(), whole.begin() + static_cast<long>(n));
    c.b.shrink_to_fit();  // so a read past the end is one past the allocation
    EXPECT_LE(parse(c.section()).size(), 4u) << n;
  }
  // An entry takes at least 9 bytes (length, CIE pointer, one more).
  for (size_t i = 0; i < whole.size(); ++i) {
    for (uint8_t v : {uint8_t{0}, uint8_t{0x7f}, uint8_t{0x80}, uint8_t{0xff}}) {
      c.b = whole;
      c.b[i] = v;
      EXPECT_LE(parse(c.section()).size(), whole.size() / 9) << i << " = " << int(v);
    }
  }
}

// ------------------------------------------------ the stripped test program

std::string program(const std::string& name) {
  return std::string(KPROF_PROGRAMS_DIR) + "/" + name;
}

// A function symbol's address in a file's .symtab, by name.
std::optional<uint64_t> symtab_address(const std::string& path, const std::string& name) {
  std::string error;
  auto file = symbolizer::ElfFile::open(path, &error);
  if (!file) return std::nullopt;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(file.elf(), scn)) != nullptr) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || shdr.sh_entsize == 0) continue;
    for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
      const char* n = elf_strptr(file.elf(), shdr.sh_link, sym.st_name);
      if (n && name == n && GELF_ST_TYPE(sym.st_info) == STT_FUNC) return sym.st_value;
    }
  }
  return std::nullopt;
}

std::string hex_name(const std::string& image, uint64_t start) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(start));
  return image + buf;
}

// The stripped program as if mapped whole at kBase; ip_of() is where a
// virtual address (as in the file) would be executing.
struct StrippedProgram {
  static constexpr uint64_t kBase = 0x5600'0000'0000;
  std::string full = program("kprof_prog_stripped_full");
  std::string stripped = program("kprof_prog_stripped");
  std::vector<LoadSegment> segments;
  Mmap mapping;

  bool load() {
    std::string error;
    auto file = symbolizer::ElfFile::open(stripped, &error);
    if (!file) return false;
    auto info = symbolizer::read_elf_info(file.elf());
    if (info.has_symtab) return false;  // not stripped after all
    segments = info.segments;
    mapping =
        Mmap{.start = kBase, .len = fs::file_size(stripped), .pgoff = 0, .filename = stripped};
    return true;
  }
  uint64_t ip_of(uint64_t vaddr) const {
    for (const LoadSegment& s : segments) {
      if (s.exec && vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) {
        return kBase + vaddr - s.vaddr + s.offset;
      }
    }
    ADD_FAILURE() << "no executable segment holds 0x" << std::hex << vaddr;
    return 0;
  }
};

TEST(StrippedProgram, StaticFunctionsAreNamedByTheirFdeStart) {
  StrippedProgram p;
  ASSERT_TRUE(p.load()) << p.stripped << " missing, unreadable or not stripped";
  auto first = symtab_address(p.full, "stripped_first");
  auto second = symtab_address(p.full, "stripped_second");
  ASSERT_TRUE(first && second) << "unstripped copy lacks the static functions";
  ASSERT_NE(*first, *second);

  ElfResolver r(ElfResolverOptions{.debug_dirs = {}});
  const uint64_t ips[] = {p.ip_of(*first), p.ip_of(*first + 5), p.ip_of(*second),
                          p.ip_of(*second + 9)};
  auto names = r.resolve(p.mapping, ips, nullptr);
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0], hex_name("kprof_prog_stripped", *first));
  EXPECT_EQ(names[1], names[0]) << "an address inside the function names its start";
  EXPECT_EQ(names[2], hex_name("kprof_prog_stripped", *second));
  EXPECT_EQ(names[3], names[2]);
  EXPECT_NE(names[0], names[2]);
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();

  // The unstripped copy names them from .symtab.
  Mmap full = p.mapping;
  full.filename = p.full;
  auto full_names = r.resolve(full, ips, nullptr);
  EXPECT_EQ(full_names, (std::vector<std::string>{"stripped_first", "stripped_first",
                                                  "stripped_second", "stripped_second"}));
}

TEST(StrippedProgram, DynsymSymbolWinsOverItsFde) {
  StrippedProgram p;
  ASSERT_TRUE(p.load());
  auto main_at = symtab_address(p.full, "main");
  ASSERT_TRUE(main_at);
  ElfResolver r(ElfResolverOptions{.debug_dirs = {}});
  uint64_t ips[] = {p.ip_of(*main_at), p.ip_of(*main_at + 7)};
  EXPECT_EQ(r.resolve(p.mapping, ips, nullptr), (std::vector<std::string>{"main", "main"}));
}

TEST(StrippedProgram, CodeWithoutSymbolOrFdeStaysUnknown) {
  StrippedProgram p;
  ASSERT_TRUE(p.load());
  auto blob = symtab_address(p.full, "kprof_stripped_nocfi");
  ASSERT_TRUE(blob);
  ElfResolver r(ElfResolverOptions{.debug_dirs = {}});
  uint64_t ips[] = {p.ip_of(*blob), p.ip_of(*blob + 32)};
  EXPECT_EQ(r.resolve(p.mapping, ips, nullptr), std::vector<std::string>(2));
  Mmap full = p.mapping;
  full.filename = p.full;
  EXPECT_EQ(r.resolve(full, ips, nullptr),
            (std::vector<std::string>{"kprof_stripped_nocfi", "kprof_stripped_nocfi"}));

  // As a profile row: "[unknown]" in the image, beside the FDE-named rows.
  auto first = symtab_address(p.full, "stripped_first");
  ASSERT_TRUE(first);
  AddressAggregator agg;
  Mmap m = p.mapping;
  m.pid = 1;
  agg.on_mmap(m);
  for (uint64_t ip : {ips[0], p.ip_of(*first), p.ip_of(*first + 1)}) {
    agg.on_sample(Sample{0, ip, 1, 1, 0, Mode::User, 1, {}});
  }
  const ProfileSymbols sym = symbolize_profile(agg.counts(), KernelSymbols::parse("", ""));
  EXPECT_TRUE(sym.warnings.empty()) << sym.warnings.front();
  std::map<std::string, uint64_t> by_name;
  for (const FunctionCount& row : sym.histogram.rows) by_name[row.function] += row.samples;
  EXPECT_EQ(by_name, (std::map<std::string, uint64_t>{
                         {"[unknown]", 1}, {hex_name("kprof_prog_stripped", *first), 2}}));
}

TEST(StrippedProgram, FdeTableHoldsTheCompiledFunctions) {
  std::string error;
  auto file = symbolizer::ElfFile::open(program("kprof_prog_stripped"), &error);
  ASSERT_TRUE(file) << error;
  FdeTable t;
  EXPECT_GT(symbolizer::add_fde_ranges(file.elf(), t), 4u);
  t.finish(symbolizer::read_elf_info(file.elf()).segments);
  for (const char* fn : {"stripped_first", "stripped_second", "main", "kprof_prog_now"}) {
    auto at = symtab_address(program("kprof_prog_stripped_full"), fn);
    ASSERT_TRUE(at) << fn;
    EXPECT_EQ(t.lookup(*at), *at) << fn;
  }
}

}  // namespace
}  // namespace kprof
