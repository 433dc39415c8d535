#include "importer/text_table.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "tests/support/text_files.h"

// The perf fixtures (tests/importer/data/listing_perf_*.txt) are real `perf
// report --stdio` output (perf 6.1) of a small two-thread C++ program
// recorded with `perf record -e cpu-clock` (-g, -F 999, and -e
// cpu-clock,task-clock for some). The opreport snippets below are real
// output quoted on mailing lists and in bug reports; lines an email client
// wrapped are joined again.
namespace kprof::importer {
namespace {

std::string fixture(const std::string& name) {
  return test::read_text(std::string(KPROF_SOURCE_DIR "/tests/importer/data/") + name);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// "13.2561" -> 132561, "60.97" -> 609700: a share in millionths.
uint64_t millionths(const std::string& decimal) {
  const size_t dot = decimal.find('.');
  std::string frac = dot == std::string::npos ? "" : decimal.substr(dot + 1);
  frac.resize(4, '0');
  return std::stoull(decimal.substr(0, dot)) * 10000 + std::stoull(frac);
}

const FunctionCount* find_row(const TableListing& l, const std::string& image,
                              const std::string& function, Mode mode) {
  for (const auto& r : l.histogram.rows) {
    if (l.histogram.images.at(r.image).name == image && r.function == function && r.mode == mode) {
      return &r;
    }
  }
  return nullptr;
}

uint64_t samples_of(const TableListing& l, const std::string& image, const std::string& function,
                    Mode mode) {
  const FunctionCount* r = find_row(l, image, function, mode);
  EXPECT_NE(r, nullptr) << image << " " << function;
  return r ? r->samples : 0;
}

bool has_note(const TableListing& l, const std::string& part) {
  for (const auto& n : l.notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

uint64_t sum_samples(const TableListing& l) {
  uint64_t s = 0;
  for (const auto& r : l.histogram.rows) s += r.samples;
  return s;
}

// ---------------------------------------------------------------- perf report

// What a perf fixture's first section says, read independently of the
// parser: top-level rows are the lines starting "  NN.NN%"; the Shared
// Object and Symbol values start where their names do in the heading.
struct PerfExpect {
  std::string event;
  bool samples_column = false, children = false;
  size_t row_lines = 0;
  std::map<std::tuple<std::string, std::string, Mode>, uint64_t> rows;  // summed
};

PerfExpect read_perf_fixture(const std::string& text) {
  PerfExpect e;
  const auto lines = lines_of(text);
  size_t h = 0;
  while (h < lines.size() && lines[h].rfind("# Overhead", 0) != 0 &&
         lines[h].rfind("# Children", 0) != 0) {
    ++h;
  }
  EXPECT_LT(h, lines.size());
  for (size_t i = 0; i < h; ++i) {
    if (lines[i].rfind("# Samples:", 0) == 0) {
      const size_t q = lines[i].find('\'');
      e.event = lines[i].substr(q + 1, lines[i].rfind('\'') - q - 1);
    }
  }
  const std::string& heading = lines[h];
  e.samples_column = heading.find("Samples") != std::string::npos;
  e.children = heading.find("Children") != std::string::npos;
  const size_t dso_at = heading.find("Shared Object"), sym_at = heading.find("Symbol");
  const size_t text_at = heading.find("Command") != std::string::npos ? heading.find("Command")
                         : dso_at != std::string::npos                ? dso_at
                                                                      : sym_at;
  for (size_t i = h + 1; i < lines.size() && lines[i].rfind("# Samples:", 0) != 0; ++i) {
    const std::string& line = lines[i];
    const size_t b = line.find_first_not_of(' ');
    if (b == 0 || b == std::string::npos || line.find('%') == std::string::npos ||
        line.find_first_not_of("0123456789.", b) != line.find('%')) {
      continue;  // not a top-level row
    }
    ++e.row_lines;
    std::istringstream nums(line.substr(0, text_at));
    std::vector<std::string> n;
    for (std::string t; nums >> t;) n.push_back(t);
    const std::string self = e.children ? n.at(1) : n.at(0);
    uint64_t value = millionths(self.substr(0, self.size() - 1));
    if (e.samples_column) value = std::stoull(n.at(e.children ? 2 : 1));
    const std::string sym = line.substr(sym_at);
    const char level = sym.at(1);
    std::string function = trim(sym.substr(3));
    if (function.rfind("0x", 0) == 0 ||
        function.find_first_not_of("0123456789abcdef") == std::string::npos) {
      function = "[unknown]";  // an address perf could not name
    }
    std::string image = level == 'k' ? "[kernel]" : "[unknown]";
    if (dso_at != std::string::npos) {
      image = trim(line.substr(dso_at, sym_at - dso_at));
      if (image == "[kernel.kallsyms]") image = "[kernel]";
    }
    e.rows[{image, function, level == 'k' ? Mode::Kernel : Mode::User}] += value;
  }
  return e;
}

class PerfFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(PerfFixture, RowsAreTheFirstSectionsTopLevelRowsSummed) {
  const std::string text = fixture(GetParam());
  ASSERT_FALSE(text.empty()) << GetParam();
  const PerfExpect e = read_perf_fixture(text);
  ASSERT_GT(e.rows.size(), 10u);
  EXPECT_TRUE(looks_like_listing(text));
  const TableListing l = parse_listing(text, GetParam());
  EXPECT_EQ(l.format, "perf report");
  EXPECT_EQ(l.event, e.event);
  EXPECT_EQ(l.has_counts, e.samples_column);
  EXPECT_FALSE(l.period.has_value());
  EXPECT_FALSE(has_note(l, "not rows")) << "every line is a row, a comment or call graph";
  ASSERT_EQ(l.histogram.rows.size(), e.rows.size());
  for (const auto& [key, value] : e.rows) {
    const auto& [image, function, mode] = key;
    EXPECT_EQ(samples_of(l, image, function, mode), value) << image << " " << function;
  }
  for (const auto& r : l.histogram.rows) EXPECT_EQ(r.period, 0u);
  if (!l.has_counts) {
    EXPECT_LE(sum_samples(l), 1005000u);  // Self shares of one event: 100% give or take rounding
    EXPECT_GE(sum_samples(l), 995000u);
  }
  if (l.total) {
    EXPECT_EQ(sum_samples(l), *l.total);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Real, PerfFixture,
    ::testing::Values("listing_perf_flat.txt", "listing_perf_samples_period.txt",
                      "listing_perf_sort_sym.txt", "listing_perf_dso_sym.txt",
                      "listing_perf_children.txt", "listing_perf_no_children.txt",
                      "listing_perf_folded.txt", "listing_perf_two_events.txt"));

TEST(PerfReport, DefaultColumnsGiveSharesCommandsMergeKernelIsNamed) {
  const std::string text = fixture("listing_perf_flat.txt");
  const TableListing l = parse_listing(text, "flat");
  EXPECT_FALSE(l.has_counts);
  EXPECT_FALSE(l.total.has_value()) << "'# Samples: 1K' is not exact";
  EXPECT_EQ(samples_of(l, "busy", "spin", Mode::User), 609700u);  // "60.97%  busy  busy  [.] spin"
  // "busy worker" (a Command with a space) and "busy" both have exc_page_fault.
  uint64_t sum = 0;
  size_t lines = 0;
  for (const auto& line : lines_of(text)) {
    if (line.find("[k] exc_page_fault") == std::string::npos) continue;
    ++lines;
    sum += millionths(trim(line.substr(0, line.find('%'))));
  }
  EXPECT_EQ(lines, 2u);
  EXPECT_EQ(samples_of(l, "[kernel]", "exc_page_fault", Mode::Kernel), sum);
  EXPECT_TRUE(find_row(l, "busy", "work::Box<int>::sum", Mode::User));
  EXPECT_TRUE(find_row(l, "libgcc_s.so.1", "[unknown]", Mode::User)) << "[.] 0x00000000000038d0";
  for (const auto& img : l.histogram.images) EXPECT_NE(img.name, "[kernel.kallsyms]");
}

TEST(PerfReport, SymbolsWithSpacesAreWhole) {
  const TableListing l = parse_listing(fixture("listing_perf_samples_period.txt"), "n");
  bool found = false;
  for (const auto& r : l.histogram.rows) {
    if (r.function.rfind("std::_Rb_tree<std::__cxx11::basic_string<char, std::char_traits<char>",
                         0) == 0) {
      found = true;
      EXPECT_TRUE(r.function.ends_with(">::_M_erase")) << r.function;
      EXPECT_EQ(r.samples, 4u);
    }
  }
  EXPECT_TRUE(found);
}

TEST(PerfReport, ExactSampleTotalAndCounts) {
  const TableListing l = parse_listing(fixture("listing_perf_samples_period.txt"), "n");
  EXPECT_TRUE(l.has_counts);
  ASSERT_TRUE(l.total.has_value());
  EXPECT_EQ(*l.total, 279u);  // "# Samples: 279  of event 'cpu-clock'"
  EXPECT_EQ(sum_samples(l), 279u);
  EXPECT_EQ(samples_of(l, "busy", "spin", Mode::User), 166u);
}

TEST(PerfReport, SortSymHasNoImageColumn) {
  const TableListing l = parse_listing(fixture("listing_perf_sort_sym.txt"), "sym");
  for (const auto& r : l.histogram.rows) {
    const std::string& image = l.histogram.images.at(r.image).name;
    EXPECT_EQ(image, r.mode == Mode::Kernel ? "[kernel]" : "[unknown]") << r.function;
  }
  EXPECT_EQ(samples_of(l, "[unknown]", "spin", Mode::User), 609700u);
}

TEST(PerfReport, ChildrenListingReadsSelfAndSkipsTheCallGraph) {
  const std::string text = fixture("listing_perf_children.txt");
  const TableListing l = parse_listing(text, "children");
  EXPECT_TRUE(has_note(l, "Self"));
  EXPECT_TRUE(has_note(l, "call-graph lines"));
  const PerfExpect e = read_perf_fixture(text);
  EXPECT_LE(l.histogram.rows.size(), e.row_lines);
  // "13.67%    11.87%  busy  busy  [.] map_churn": Self, not Children.
  EXPECT_EQ(samples_of(l, "busy", "map_churn", Mode::User), 118700u);
  // "83.83%     0.00%  ...  [.] __libc_start_call_main": a 0 share is kept.
  EXPECT_EQ(samples_of(l, "libc.so.6", "__libc_start_call_main", Mode::User), 0u);
  // "[unknown]  [.] 0000000000000000"
  EXPECT_TRUE(find_row(l, "[unknown]", "[unknown]", Mode::User));
}

TEST(PerfReport, NoChildrenCallGraphWithSamples) {
  const TableListing l = parse_listing(fixture("listing_perf_no_children.txt"), "g");
  EXPECT_TRUE(l.has_counts);
  EXPECT_TRUE(has_note(l, "call-graph lines"));
  EXPECT_EQ(samples_of(l, "busy", "spin", Mode::User), 698u);
  EXPECT_EQ(sum_samples(l), 1163u);  // perf record: "(1163 samples)"
}

TEST(PerfReport, TwoEventsReadTheFirstAndNameTheOther) {
  const std::string text = fixture("listing_perf_two_events.txt");
  const TableListing l = parse_listing(text, "two");
  EXPECT_EQ(l.event, "cpu-clock");
  EXPECT_TRUE(has_note(l, "'task-clock'"));
  // spin's first line is the cpu-clock section's; the task-clock one differs.
  std::vector<uint64_t> spin;
  for (const auto& line : lines_of(text)) {
    if (line.find("[.] spin") == std::string::npos) continue;
    std::istringstream in(line);
    std::string share, count;
    in >> share >> count;
    spin.push_back(std::stoull(count));
  }
  ASSERT_EQ(spin.size(), 2u);
  ASSERT_NE(spin[0], spin[1]);
  EXPECT_EQ(samples_of(l, "busy", "spin", Mode::User), spin[0]);
}

// The same rows without the "# ....." rule (split at whitespace), quoted
// ("> "), or with no comment lines at all give the same histogram.
TEST(PerfReport, WithoutRuleQuotedOrHeadlessTheSameRows) {
  for (const char* name : {"listing_perf_flat.txt", "listing_perf_no_children.txt"}) {
    const std::string text = fixture(name);
    const TableListing ruled = parse_listing(text, name);
    std::string no_rule, quoted, headless;
    for (const auto& line : lines_of(text)) {
      if (line.rfind("# ....", 0) != 0) no_rule += line + "\n";
      quoted += "> " + line + "\n";
      if (line.rfind("#", 0) != 0) headless += line + "\n";
    }
    EXPECT_EQ(parse_listing(no_rule, name).histogram, ruled.histogram) << name;
    EXPECT_EQ(parse_listing(quoted, name).histogram, ruled.histogram) << name;
    if (!ruled.has_counts) {
      const TableListing h = parse_listing(headless, name);
      EXPECT_EQ(h.histogram, ruled.histogram) << name;
      EXPECT_TRUE(has_note(h, "no column heading"));
    }
  }
}

// perf report -v: the symbol's address and origin before its mark.
TEST(PerfReport, VerboseSymbols) {
  const TableListing l = parse_listing(
      "# Overhead  Command      Shared Object                                   Symbol\n"
      "# ........  ...........  ..............................................  "
      "..................\n"
      "#\n"
      "    59.50%  busy         /tmp/ttp/busy                                   0x1743             "
      "B "
      "[.] spin(unsigned long)\n"
      "     9.68%  busy         /usr/lib/x86_64-linux-gnu/libc.so.6             0x163978           "
      "D "
      "[.] __memcmp_evex_movbe\n",
      "v");
  EXPECT_EQ(samples_of(l, "/tmp/ttp/busy", "spin(unsigned long)", Mode::User), 595000u);
  EXPECT_EQ(samples_of(l, "/usr/lib/x86_64-linux-gnu/libc.so.6", "__memcmp_evex_movbe", Mode::User),
            96800u);
}

TEST(PerfReport, ModeMarksAndModules) {
  const TableListing l = parse_listing(
      "# Overhead  Command  Shared Object      Symbol\n"
      "# ........  .......  .................  ......................\n"
      "    40.00%  qemu     [guest.kernel]     [g] native_safe_halt\n"
      "    20.00%  qemu     libfoo.so          [u] guest_loop\n"
      "    10.00%  qemu     [hypervisor]       [H] vmexit\n"
      "    10.00%  dd-worker-1  [ext4]           [k] ext4_da_write_end\n"
      "    10.00%  dd       [kernel.kallsyms]  [k] 0xffffffff8100abcd\n"
      "    10.00%  dd       /x/ext4.ko.xz      [k] ext4_bio_write_folio\n",
      "marks");
  EXPECT_EQ(samples_of(l, "[guest.kernel]", "native_safe_halt", Mode::GuestKernel), 400000u);
  EXPECT_EQ(samples_of(l, "libfoo.so", "guest_loop", Mode::GuestUser), 200000u);
  EXPECT_EQ(samples_of(l, "[hypervisor]", "vmexit", Mode::Hypervisor), 100000u);
  // A Command wider than its column ("dd-worker-1") falls back to whitespace splitting.
  EXPECT_EQ(samples_of(l, "[ext4]", "ext4_da_write_end", Mode::Kernel), 100000u);
  EXPECT_EQ(samples_of(l, "[kernel]", "[unknown]", Mode::Kernel), 100000u);
  EXPECT_EQ(samples_of(l, "[ext4]", "ext4_bio_write_folio", Mode::Kernel), 100000u);
}

// ---------------------------------------------------------------- opreport

// git mailing list, 2007: two events, image and app name columns.

TEST(Opreport, HeaderLinesAndTwoEvents) {
  EXPECT_TRUE(looks_like_listing(fixture("listing_opreport_git_two_events.txt")));
  const TableListing l = parse_listing(fixture("listing_opreport_git_two_events.txt"), "git");
  EXPECT_EQ(l.format, "opreport");
  EXPECT_EQ(l.cpu, "PIII, speed 1600 MHz (estimated)");
  EXPECT_EQ(l.event, "CPU_CLK_UNHALTED");
  EXPECT_EQ(l.period, 100000u);
  EXPECT_TRUE(l.has_counts);
  EXPECT_TRUE(has_note(l, "2 events (CPU_CLK_UNHALTED, INST_RETIRED); read the first"));
  EXPECT_EQ(l.histogram.rows.size(), 6u);
  EXPECT_EQ(samples_of(l, "libz.so.1.2.3", "inflate_table", Mode::User), 12816u);
  EXPECT_EQ(samples_of(l, "git-log", "pretty_print_commit", Mode::User), 3782u);
  EXPECT_EQ(sum_samples(l), 12816u + 12186 + 5228 + 3855 + 3782 + 2022);
}

// LKML, 2007: kernel modules found as .ko files, and "(no symbols)".
TEST(Opreport, ModulesKernelAndNoSymbols) {
  const TableListing l = parse_listing(
      "samples  %        image name               app name                 symbol name\n"
      "10901    18.2805  arc4.ko                  arc4                     .text\n"
      "5046      8.4619  ppp_async.ko             ppp_async                ppp_async_push\n"
      "4865      8.1584  pptp                     pptp                     (no symbols)\n"
      "4382      7.3484  arc4.ko                  arc4                     arc4_set_key\n"
      "4331      7.2629  vmlinux                  vmlinux                  sha_transform\n"
      "4203      7.0482  libfb.so                 libfb.so                 fbCopyAreammx\n",
      "vpn");
  EXPECT_EQ(samples_of(l, "[arc4]", ".text", Mode::Kernel), 10901u);
  EXPECT_EQ(samples_of(l, "[arc4]", "arc4_set_key", Mode::Kernel), 4382u);
  EXPECT_EQ(samples_of(l, "[ppp_async]", "ppp_async_push", Mode::Kernel), 5046u);
  EXPECT_EQ(samples_of(l, "pptp", "[unknown]", Mode::User), 4865u);
  EXPECT_EQ(samples_of(l, "[kernel]", "sha_transform", Mode::Kernel), 4331u);
  EXPECT_EQ(samples_of(l, "libfb.so", "fbCopyAreammx", Mode::User), 4203u);
}

// LKML, 2010: modules opreport found no file for ("drm ... /drm"), deleted
// images whose symbol is their own path, a .vmlinux kernel file.
TEST(Opreport, ModulePlaceholdersAndDeletedImages) {
  const TableListing l = parse_listing(fixture("listing_opreport_xorg_modules.txt"), "xorg");
  EXPECT_EQ(samples_of(l, "[kernel]", "find_vma", Mode::Kernel), 126807u);
  EXPECT_EQ(samples_of(l, "Xorg (deleted)", "[unknown]", Mode::User), 11888u);
  EXPECT_EQ(samples_of(l, "[drm]", "[unknown]", Mode::Kernel), 8660u);
  EXPECT_EQ(samples_of(l, "[radeon]", "[unknown]", Mode::Kernel), 6228u);
  EXPECT_EQ(l.histogram.rows.size(), 6u);
  EXPECT_TRUE(has_note(l, "(CPU_CLK_UNHALTED, INST_RETIRED_ANY_P)"));
}

// LKML, 2009: a kernel file named "*.vmlinux" wider than its column; an
// image named by its own path as the symbol.
TEST(Opreport, VmlinuxFileAndImagePathSymbol) {
  const TableListing l = parse_listing(
      "samples  %        samples  %        image name               symbol name\n"
      "260476   63.6862  257843   75.2725  libz.so.1.2.3            /lib/libz.so.1.2.3\n"
      "16587     4.0555  3636      1.0615  libc-2.9.so              memcpy\n"
      "3679      0.8995  1108      0.3235  kernel-2.6.28.4_2.vmlinux d_validate\n",
      "libz");
  EXPECT_EQ(samples_of(l, "libz.so.1.2.3", "[unknown]", Mode::User), 260476u);
  EXPECT_EQ(samples_of(l, "[kernel]", "d_validate", Mode::Kernel), 3679u);
}

TEST(Opreport, ModuleRulesAreNarrow) {
  const TableListing l = parse_listing(
      "samples  %        image name               symbol name\n"
      "40       40.0000  /ext4                    ext4_readdir\n"
      "30       30.0000  ext4                     ext4_fn\n"  // a bare name: a user binary
      "20       20.0000  /lib/modules/6.1.0/kernel/fs/xfs/xfs.ko xfs_iread\n"
      "10       10.0000  /usr/lib/libext4.so      helper\n",
      "modules");
  EXPECT_EQ(samples_of(l, "[ext4]", "ext4_readdir", Mode::Kernel), 40u);
  EXPECT_EQ(samples_of(l, "ext4", "ext4_fn", Mode::User), 30u);
  EXPECT_EQ(samples_of(l, "[xfs]", "xfs_iread", Mode::Kernel), 20u);
  EXPECT_EQ(samples_of(l, "/usr/lib/libext4.so", "helper", Mode::User), 10u);
}

// A bug report, 2017: demangled C++ symbols hold spaces.
TEST(Opreport, DemangledSymbolsAreTheRestOfTheLine) {
  const TableListing l = parse_listing(fixture("listing_opreport_mkldnn_cxx.txt"), "mkldnn");
  EXPECT_EQ(
      samples_of(l, "libmkldnn.so.0.9.0",
                 "mkldnn::impl::memory_desc_wrapper::off_v(int const*, bool) const", Mode::User),
      30596u);
  EXPECT_EQ(samples_of(l, "libmkl_avx2.so", "anonymous symbol from section .text", Mode::User),
            11036189u);
  EXPECT_EQ(l.cpu, "Intel Broadwell microarchitecture, speed 3600 MHz (estimated)");
}

// A tool's documentation, 2012: the vma column and no-vmlinux.
TEST(Opreport, VmaColumnAndNoVmlinux) {
  const TableListing l = parse_listing(
      "  vma      samples  %        image name               symbol name\n"
      "  0006d430 1238     24.6123  libc-2.14.1.so           fgetc\n"
      "  00400d30 1017     20.2187  sha                      _ZN4SHA119ProcessMessageBlockEv\n"
      "  00000000 109       2.1670  no-vmlinux               /no-vmlinux\n"
      "  ...\n",
      "sha");
  EXPECT_EQ(samples_of(l, "libc-2.14.1.so", "fgetc", Mode::User), 1238u);
  EXPECT_EQ(samples_of(l, "sha", "_ZN4SHA119ProcessMessageBlockEv", Mode::User), 1017u);
  EXPECT_EQ(samples_of(l, "[kernel]", "[unknown]", Mode::Kernel), 109u);
  EXPECT_TRUE(has_note(l, "skipped 1 line that is not a row"));
}

// A mailing list, 2014: four events, symbols only (one image).
TEST(Opreport, SymbolOnlyFourEvents) {
  const TableListing l = parse_listing(fixture("listing_opreport_arm_four_events.txt"), "arm");
  EXPECT_TRUE(has_note(l,
                       "4 events (CPU_CYCLES, PC_BRANCH_MIS_PRED, PC_BRANCH_MIS_USED, "
                       "PC_IMM_BRANCH); read the first, CPU_CYCLES"));
  ASSERT_EQ(l.histogram.images.size(), 1u);
  EXPECT_EQ(l.histogram.images[0].name, "[unknown]");
  EXPECT_EQ(samples_of(l, "[unknown]", "cftmdl(int, int, float*, float*)", Mode::Unknown), 411607u);
  EXPECT_EQ(samples_of(l, "[unknown]",
                       "v_ChirpData(float (*) [2], float (*) [2], int, double, int, double)",
                       Mode::Unknown),
            159969u);
}

// LKML, 2006: `opreport -c` reads its primary rows only.
TEST(Opreport, CallGraphListingReadsPrimaryRows) {
  const TableListing l = parse_listing(fixture("listing_opreport_dlm_callgraph.txt"), "dlm");
  EXPECT_EQ(l.event, "GLOBAL_POWER_EVENTS");
  EXPECT_EQ(l.period, 240000u);
  EXPECT_EQ(l.histogram.rows.size(), 2u);
  EXPECT_EQ(samples_of(l, "libbz2.so.1.0.2", "[unknown]", Mode::User), 17071831u);
  EXPECT_EQ(samples_of(l, "[kernel]", "__dlm_lookup_lockres", Mode::Kernel), 2638066u);
  EXPECT_TRUE(has_note(l, "skipped 2 caller/callee lines"));
}

// A blog post, 2022: `opreport -c -% -f -g` adds "linenr info".
TEST(Opreport, LinenrInfoColumn) {
  const TableListing l = parse_listing(
      "samples  %        linenr info                 image name               symbol name\n"
      "-------------------------------------------------------------------------------\n"
      "138966   94.4293  (no location information)   /home/u/sixth/mountain test\n"
      "  138966   94.4293  (no location information)   /home/u/sixth/mountain test [self]\n"
      "12        0.0082  (no location information)   /usr/lib/x86_64-linux-gnu/libc.so.6 "
      "__printf_fp_l\n",
      "mountain");
  EXPECT_EQ(samples_of(l, "/home/u/sixth/mountain", "test", Mode::User), 138966u);
  EXPECT_EQ(samples_of(l, "/usr/lib/x86_64-linux-gnu/libc.so.6", "__printf_fp_l", Mode::User), 12u);
}

// LKML, 2005, quoted in a reply: the prefix is taken off; an app name column
// with no image column names the image; text after the table is counted.
TEST(Opreport, QuotedListingWithAppNameOnly) {
  const TableListing l = parse_listing(fixture("listing_opreport_bsq_quoted.txt"), "bsq");
  EXPECT_EQ(l.event, "BSQ_CACHE_REFERENCE");
  EXPECT_EQ(l.histogram.rows.size(), 3u);
  EXPECT_EQ(samples_of(l, "[kernel]", "journal_add_journal_head", Mode::Kernel), 80049u);
  EXPECT_TRUE(has_note(l, "skipped 2 lines that are not rows"));
}

// LKML, 2004: the rows without their heading ("samples % image symbol").
constexpr std::string_view kTop =
    "==> 10000 processes: top -d 0 -b > /dev/null <==\n"
    "35855    36.0707  vmlinux                  get_tgid_list\n"
    "9366      9.4223  vmlinux                  pid_alive\n"
    "7077      7.1196  libc-2.3.3.so            _IO_vfscanf_internal\n"
    "1409      1.4175  libc-2.3.3.so            __i686.get_pc_thunk.bx\n";

TEST(Opreport, HeadlessRows) {
  const TableListing l = parse_listing(kTop, "top");
  EXPECT_EQ(l.format, "opreport");
  EXPECT_TRUE(l.has_counts);
  EXPECT_TRUE(has_note(l, "no column heading"));
  EXPECT_EQ(samples_of(l, "[kernel]", "get_tgid_list", Mode::Kernel), 35855u);
  EXPECT_EQ(samples_of(l, "libc-2.3.3.so", "__i686.get_pc_thunk.bx", Mode::User), 1409u);
  EXPECT_EQ(l.histogram.rows.size(), 4u);
  std::string quoted;
  for (const auto& line : lines_of(std::string(kTop))) quoted += "> " + line + "\n";
  EXPECT_EQ(parse_listing(quoted, "quoted").histogram, l.histogram);
}

TEST(Opreport, DuplicatesAreSummedAndOddLinesCounted) {
  const TableListing l = parse_listing(
      "samples  %        image name               app name                 symbol name\n"
      "27543    13.2561  vmlinux                  vmlinux                  intel_idle\n"
      "1200      0.5776  libc-2.12.so             postgres                 memcpy\n"
      "this line is not a row\n"
      "300       0.1444  libc-2.12.so             bash                     memcpy\n"
      "12       bad      libc-2.12.so             bash                     memmove\n"
      "0         0.0000  anon (tgid:4211 range:0x7f01a000-0x7f01c000) java (no symbols)\n"
      "7         0.0034  vmlinux-2.6.33           vmlinux-2.6.33           0xffffffff81234567\n",
      "dup");
  EXPECT_EQ(samples_of(l, "libc-2.12.so", "memcpy", Mode::User), 1500u);
  EXPECT_EQ(samples_of(l, "[anon]", "[unknown]", Mode::User), 0u);
  EXPECT_EQ(samples_of(l, "[kernel]", "[unknown]", Mode::Kernel), 7u);
  EXPECT_EQ(l.histogram.rows.size(), 4u);
  EXPECT_EQ(l.notes, std::vector<std::string>{"skipped 2 lines that are not rows"});
}

TEST(Opreport, SharesOnlyWithExponents) {
  const TableListing l = parse_listing(
      "%        image name               symbol name\n"
      "99.9989  libz.so.1.2.3            inflate\n"
      "8.2e-04  update                   predict\n"
      "2.4e-04  libldap-2.3.so.0.2.31    ldap_init\n",
      "shares");
  EXPECT_FALSE(l.has_counts);
  EXPECT_EQ(samples_of(l, "libz.so.1.2.3", "inflate", Mode::User), 999989u);
  EXPECT_EQ(samples_of(l, "update", "predict", Mode::User), 8u);  // 0.00082% = 8.2 millionths
  EXPECT_EQ(samples_of(l, "libldap-2.3.so.0.2.31", "ldap_init", Mode::User), 2u);
}

// The seed's side-by-side table, split into one shares-only listing per kernel.
TEST(Opreport, Seed001HalvesCompare) {
  TableListing half[2];
  const char* names[2] = {"listing_seed001_base.txt", "listing_seed001_new.txt"};
  for (int h = 0; h < 2; ++h) {
    const std::string text = fixture(names[h]);
    ASSERT_FALSE(text.empty());
    EXPECT_TRUE(looks_like_listing(text));
    half[h] = parse_listing(text, names[h]);
    EXPECT_EQ(half[h].format, "opreport");
    EXPECT_EQ(half[h].event, "CPU_CLK_UNHALTED");
    EXPECT_FALSE(half[h].has_counts);
    EXPECT_TRUE(half[h].notes.empty());
    size_t data_lines = 0;
    for (const auto& line : lines_of(text)) {
      if (line.empty() || line[0] < '0' || line[0] > '9') continue;
      ++data_lines;
      std::istringstream in(line);
      std::string share, function;
      in >> share >> function;
      EXPECT_EQ(samples_of(half[h], "[unknown]", function, Mode::Unknown), millionths(share));
    }
    EXPECT_EQ(data_lines, 34u);  // the seed's table has 34 rows
    EXPECT_EQ(half[h].histogram.rows.size(), data_lines);
  }
  EXPECT_EQ(samples_of(half[0], "[unknown]", "mpt_interrupt", Mode::Unknown), 14696u);
  EXPECT_EQ(samples_of(half[1], "[unknown]", "mpt_interrupt", Mode::Unknown), 9540u);
  EXPECT_EQ(samples_of(half[0], "[unknown]", "<dbms>", Mode::Unknown), 705642u);
  EXPECT_EQ(samples_of(half[1], "[unknown]", "<dbms>", Mode::Unknown), 694350u);
  // Functions in one top list only.
  EXPECT_EQ(find_row(half[1], "[unknown]", "kmem_cache_zalloc", Mode::Unknown), nullptr);
  EXPECT_NE(find_row(half[1], "[unknown]", "pick_next_highest_task_rt", Mode::Unknown), nullptr);
}

// ---------------------------------------------------------------- errors, sniffing

TEST(ParseListing, NoRowsIsAnError) {
  const std::string expected =
      "notes.txt: no opreport or perf report rows found; expected an 'opreport -l' or 'perf "
      "report --stdio' listing";
  for (const std::string& text :
       {std::string(), test::read_text(KPROF_SOURCE_DIR "/samples/README.md"),
        std::string("samples  %        image name               symbol name\n"),
        std::string("# Overhead  Command  Shared Object  Symbol\n#\n# (Tip: ...)\n"),
        std::string(
            "Cycles% 2.6.18-164.el5 Cycles% 2.6.33-rc4\n70.5642 <dbms> 69.4350 <dbms>\n")}) {
    try {
      parse_listing(text, "notes.txt");
      ADD_FAILURE() << "no error for: " << text.substr(0, 60);
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), expected);
    }
  }
}

TEST(LooksLikeListing, HeadingsYesOtherTextAndBinaryNo) {
  EXPECT_TRUE(looks_like_listing("CPU: x\nsamples  %        symbol name\n1 100.0000 main\n"));
  EXPECT_TRUE(looks_like_listing("%        symbol name\n70.5642  <dbms>\n"));
  EXPECT_TRUE(looks_like_listing("> # Children      Self  Command\n"));
  EXPECT_TRUE(looks_like_listing(fixture("listing_perf_sort_sym.txt")));

  EXPECT_FALSE(looks_like_listing(""));
  const std::string readme = test::read_text(KPROF_SOURCE_DIR "/samples/README.md");
  ASSERT_GT(readme.size(), 1000u);
  EXPECT_FALSE(looks_like_listing(readme));
  const std::string flat = fixture("listing_perf_flat.txt");
  EXPECT_FALSE(looks_like_listing(flat.substr(0, flat.find("# Overhead"))))
      << "comment lines alone are not a heading";
  EXPECT_FALSE(looks_like_listing("We took samples and the % of time in each symbol name.\n"));
  EXPECT_FALSE(looks_like_listing(std::string("KPROF\r\n\x1a", 8)));
  const std::string kprof = test::read_text(KPROF_SOURCE_DIR "/samples/rt.kprof");
  ASSERT_EQ(kprof.substr(0, 8), std::string("KPROF\r\n\x1a", 8));
  EXPECT_FALSE(looks_like_listing(kprof));
  EXPECT_FALSE(looks_like_listing(kprof.substr(0, 8) + "\n# Overhead  Symbol\n"));
  std::string perf_data("PERFILE2\x68\0\0\0\0\0\0\0\x88\0\0\0\0\0\0\0", 24);
  EXPECT_FALSE(looks_like_listing(perf_data + "\n# Overhead  Symbol\n"));
  // Only the first 4 KiB are looked at.
  EXPECT_FALSE(looks_like_listing(std::string(5000, '\n') + "# Overhead  Symbol\n"));
}

}  // namespace
}  // namespace kprof::importer
