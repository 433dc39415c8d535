#include "symbolizer/kcore.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "tests/core/test_util.h"

namespace kprof::symbolizer {
namespace {

using kprof::testing::TempDir;

struct Phdr {
  uint32_t type;
  uint64_t vaddr, offset, filesz;
};

// An ELF64 little-endian ET_CORE header: the ELF header, then (at e_phoff 64)
// the program headers. `edit` changes the ELF header before it is written.
template <typename Edit>
std::vector<uint8_t> core_header(const std::vector<Phdr>& phdrs, Edit edit) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_CORE;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(phdrs.size());
  edit(eh);
  std::vector<uint8_t> out(sizeof(eh) + phdrs.size() * sizeof(Elf64_Phdr));
  std::memcpy(out.data(), &eh, sizeof(eh));
  for (size_t i = 0; i < phdrs.size(); ++i) {
    Elf64_Phdr ph{};
    ph.p_type = phdrs[i].type;
    ph.p_flags = PF_R | PF_W | PF_X;
    ph.p_vaddr = phdrs[i].vaddr;
    ph.p_paddr = phdrs[i].vaddr;
    ph.p_offset = phdrs[i].offset;
    ph.p_filesz = phdrs[i].filesz;
    ph.p_memsz = phdrs[i].filesz;
    ph.p_align = 4096;
    std::memcpy(out.data() + sizeof(eh) + i * sizeof(ph), &ph, sizeof(ph));
  }
  return out;
}
std::vector<uint8_t> core_header(const std::vector<Phdr>& phdrs) {
  return core_header(phdrs, [](Elf64_Ehdr&) {});
}

constexpr uint64_t kText = 0xffffffff81000000;
constexpr uint64_t kDirect = 0xffff888000000000;
const std::vector<Phdr> kTypical = {
    {PT_NOTE, 0, 0x200, 0x100},
    {PT_LOAD, kText, 0x1000, 0x2000},
    {PT_LOAD, kDirect, 0x3000, 0x800},
};

// parse_kcore_segments' result when it fails, with the reason it gave.
std::string failure(const std::vector<uint8_t>& bytes) {
  std::string why;
  const auto segments = parse_kcore_segments(bytes, &why);
  EXPECT_TRUE(segments.empty());
  EXPECT_FALSE(why.empty());
  return why;
}

TEST(ParseKcoreSegments, ReadsPtLoadSegmentsInFileOrderAndSkipsTheNote) {
  std::string why = "untouched";
  const auto segments = parse_kcore_segments(core_header(kTypical), &why);
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0].vaddr, kText);
  EXPECT_EQ(segments[0].offset, 0x1000u);
  EXPECT_EQ(segments[0].size, 0x2000u);
  EXPECT_EQ(segments[1].vaddr, kDirect);
  EXPECT_EQ(segments[1].offset, 0x3000u);
  EXPECT_EQ(segments[1].size, 0x800u);
  EXPECT_EQ(why, "untouched");
  EXPECT_EQ(parse_kcore_segments(core_header(kTypical), nullptr).size(), 2u);
}

TEST(ParseKcoreSegments, HeaderSizeIsWhereTheProgramHeadersEnd) {
  EXPECT_EQ(kcore_header_size(core_header(kTypical), nullptr), 64u + 3 * 56);
  // Only the ELF header is needed to know it.
  const auto bytes = core_header(kTypical);
  EXPECT_EQ(kcore_header_size(std::span(bytes).first(64), nullptr), 64u + 3 * 56);
}

TEST(ParseKcoreSegments, TruncatedElfHeader) {
  auto bytes = core_header(kTypical);
  bytes.resize(63);
  EXPECT_NE(failure(bytes).find("truncated ELF header (63 of 64"), std::string::npos);
  EXPECT_NE(failure({}).find("truncated"), std::string::npos);
}

TEST(ParseKcoreSegments, TruncatedProgramHeaders) {
  auto bytes = core_header(kTypical);
  bytes.pop_back();
  EXPECT_NE(failure(bytes).find("beyond the 231 bytes given"), std::string::npos);
}

