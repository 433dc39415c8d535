// The loader every view uses (importer/import.h): formats told apart by their
// first bytes, listings as profiles, and how the diff treats them — counts
// get sampling statistics, shares only get no verdict.
#include "importer/import.h"

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "report/diff.h"
#include "report/report.h"
#include "report/summary.h"
#include "tests/core/test_util.h"
#include "tests/support/cli_run.h"
#include "tests/support/text_files.h"

namespace kprof::importer {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A listing of (function, value) rows in "[kernel]": counts or millionths.
TableListing listing(const std::vector<std::pair<std::string, uint64_t>>& rows, bool counts) {
  TableListing t;
  t.format = "opreport";
  t.event = "CPU_CLK_UNHALTED";
  t.has_counts = counts;
  t.histogram.images.push_back({"[kernel]", ""});
  for (const auto& [name, v] : rows) t.histogram.rows.push_back({0, name, Mode::Kernel, v, 0});
  return t;
}

TEST(Sniff, TellsFormatsApartByTheirFirstBytes) {
  EXPECT_EQ(sniff_format(bytes_of(std::string("KPROF\r\n\x1a\1\0\0\0", 12))), InputFormat::Kprof);
  EXPECT_EQ(sniff_format(bytes_of("PERFILE2\x68\0\0\0")), InputFormat::PerfData);
  EXPECT_EQ(sniff_format(bytes_of("samples  %        image name  symbol name\n"
                                  "27543    13.2561  vmlinux     intel_idle\n")),
            InputFormat::Listing);
  EXPECT_EQ(sniff_format(bytes_of("# Overhead  Command  Shared Object  Symbol\n")),
            InputFormat::Listing);
  EXPECT_EQ(sniff_format(bytes_of("KPRO")), InputFormat::Unknown);
  EXPECT_EQ(sniff_format(bytes_of("hello, this is a README\n")), InputFormat::Unknown);
  EXPECT_EQ(sniff_format({}), InputFormat::Unknown);
}

TEST(ListingProfile, SharesOnlyHaveNoCountsAndNoSummary) {
  Profile p = listing_profile(listing({{"schedule", 780700}, {"mpt_interrupt", 1469600}}, false),
                              "base.txt");
  EXPECT_EQ(p.path, "base.txt");
  EXPECT_EQ(p.run.source_format, "opreport");
  EXPECT_FALSE(p.run.sample_counts);
  EXPECT_FALSE(p.summary.has_value());
  EXPECT_TRUE(p.status.complete);
  ASSERT_TRUE(p.histogram.has_value());
  EXPECT_EQ(p.histogram->rows.size(), 2u);
  // The report leaves the samples column out: the values are not counts.
  ReportOptions opts;
  std::ostringstream out;
  write_report(out, p, histogram_of(p), opts);
  EXPECT_NE(out.str().find("not listed (shares only)"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("1,469,600"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("1469600"), std::string::npos) << out.str();
}

TEST(ListingProfile, CountsMakeASummary) {
  TableListing t = listing({{"a", 300}, {"b", 100}}, true);
  Profile p = listing_profile(t, "x.txt");
  EXPECT_TRUE(p.run.sample_counts);
  ASSERT_TRUE(p.summary.has_value());
  EXPECT_EQ(p.summary->samples, 400u);
  t.total = 1000;  // perf's "# Samples: 1000": rows below the cut-off are not listed
  EXPECT_EQ(listing_profile(t, "x.txt").summary->samples, 1000u);
}

DiffResult diff_two(Profile a, Profile b) {
  DiffInput in;
  std::vector<std::string> warnings;
  in.sides.resize(2);
  in.sides[0].runs.push_back(diff_run_of(std::move(a), warnings));
  in.sides[1].runs.push_back(diff_run_of(std::move(b), warnings));
  return diff_profiles(in);
}

const DiffRow* row_named(const DiffResult& r, const std::string& name) {
  for (const DiffRow& row : r.rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

TEST(ListingDiff, SharesOnlyGetDeltasButNoVerdict) {
  // Seed 001's mpt_interrupt: 1.4696% -> 0.9540%.
  const DiffResult r = diff_two(
      listing_profile(listing({{"mpt_interrupt", 14696}, {"rest", 985304}}, false), "base.txt"),
      listing_profile(listing({{"mpt_interrupt", 9540}, {"rest", 990460}}, false), "new.txt"));
  ASSERT_EQ(r.noise.size(), 2u);
  EXPECT_EQ(r.noise[1], NoiseMethod::None);
  EXPECT_EQ(r.labels[0], "base.txt");
  EXPECT_EQ(r.labels[1], "new.txt");
  const DiffRow* row = row_named(r, "mpt_interrupt");
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(row->vs_base[1].change.delta_pp, 0.9540 - 1.4696, 1e-9);
  EXPECT_STREQ(verdict_name(row->vs_base[1], r.noise[1]), "no verdict");
  std::ostringstream out;
  write_diff_text(out, r);
  EXPECT_NE(out.str().find("no counts: no noise verdict"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("changed"), std::string::npos) << out.str();
}

TEST(ListingDiff, CountsGetSamplingStatisticsFromTheListedCounts) {
  // 2,000 of 10,000 samples -> 1,000 of 10,000: far beyond sampling noise.
  const DiffResult r =
      diff_two(listing_profile(listing({{"hot", 2000}, {"rest", 8000}}, true), "a.txt"),
               listing_profile(listing({{"hot", 1000}, {"rest", 9000}}, true), "b.txt"));
  EXPECT_EQ(r.noise[1], NoiseMethod::Sampling);
  const DiffRow* row = row_named(r, "hot");
  ASSERT_NE(row, nullptr);
  EXPECT_STREQ(verdict_name(row->vs_base[1], r.noise[1]), "changed");
  std::ostringstream out;
  write_diff_text(out, r);
  EXPECT_NE(out.str().find("sampling statistics from the listed counts"), std::string::npos)
      << out.str();
}

TEST(LoadAny, NamesAFileOfNoKnownFormat) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/kprof_load_any_notes.txt";
  test::write_text(path, "some notes\n");
  try {
    load_any(path, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + " is not a kprof profile, a perf.data file"),
              std::string::npos)
        << e.what();
  }
  test::write_text(path, "");
  EXPECT_THROW(load_any(path, {}), Error);
  EXPECT_THROW(load_any(dir + "/kprof_no_such_file", {}), Error);
  EXPECT_EQ(file_format(dir + "/kprof_no_such_file"), InputFormat::Unknown);
  std::filesystem::remove(path);
}

// ------------------------------------------------------------------ the CLI

namespace cli {

// A directory of this test's own, removed when the test ends: run_cli
// writes stdout and stderr there, and ctest runs tests side by side.
using kprof::testing::TempDir;

std::string data(const std::string& name) {
  return std::string(KPROF_SOURCE_DIR) + "/tests/importer/data/" + name;
}

// Seed 001's two kernels, split into two shares-only opreport listings:
// `kprof diff` labels them by file name, gives Δ, and no verdict.
TEST(ListingCli, DiffOfTheSeedHalvesHasDeltasAndNoVerdict) {
  const TempDir dir;
  const test::CliRun d =
      test::run_cli(KPROF_BINARY,
                    "diff " + test::shell_quote(data("listing_seed001_base.txt")) + " " +
                        test::shell_quote(data("listing_seed001_new.txt")),
                    dir.path().string());
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("listing_seed001_base.txt"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("no counts: no noise verdict"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("mpt_interrupt"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("-0.5156"), std::string::npos) << "1.4696% -> 0.9540%\n" << d.out;
  EXPECT_EQ(d.out.find("changed"), std::string::npos) << d.out;
}

// perf report -n lists counts: the report shows them and its header says
// what the listing is.
TEST(ListingCli, ReportOfAPerfListingWithCounts) {
  const TempDir dir;
  const test::CliRun r = test::run_cli(
      KPROF_BINARY, "report " + test::shell_quote(data("listing_perf_no_children.txt")),
      dir.path().string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("a perf report listing: sample counts as listed"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("698"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spin"), std::string::npos) << r.out;
}

}  // namespace cli
}  // namespace
}  // namespace kprof::importer
