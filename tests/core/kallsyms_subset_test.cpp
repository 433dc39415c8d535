// kallsyms_subset (core/kallsyms_subset.h): the lines a profile keeps name
// every sampled address as the whole snapshot does.
#include "core/kallsyms_subset.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/kernel_symbols.h"

namespace kprof {
namespace {

constexpr std::string_view kKallsyms =
    "0000000000000000 A fixed_percpu_data\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81001000 t __do_foo\n"
    "ffffffff81001000 T do_foo\n"
    "ffffffff81001000 W do_foo_alias\n"
    "ffffffff81001800 T __ia32_sys_getpid\n"
    "ffffffff81001800 T __x64_sys_getpid\n"
    "ffffffff81002000 T do_bar\n"
    "ffffffff81002400 t do_bar_helper\n"
    "ffffffff81003000 D some_data\n"
    "ffffffff81003800 T do_baz\n"
    "ffffffff81003c00 T _etext\n"
    "ffffffff81004000 T last_text\n"
    "ffffffff82000000 D _sdata\n"
    "ffffffffc0a01000 t ext4_fn\t[ext4]\n"
    "ffffffffc0a01800 t ext4_helper\t[ext4]\n"
    "ffffffffc0a02000 T ext4_other\t[ext4]\n"
    "ffffffffc0a08000 t bpf_prog_1234_x\t[bpf]\n"
    "ffffffffc0b00100 t xfs_fn\t[xfs]\n"
    "ffffffffc0b00200 t xfs_next\t[xfs]\n";

constexpr std::string_view kModules =
    "ext4 65536 3 - Live 0xffffffffc0a00000\n"
    "xfs 4096 0 - Live 0xffffffffc0b00000 (OE)\n";

const std::vector<uint64_t> kHits = {
    0xffffffff81000010ULL,  // startup_64 (alias of _stext)
    0xffffffff81001010ULL,  // do_foo: three aliases
    0xffffffff81001900ULL,  // __x64_sys_getpid, the greater of two
    0xffffffff81003900ULL,  // do_baz
    0xffffffffc0a01010ULL,  // ext4_fn, in ext4's range
    0xffffffffc0a08010ULL,  // bpf_prog inside ext4's range: names ext4_other
    0xffffffffc0b00110ULL,  // xfs_fn
    0xffffffff80000000ULL,  // before every symbol: [unknown]
};

bool has_line(std::string_view text, std::string_view line) {
  return text.find(std::string(line) + "\n") != std::string_view::npos;
}

// What `text` says of the function covering ip: its start (the greatest
// function symbol address at or below ip that carries the name lookup()
// gives) and its size (to the next function symbol's address).
struct Span {
  uint64_t start = 0, size = 0;
  bool operator==(const Span&) const = default;
};
Span span_of(std::string_view text, std::string_view modules, uint64_t ip) {
  const auto ks = KernelSymbols::parse(text, modules);
  const std::string name(ks.lookup(ip).function);
  std::vector<std::pair<uint64_t, std::string>> funcs;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t nl = rest.find('\n');
    const std::string line(rest.substr(0, nl));
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    char type = 0;
    unsigned long long addr = 0;
    char sym[256];
    if (std::sscanf(line.c_str(), "%llx %c %255s", &addr, &type, sym) != 3) continue;
    if (std::string_view("tTwW").find(type) == std::string_view::npos || addr == 0) continue;
    funcs.emplace_back(addr, sym);
  }
  std::sort(funcs.begin(), funcs.end());
  Span s;
  for (const auto& [addr, n] : funcs) {
    if (addr <= ip && n == name) s.start = addr;
  }
  for (const auto& [addr, n] : funcs) {
    if (addr > s.start) {
      s.size = addr - s.start;
      break;
    }
  }
  return s;
}

void expect_same_names(std::string_view full, std::string_view subset, std::string_view modules,
                       const std::vector<uint64_t>& ips) {
  const auto a = KernelSymbols::parse(full, modules);
  const auto b = KernelSymbols::parse(subset, modules);
  for (uint64_t ip : ips) {
    EXPECT_EQ(a.lookup(ip).image, b.lookup(ip).image) << std::hex << ip;
    EXPECT_EQ(a.lookup(ip).function, b.lookup(ip).function) << std::hex << ip;
    EXPECT_EQ(a.in_boot_static_text(ip), b.in_boot_static_text(ip)) << std::hex << ip;
  }
  EXPECT_EQ(a.addresses_hidden(), b.addresses_hidden());
}

TEST(KallsymsSubset, KeepsEachHitFunctionAndItsNextNeighbour) {
  const std::string s = kallsyms_subset(kKallsyms, kModules, kHits);
  for (std::string_view line :
       {"ffffffff81000000 T startup_64", "ffffffff81001000 t __do_foo", "ffffffff81001000 T do_foo",
        "ffffffff81001000 W do_foo_alias",         // every alias of a hit address
        "ffffffff81001800 T __ia32_sys_getpid",    // do_foo's neighbour, and a hit
        "ffffffff81001800 T __x64_sys_getpid",     //
        "ffffffff81002000 T do_bar",               // __x64_sys_getpid's neighbour
        "ffffffff81003800 T do_baz",               //
        "ffffffff81003c00 T _etext",               // do_baz's neighbour
        "ffffffffc0a01000 t ext4_fn\t[ext4]",      //
        "ffffffffc0a01800 t ext4_helper\t[ext4]",  // its neighbour
        "ffffffffc0a02000 T ext4_other\t[ext4]",   // names the bpf address in ext4's range
        "ffffffffc0b00100 t xfs_fn\t[xfs]", "ffffffffc0b00200 t xfs_next\t[xfs]"}) {
    EXPECT_TRUE(has_line(s, line)) << line << "\n---\n" << s;
  }
  for (std::string_view line : {"ffffffff81002400 t do_bar_helper", "ffffffff81003000 D some_data",
                                "ffffffff82000000 D _sdata"}) {
    EXPECT_FALSE(has_line(s, line)) << line << "\n---\n" << s;
  }
  EXPECT_LT(s.size(), kKallsyms.size());
}

TEST(KallsymsSubset, KeepsTheAnchorsAndTheKernelTextSpan) {
  const std::vector<uint64_t> one = {0xffffffff81002010ULL};
  const std::string s = kallsyms_subset(kKallsyms, kModules, one);
  EXPECT_TRUE(has_line(s, "ffffffff81000000 T _text")) << s;
  EXPECT_TRUE(has_line(s, "ffffffff81000000 T _stext")) << s;
  // Each line once, in the text's order, though _stext is an anchor and the first function.
  EXPECT_EQ(s.find("T _stext\n"), s.rfind("T _stext\n")) << s;
  EXPECT_LT(s.find("_text\n"), s.find("_stext\n")) << s;
  EXPECT_TRUE(has_line(s, "ffffffff81003c00 T _etext")) << s;
  EXPECT_TRUE(has_line(s, "ffffffff81004000 T last_text")) << s;  // the kernel's last function
  EXPECT_TRUE(has_line(s, "ffffffff81002000 T do_bar")) << s;
  EXPECT_TRUE(has_line(s, "ffffffff81002400 t do_bar_helper")) << s;
  // in_boot_static_text() is the same everywhere, not only at the hits.
  const auto full = KernelSymbols::parse(kKallsyms, kModules);
  const auto sub = KernelSymbols::parse(s, kModules);
  for (uint64_t a = 0xffffffff80fff000ULL; a < 0xffffffff81006000ULL; a += 0x100) {
    EXPECT_EQ(full.in_boot_static_text(a), sub.in_boot_static_text(a)) << std::hex << a;
  }
}

TEST(KallsymsSubset, NamesEveryHitAsTheFullTextDoes) {
  const std::string s = kallsyms_subset(kKallsyms, kModules, kHits);
  expect_same_names(kKallsyms, s, kModules, kHits);
  for (uint64_t ip : kHits) {
    EXPECT_EQ(span_of(kKallsyms, kModules, ip), span_of(s, kModules, ip)) << std::hex << ip;
  }
  EXPECT_EQ(KernelSymbols::parse(s, kModules).lookup(0xffffffffc0a08010ULL).function, "ext4_other");
  EXPECT_EQ(KernelSymbols::parse(s, kModules).lookup(0xffffffff81001900ULL).function,
            "__x64_sys_getpid");
}

// The index made once gives each set of ips what the one-step call gives
// (the importer makes it while the records are walked, then asks once).
TEST(KallsymsSubset, OneIndexAnswersEachSetOfIps) {
  const KallsymsIndex index(kKallsyms, kModules);
  for (size_t n = 0; n <= kHits.size(); ++n) {
    const std::span<const uint64_t> ips(kHits.data(), n);
    EXPECT_EQ(index.subset(ips), kallsyms_subset(kKallsyms, kModules, ips)) << n << " ips";
  }
  EXPECT_NE(index.subset(kHits), index.subset(std::span<const uint64_t>(kHits.data(), 1)));
  const std::string hidden = "0000000000000000 T _text\n0000000000000000 T startup_64\n";
  EXPECT_EQ(KallsymsIndex(hidden, "").subset(kHits), "0000000000000000 T _text\n");
  EXPECT_EQ(KallsymsIndex("", "").subset(kHits), "");
}

TEST(KallsymsSubset, ModulesWithoutRanges) {
  // /proc/modules hidden or empty: module symbols cover what follows them.
  const std::string s = kallsyms_subset(kKallsyms, "", kHits);
  expect_same_names(kKallsyms, s, "", kHits);
}

TEST(KallsymsSubset, HiddenAddressesStayHidden) {
  const std::string hidden =
      "0000000000000000 T _text\n0000000000000000 T startup_64\n0000000000000000 t x\t[ext4]\n";
  const std::string s = kallsyms_subset(hidden, kModules, kHits);
  EXPECT_EQ(s, "0000000000000000 T _text\n");
  EXPECT_TRUE(KernelSymbols::parse(s, kModules).addresses_hidden());
  EXPECT_EQ(kallsyms_subset("", "", kHits), "");
}

TEST(KallsymsSubset, KernelIpsOfCountsAndFrames) {
  AddressCounts c;
  c.counts[{AddressCounts::kNoMapping, Mode::Kernel, 30}] = {1, 1};
  c.counts[{AddressCounts::kNoMapping, Mode::Kernel, 10}] = {1, 1};
  c.counts[{0, Mode::User, 20}] = {1, 1};
  c.frames.push_back({AddressCounts::kNoMapping, Mode::Kernel, 40});
  c.frames.push_back({AddressCounts::kNoMapping, Mode::Kernel, 10});
  c.frames.push_back({0, Mode::User, 50});
  EXPECT_EQ(kernel_ips(c), (std::vector<uint64_t>{10, 30, 40}));
}

TEST(KallsymsSubset, DigestTellsSnapshotsApart) {
  const std::string a(kKallsyms), b = a.substr(0, a.size() - 2) + "x\n";
  EXPECT_EQ(kallsyms_digest(a), kallsyms_digest(std::string(kKallsyms)));
  EXPECT_NE(kallsyms_digest(a), kallsyms_digest(b));
  EXPECT_NE(kallsyms_digest(a), kallsyms_digest(a + "\n"));
  EXPECT_NE(kallsyms_digest(""), kallsyms_digest(std::string(1, '\0')));
  EXPECT_EQ(kallsyms_digest(a).size(), 17 + std::to_string(a.size()).size());
}

// This machine's snapshot, when it shows addresses: random addresses in and
// around its functions, kernel and modules, name alike from the subset.
TEST(KallsymsSubset, ThisMachinesKallsyms) {
  std::ifstream k("/proc/kallsyms"), m("/proc/modules");
  const std::string full{std::istreambuf_iterator<char>(k), std::istreambuf_iterator<char>()};
  const std::string modules{std::istreambuf_iterator<char>(m), std::istreambuf_iterator<char>()};
  const auto ks = KernelSymbols::parse(full, modules);
  if (ks.size() < 1000 || ks.addresses_hidden()) GTEST_SKIP() << "no readable /proc/kallsyms";
  std::vector<uint64_t> addrs;
  for (std::string_view rest = full; !rest.empty();) {
    const size_t nl = rest.find('\n');
    unsigned long long a = 0;
    if (std::sscanf(std::string(rest.substr(0, 16)).c_str(), "%llx", &a) == 1 && a) {
      addrs.push_back(a);
    }
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
  std::mt19937_64 rng(42);
  std::vector<uint64_t> ips;
  for (int i = 0; i < 3000; ++i) ips.push_back(addrs[rng() % addrs.size()] + rng() % 512);
  std::sort(ips.begin(), ips.end());
  const std::string s = kallsyms_subset(full, modules, ips);
  EXPECT_LT(s.size(), full.size() / 4);
  expect_same_names(full, s, modules, ips);
}

}  // namespace
}  // namespace kprof