TEST(ParseKcoreSegments, BadMagic) {
  auto bytes = core_header(kTypical);
  bytes[1] = 'X';
  EXPECT_NE(failure(bytes).find("magic"), std::string::npos);
}

TEST(ParseKcoreSegments, WrongClass) {
  const auto bytes = core_header(kTypical, [](Elf64_Ehdr& e) { e.e_ident[EI_CLASS] = ELFCLASS32; });
  EXPECT_NE(failure(bytes).find("ELFCLASS64"), std::string::npos);
}

TEST(ParseKcoreSegments, BigEndian) {
  const auto bytes = core_header(kTypical, [](Elf64_Ehdr& e) { e.e_ident[EI_DATA] = ELFDATA2MSB; });
  EXPECT_NE(failure(bytes).find("little-endian"), std::string::npos);
}

TEST(ParseKcoreSegments, NotACoreImage) {
  const auto bytes = core_header(kTypical, [](Elf64_Ehdr& e) { e.e_type = ET_EXEC; });
  EXPECT_NE(failure(bytes).find("e_type 2"), std::string::npos);
}

TEST(ParseKcoreSegments, WrongProgramHeaderSize) {
  const auto bytes = core_header(kTypical, [](Elf64_Ehdr& e) { e.e_phentsize = 32; });
  EXPECT_NE(failure(bytes).find("e_phentsize 32"), std::string::npos);
}

TEST(ParseKcoreSegments, PhnumTooLarge) {
  // 5000 program headers' worth of bytes are there; still refused.
  std::vector<Phdr> many(5000, Phdr{PT_LOAD, kText, 0x1000, 0x10});
  EXPECT_NE(failure(core_header(many)).find("e_phnum 5000 exceeds 4096"), std::string::npos);
}

TEST(ParseKcoreSegments, PhnumZeroOrExtended) {
  EXPECT_NE(failure(core_header({})).find("no program headers"), std::string::npos);
  const auto xnum = core_header(kTypical, [](Elf64_Ehdr& e) { e.e_phnum = PN_XNUM; });
  EXPECT_NE(failure(xnum).find("PN_XNUM"), std::string::npos);
}

TEST(ParseKcoreSegments, PhoffBeyondData) {
  const auto bytes = core_header(kTypical, [](Elf64_Ehdr& e) { e.e_phoff = 4096; });
  EXPECT_NE(failure(bytes).find("end at byte 4264, beyond the 232 bytes given"), std::string::npos);
}

TEST(ParseKcoreSegments, PhoffThatWouldOverflow) {
  for (uint64_t phoff : {UINT64_MAX, UINT64_MAX - 100, uint64_t{1} << 63, uint64_t{2} << 20}) {
    const auto bytes = core_header(kTypical, [&](Elf64_Ehdr& e) { e.e_phoff = phoff; });
    EXPECT_NE(failure(bytes).find("end beyond"), std::string::npos) << phoff;
  }
}

TEST(ParseKcoreSegments, SegmentEndOverflows) {
  auto vaddr = kTypical;
  vaddr[2] = {PT_LOAD, UINT64_MAX - 0x10, 0x3000, 0x11};
  EXPECT_NE(failure(core_header(vaddr)).find("program header 2: p_vaddr + p_filesz overflows"),
            std::string::npos);
  auto offset = kTypical;
  offset[1] = {PT_LOAD, kText, UINT64_MAX, 2};
  EXPECT_NE(failure(core_header(offset)).find("program header 1: p_offset + p_filesz overflows"),
            std::string::npos);
  // Ending exactly at 2^64 - 1 is fine.
  auto edge = kTypical;
  edge[2] = {PT_LOAD, UINT64_MAX - 0x10, 0x3000, 0x10};
  EXPECT_EQ(parse_kcore_segments(core_header(edge), nullptr).size(), 2u);
}

TEST(ParseKcoreSegments, NoPtLoadWithData) {
  EXPECT_NE(failure(core_header({{PT_NOTE, 0, 0x200, 0x100}, {PT_LOAD, kText, 0x1000, 0}}))
                .find("no PT_LOAD"),
            std::string::npos);
}

