// Diffs of pasted top-N listings (issue 22, part 4): a row missing from a
// cut list is below that list's last share, not 0, so its change is a bound
// and never "+++" / "---"; a listing of shares only exports no counts, no
// interval level and no lost samples it does not know.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "export/tables.h"
#include "importer/import.h"
#include "importer/text_table.h"
#include "report/diff.h"

namespace kprof {
namespace {

// Each list is cut (its shares add up to under 100%): A's last share is
// 1.0%, B's 1.5%.
constexpr const char* kSharesA = "%        symbol name\n50.0  f\n20.0  g\n5.0  h\n1.0  k\n";
constexpr const char* kSharesB = "%        symbol name\n50.0  f\n20.0  g\n4.0  x\n2.0  h\n1.5  m\n";
// The same with sample counts (10,000 samples a list, so 1% = 100).
constexpr const char* kCountsA =
    "samples  %        symbol name\n5000  50.0  f\n2000  20.0  g\n500  5.0  h\n100  1.0  k\n";
constexpr const char* kCountsB =
    "samples  %        symbol name\n5000  50.0  f\n2000  20.0  g\n400  4.0  x\n200  2.0  h\n"
    "110  1.1  m\n";

DiffRun listing_run(const char* text, const std::string& name) {
  std::vector<std::string> warnings;
  return diff_run_of(importer::listing_profile(importer::parse_listing(text, name), name),
                     warnings);
}

DiffResult diff_of(const char* a, const char* b) {
  DiffInput in;
  in.sides = {{"A", {listing_run(a, "a.txt")}}, {"B", {listing_run(b, "b.txt")}}};
  return diff_profiles(in);
}

const DiffRow& row_named(const DiffResult& r, const std::string& name) {
  for (const DiffRow& row : r.rows) {
    if (row.name == name) return row;
  }
  throw std::runtime_error("no row " + name);
}

TEST(ListingDiff, MissingRowIsBelowTheListsLastShareNotZero) {
  const DiffResult r = diff_of(kSharesA, kSharesB);
  ASSERT_EQ(r.noise[1], NoiseMethod::None);
  // x: 4% in B, not in A (so at most 1%): it grew by 3 to 4 pp, at least 4x.
  const DiffRow& x = row_named(r, "x");
  EXPECT_TRUE(x.cells[0].unlisted);
  EXPECT_DOUBLE_EQ(x.cells[0].pct_max, 1.0);
  const DiffCompare& cx = x.vs_base[1];
  EXPECT_EQ(cx.sided, Sidedness::Both);
  EXPECT_TRUE(cx.bounded);
  EXPECT_NEAR(cx.bounds_lo, 3.0, 1e-9);
  EXPECT_NEAR(cx.bounds_hi, 4.0, 1e-9);
  EXPECT_NEAR(cx.change.delta_pp, 3.0, 1e-9);  // the end nearest no change
  EXPECT_EQ(cx.ratio_bound, RatioBound::AtLeast);
  EXPECT_NEAR(cx.ratio.value_or(0), 4.0, 1e-9);
  // k: 1% in A, not in B (so at most 1.5%): it may not have changed at all.
  const DiffCompare& ck = row_named(r, "k").vs_base[1];
  EXPECT_TRUE(ck.bounded);
  EXPECT_NEAR(ck.bounds_lo, -1.0, 1e-9);
  EXPECT_NEAR(ck.bounds_hi, 0.5, 1e-9);
  EXPECT_EQ(ck.change.delta_pp, 0.0);
  EXPECT_EQ(ck.ratio_bound, RatioBound::Unknown);
  // h: listed in both: an exact change.
  const DiffCompare& ch = row_named(r, "h").vs_base[1];
  EXPECT_FALSE(ch.bounded);
  EXPECT_NEAR(ch.change.delta_pp, -3.0, 1e-9);

  std::ostringstream text;
  write_diff_text(text, r);
  const std::string t = text.str();
  const size_t table = t.find("\n", t.find("noise for B"));  // the rows, after the legend
  ASSERT_NE(table, std::string::npos) << t;
  EXPECT_EQ(t.find("+++", table), std::string::npos) << t;
  EXPECT_EQ(t.find("---", table), std::string::npos) << t;
  EXPECT_NE(t.find("≤1.0000"), std::string::npos) << t;
  EXPECT_NE(t.find("≥+3.0000"), std::string::npos) << t;
  EXPECT_NE(t.find("[+3.0000, +4.0000]"), std::string::npos) << t;
  EXPECT_EQ(t.find("100%"), std::string::npos) << t;
  EXPECT_EQ(t.find("% interval"), std::string::npos) << "no interval without counts\n" << t;
  EXPECT_EQ(t.find("marked 'noise'"), std::string::npos) << "promises noise marks it cannot print\n"
                                                         << t;
}

TEST(ListingDiff, SharesOnlyExportsNoInventedCounts) {
  const DiffResult r = diff_of(kSharesA, kSharesB);
  std::ostringstream js;
  write_diff_json(js, r);
  const nlohmann::json j = nlohmann::json::parse(js.str());
  for (const auto& p : j["profiles"]) {
    EXPECT_TRUE(p["samples"].is_null()) << p.dump();
    EXPECT_TRUE(p["lost"].is_null()) << "a listing does not say what was lost: " << p.dump();
    EXPECT_FALSE(p.contains("interval_level")) << p.dump();
  }
  for (const auto& row : j["rows"]) {
    for (const auto& side : row["sides"]) EXPECT_TRUE(side["samples"].is_null()) << row.dump();
    const auto& b = row["sides"][1];
    EXPECT_NE(b["sided"], "+++") << row.dump();
    EXPECT_NE(b["sided"], "---") << row.dump();
    EXPECT_TRUE(b["p"].is_null() && b["q"].is_null() && b["ci_lo_pp"].is_null()) << row.dump();
    if (row["name"] == "x") {
      EXPECT_EQ(row["sides"][0]["pct_at_most"], 1.0);
      EXPECT_NEAR(b["bounds_lo_pp"].get<double>(), 3.0, 1e-9);
      EXPECT_EQ(b["ratio_bound"], "at least");
    }
  }
  std::ostringstream csv;
  write_diff_csv(csv, r);
  std::istringstream lines(csv.str());
  std::string header, line;
  std::getline(lines, header);
  EXPECT_NE(header.find("A samples"), std::string::npos);
  while (std::getline(lines, line)) {
    // "image,name,raw,skid,config,A %,A samples,...": the samples field is empty.
    size_t comma = 0;
    for (int i = 0; i < 6; ++i) comma = line.find(',', comma) + 1;
    EXPECT_EQ(line[comma], ',') << line;
  }
}

TEST(ListingDiff, CountedListingTestsTheEndNearestNoChange) {
  const DiffResult r = diff_of(kCountsA, kCountsB);
  ASSERT_EQ(r.noise[1], NoiseMethod::Sampling);
  EXPECT_EQ(r.summary[0].samples, 10000u) << "the shares say what the counts are of";
  // x: 400 of 10,000 against at most 100: changed even at that most.
  const DiffCompare& cx = row_named(r, "x").vs_base[1];
  EXPECT_TRUE(cx.bounded);
  EXPECT_EQ(std::string(verdict_name(cx, r.noise[1])), "changed");
  EXPECT_GT(cx.change.lo_pp, 0);
  EXPECT_LE(cx.change.lo_pp, 3.0);
  EXPECT_GE(cx.change.hi_pp, 4.0) << "the interval covers every share A could have had";
  // m: 110 against at most 100: not found, though 110 against 0 would be.
  const DiffCompare& cm = row_named(r, "m").vs_base[1];
  EXPECT_TRUE(cm.bounded);
  EXPECT_NE(std::string(verdict_name(cm, r.noise[1])), "changed");
  // k: the bounds hold no change.
  const DiffCompare& ck = row_named(r, "k").vs_base[1];
  EXPECT_EQ(ck.change.p, 1.0);
  EXPECT_NE(std::string(verdict_name(ck, r.noise[1])), "changed");
}

// Counts and shares that imply an impossible total (bad input): no total is
// taken from them, and nothing overflows; the rows read as listed.
TEST(ListingDiff, AbsurdSharesGiveNoInferredTotal) {
  const char* text = "samples  %        symbol name\n9000000000000000000  0.0001  f\n";
  const Profile p = importer::listing_profile(importer::parse_listing(text, "bad.txt"), "bad.txt");
  ASSERT_TRUE(p.histogram.has_value());
  ASSERT_EQ(p.histogram->rows.size(), 1u) << "no [not listed] row from an absurd total";
  EXPECT_EQ(p.histogram->rows[0].samples, 9000000000000000000u);
}

}  // namespace
}  // namespace kprof