// --- the byte rule ---------------------------------------------------------

bool enables(std::vector<uint8_t> before) {
  return follows_irq_enable(before);
}

TEST(FollowsIrqEnable, Popf) {
  EXPECT_TRUE(enables({0x57, 0x9d}));        // push %rdi; popf (native_restore_fl)
  EXPECT_TRUE(enables({0x9d}));              // popf alone
  EXPECT_TRUE(enables({0x41, 0x54, 0x9d}));  // anything before it
  EXPECT_TRUE(enables({0x48, 0x9d}));        // REX.W popfq
}

TEST(FollowsIrqEnable, StiAndTheInstructionInItsShadow) {
  EXPECT_TRUE(enables({0xfb}));                    // sti
  EXPECT_TRUE(enables({0xfb, 0xf4}));              // sti; hlt  (ip after hlt)
  EXPECT_TRUE(enables({0xfb, 0x0f, 0x01, 0xc9}));  // sti; mwait
  EXPECT_TRUE(enables({0xfb, 0x90}));              // sti; nop
  EXPECT_TRUE(enables({0xfb, 0x66, 0x90}));
  EXPECT_TRUE(enables({0xfb, 0x0f, 0x1f, 0x00}));
  EXPECT_TRUE(enables({0xfb, 0x0f, 0x1f, 0x40, 0x00}));
  EXPECT_TRUE(enables({0xc3, 0xfb, 0x0f, 0x1f, 0x44, 0x00, 0x00}));  // patched pv call site
  EXPECT_TRUE(enables({0xfb, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}));
  EXPECT_TRUE(enables({0xfb, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00}));
  EXPECT_TRUE(enables({0xfb, 0x3e, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00}));
  EXPECT_TRUE(enables({0xfb, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}));
}

TEST(FollowsIrqEnable, OtherBytesDoNot) {
  EXPECT_FALSE(enables({}));
  EXPECT_FALSE(enables({0x90, 0x90}));
  EXPECT_FALSE(enables({0x90}));
  EXPECT_FALSE(enables({0xf4}));                          // hlt without sti
  EXPECT_FALSE(enables({0x0f, 0x1f, 0x44, 0x00, 0x00}));  // a NOP without sti
  EXPECT_FALSE(enables({0xfb, 0x0f, 0x01, 0xc8}));        // sti; monitor
  EXPECT_FALSE(enables({0xfb, 0xc3}));                    // sti; ret: lands in the caller
  EXPECT_FALSE(enables({0x9d, 0x90}));        // popf has no shadow: ip would be at the nop
  EXPECT_FALSE(enables({0xfb, 0x90, 0x90}));  // two instructions after sti
  EXPECT_FALSE(enables({0xfb, 0x1f, 0x44, 0x00, 0x00}));  // not a whole NOP after sti
  EXPECT_FALSE(enables({0xfa}));                          // cli
}

TEST(FollowsIrqEnable, LookbehindCoversTheLongestPattern) {
  std::vector<uint8_t> longest = {0xfb, 0x3e, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(longest.size(), kIrqEnableLookbehind);
  EXPECT_TRUE(follows_irq_enable(longest));
  EXPECT_FALSE(follows_irq_enable(std::span(longest).last(kIrqEnableLookbehind - 1)));
}

// --- KernelMemory on a file laid out like kcore ----------------------------

class KernelMemoryFile : public ::testing::Test {
 protected:
  void SetUp() override {
    // Segment A: 256 bytes of text at 0x1000; B: 128 bytes at 0x1100 (right
    // after A in the file, far from it in memory); C claims 4096 bytes at
    // 0x2000 but the file holds only 16 of them.
    auto bytes = core_header({{PT_NOTE, 0, 0x200, 0x10},
                              {PT_LOAD, kText, 0x1000, 256},
                              {PT_LOAD, kDirect, 0x1100, 128},
                              {PT_LOAD, kDirect + 0x100000, 0x2000, 4096}});
    bytes.resize(0x2000 + 16);
    for (size_t i = 0; i < 256; ++i) bytes[0x1000 + i] = static_cast<uint8_t>(i);
    for (size_t i = 0; i < 128; ++i) bytes[0x1100 + i] = static_cast<uint8_t>(0xff - i);
    for (size_t i = 0; i < 16; ++i) bytes[0x2000 + i] = 0xcc;
    kprof::testing::write_bytes(path_, bytes);
  }

  TempDir tmp_;
  std::string path_ = tmp_.file("kcore");
};

TEST_F(KernelMemoryFile, ReadsBytesBySegment) {
  std::string why;
  const auto mem = KernelMemory::open(&why, path_);
  ASSERT_TRUE(mem.has_value()) << why;
  EXPECT_EQ(mem->segments().size(), 3u);
  EXPECT_EQ(mem->read(kText, 4), (std::vector<uint8_t>{0, 1, 2, 3}));
  EXPECT_EQ(mem->read(kText + 0x10, 2), (std::vector<uint8_t>{0x10, 0x11}));
  EXPECT_EQ(mem->read(kText + 255, 1), (std::vector<uint8_t>{0xff}));
  EXPECT_EQ(mem->read(kText, 256)->size(), 256u);
  EXPECT_EQ(mem->read(kDirect + 1, 2), (std::vector<uint8_t>{0xfe, 0xfd}));
  EXPECT_EQ(mem->read(kDirect + 0x100000, 16), std::vector<uint8_t>(16, 0xcc));
}

TEST_F(KernelMemoryFile, NoSegmentHoldsItAllOrTheFileIsShort) {
  std::string why;
  const auto mem = KernelMemory::open(&why, path_);
  ASSERT_TRUE(mem.has_value()) << why;
  EXPECT_FALSE(mem->read(kText + 255, 2));  // runs past A (into B's bytes in the file)
  EXPECT_FALSE(mem->read(kText - 1, 2));    // starts before A
  EXPECT_FALSE(mem->read(kText, 257));
  EXPECT_FALSE(mem->read(kDirect + 127, 2));
  EXPECT_FALSE(mem->read(0, 16));
  EXPECT_FALSE(mem->read(UINT64_MAX, 2));
  EXPECT_FALSE(mem->read(UINT64_MAX - 1, SIZE_MAX));
  EXPECT_FALSE(mem->read(kText, 0));
  EXPECT_FALSE(mem->read(kDirect + 0x100000, 17));  // the file ends after 16 of C's bytes
  EXPECT_FALSE(mem->read(kDirect + 0x100000 + 100, 1));
}

TEST_F(KernelMemoryFile, MovesWithItsDescriptor) {
  auto mem = KernelMemory::open(nullptr, path_);
  ASSERT_TRUE(mem.has_value());
  KernelMemory moved = std::move(*mem);
  EXPECT_EQ(moved.read(kText + 1, 1), (std::vector<uint8_t>{1}));
}

// finish.h's use: a kernel row whose peak address follows `sti` (padded
// with a NOP) or `popf` is marked; a halt in the idle loop, other bytes, an
// unreadable address and a user row are not.
TEST_F(KernelMemoryFile, MarksRowsWhosePeakFollowsAnEnable) {
  auto bytes = core_header({{PT_LOAD, kText, 0x1000, 256}});
  bytes.resize(0x1000 + 256, 0x90);
  const std::vector<uint8_t> sti_nop = {0xFB, 0x0F, 0x1F, 0x44, 0x00, 0x00};
  std::copy(sti_nop.begin(), sti_nop.end(), bytes.begin() + 0x1000 + 0x20);  // ip 0x26
  bytes[0x1000 + 0x40] = 0x57;  // push %rdi; popf: ip 0x42
  bytes[0x1000 + 0x41] = 0x9D;
  bytes[0x1000 + 0x60] = 0xFB;  // sti; hlt: ip 0x62
  bytes[0x1000 + 0x61] = 0xF4;
  bytes[0x1000 + 0x80] = 0xC3;  // ret: ip 0x81
  kprof::testing::write_bytes(path_, bytes);
  const auto mem = KernelMemory::open(nullptr, path_);
  ASSERT_TRUE(mem.has_value());
  Histogram h;
  h.images = {{"[kernel]", ""}};
  auto row = [](const char* f, Mode m, uint64_t ip) {
    return FunctionCount{0, f, m, 10, 0, 8, ip, false};
  };
  h.rows = {row("after_sti", Mode::Kernel, kText + 0x26),
            row("after_popf", Mode::Kernel, kText + 0x42),
            row("idle", Mode::Kernel, kText + 0x62),
            row("plain", Mode::Kernel, kText + 0x81),
            row("unmapped", Mode::Kernel, kText + 0x4000),
            row("user", Mode::User, kText + 0x26),
            row("no_peak", Mode::Kernel, 0)};
  EXPECT_EQ(mark_irq_enable_peaks(h, *mem), 2u);
  std::vector<std::string> marked;
  for (const FunctionCount& r : h.rows) {
    if (r.peak_after_irq_enable) marked.push_back(r.function);
  }
  EXPECT_EQ(marked, (std::vector<std::string>{"after_sti", "after_popf"}));
}

TEST(KernelMemoryOpen, SaysWhyItCannot) {
  TempDir tmp;
  std::string why;
  EXPECT_FALSE(KernelMemory::open(&why, tmp.file("absent")));
  EXPECT_NE(why.find("cannot open " + tmp.file("absent") + ": No such file or directory"),
            std::string::npos)
      << why;

  EXPECT_FALSE(KernelMemory::open(&why, "/dev/null"));
  EXPECT_NE(why.find("/dev/null is not a regular file"), std::string::npos) << why;

  kprof::testing::write_bytes(tmp.file("short"), {0x7f, 'E', 'L', 'F'});
  EXPECT_FALSE(KernelMemory::open(&why, tmp.file("short")));
  EXPECT_NE(why.find("cannot read the ELF header of " + tmp.file("short")), std::string::npos)
      << why;

  auto cut = core_header(kTypical);
  cut.resize(100);  // the ELF header, then part of the first program header
  kprof::testing::write_bytes(tmp.file("cut"), cut);
  EXPECT_FALSE(KernelMemory::open(&why, tmp.file("cut")));
  EXPECT_NE(why.find(tmp.file("cut") + ": program headers cut short"), std::string::npos) << why;

  kprof::testing::write_bytes(tmp.file("exec"),
                              core_header(kTypical, [](Elf64_Ehdr& e) { e.e_type = ET_EXEC; }));
  EXPECT_FALSE(KernelMemory::open(&why, tmp.file("exec")));
  EXPECT_NE(why.find(tmp.file("exec") + ": not a core image"), std::string::npos) << why;

  kprof::testing::write_bytes(tmp.file("noload"), core_header({{PT_NOTE, 0, 0x200, 0x10}}));
  EXPECT_FALSE(KernelMemory::open(&why, tmp.file("noload")));
  EXPECT_NE(why.find("no PT_LOAD"), std::string::npos) << why;
}

// --- the running kernel ----------------------------------------------------

// Why /proc/kcore cannot be read on this machine for a reason that is not a
// bug of kprof's (then the live test skips), or "".
std::string kcore_unavailable() {
  if (::geteuid() != 0) return "not root: /proc/kcore needs CAP_SYS_RAWIO";
  struct stat st {};
  if (::stat("/proc/kcore", &st) != 0) {
    if (errno == ENOENT) return "no /proc/kcore: this kernel is built without CONFIG_PROC_KCORE";
    return std::string("cannot stat /proc/kcore: ") + std::strerror(errno);
  }
  if (!S_ISREG(st.st_mode)) return "/proc/kcore is masked (not a regular file; a container?)";
  std::ifstream lockdown("/sys/kernel/security/lockdown");
  std::string mode;
  std::getline(lockdown, mode);
  if (mode.find("[confidentiality]") != std::string::npos) {
    return "kernel lockdown is 'confidentiality': /proc/kcore is refused";
  }
  return "";
}

std::string hex(std::span<const uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    if (!s.empty()) s += ' ';
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

// The live check: the text of functions that enable interrupts, read through
// KernelMemory, shows the rule's pattern. Which pattern depends on the kernel:
// 6.x's arch_local_irq_restore is `if (flags & X86_EFLAGS_IF) sti` (older ones
// `push %rdi; popf`); PARAVIRT_XXL kernels have a pv call site there that is
// patched at boot to `sti` plus a NOP (so the bytes must come from the live
// kernel, not vmlinux); native_safe_halt is `sti; hlt`. Not every function has
// a pattern the rule can see (an inlined sti followed by other code, or a
// Xen PV call), so the test requires it of at least one of several, and
// prints the bytes of each.
TEST(KernelMemoryLive, ReadsAnIrqEnablePointFromKernelText) {
  if (const std::string why = kcore_unavailable(); !why.empty()) GTEST_SKIP() << why;
  std::string why;
  const auto mem = KernelMemory::open(&why);
  ASSERT_TRUE(mem.has_value()) << why;
  ASSERT_FALSE(mem->segments().empty());

  const std::vector<std::string> wanted = {
      "_raw_spin_unlock_irqrestore",  "_raw_spin_unlock_irq", "_raw_read_unlock_irqrestore",
      "_raw_write_unlock_irqrestore", "native_safe_halt",     "native_irq_enable",
      "arch_local_irq_enable",        "pv_native_safe_halt",  "default_idle"};
  std::map<std::string, uint64_t> start;
  std::vector<uint64_t> addresses;  // every symbol's, to find where a function ends
  {
    std::ifstream kallsyms("/proc/kallsyms");
    ASSERT_TRUE(kallsyms) << "cannot read /proc/kallsyms";
    std::string line;
    while (std::getline(kallsyms, line)) {
      std::istringstream in(line);
      std::string addr, type, name;
      if (!(in >> addr >> type >> name)) continue;
      const uint64_t a = std::stoull(addr, nullptr, 16);
      if (a == 0) continue;
      addresses.push_back(a);
      if ((type == "t" || type == "T") &&
          std::find(wanted.begin(), wanted.end(), name) != wanted.end()) {
        start.emplace(name, a);
      }
    }
  }
  if (addresses.empty()) GTEST_SKIP() << "/proc/kallsyms shows no addresses (kptr_restrict)";
  ASSERT_FALSE(start.empty()) << "none of the functions looked for is in /proc/kallsyms";
  std::sort(addresses.begin(), addresses.end());

  int with_pattern = 0;
  for (const auto& [name, a] : start) {
    const auto next = std::upper_bound(addresses.begin(), addresses.end(), a);
    const uint64_t end = next == addresses.end() ? a + 64 : *next;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(end - a, 64));
    const auto bytes = mem->read(a, n);
    ASSERT_TRUE(bytes.has_value()) << name << " at " << std::hex << a << ": no segment holds it";
    EXPECT_TRUE(std::any_of(bytes->begin(), bytes->end(), [](uint8_t b) { return b != 0; }))
        << name << " reads as zeros";
    std::string hits;
    for (size_t i = 1; i <= bytes->size(); ++i) {
      if (follows_irq_enable(std::span(*bytes).first(i))) hits += " +" + std::to_string(i);
    }
    if (!hits.empty()) ++with_pattern;
    std::cout << name << " @" << std::hex << a << std::dec << " (" << n
              << " bytes): " << hex(*bytes)
              << "\n  enable pattern ends at:" << (hits.empty() ? " none" : hits) << "\n";
  }
  EXPECT_GE(with_pattern, 1) << "no interrupt-enable pattern in any of the functions above";

  // Addresses no segment holds: user space, the top of the address space.
  EXPECT_FALSE(mem->read(0, 16));
  EXPECT_FALSE(mem->read(0x400000, 1));
  EXPECT_FALSE(mem->read(UINT64_MAX, 2));
}

}  // namespace
}  // namespace kprof::symbolizer
