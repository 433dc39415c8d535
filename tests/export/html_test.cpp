// The HTML pages (export/html.h): the data island holds the same rows and
// verdicts as the diff result, no name can become markup, the page stays
// small, and a bad output path is one line. The page drawn in a real browser
// is tests/browser's job.
#include "export/html.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "export/tables.h"
#include "tests/export/export_support.h"
#include "tests/report/test_support.h"
#include "tests/support/text_files.h"

namespace kprof {
namespace {

using nlohmann::json;

constexpr const char* kIslandOpen = "<script type=\"application/json\" id=\"kprof-data\">";

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The island's JSON, parsed as a browser's JSON.parse would read it.
json island(const std::string& page) {
  const size_t start = page.find(kIslandOpen);
  if (start == std::string::npos) return json();
  const size_t from = start + std::string(kIslandOpen).size();
  const size_t end = page.find("</script>", from);
  if (end == std::string::npos) return json();
  return json::parse(page.substr(from, end - from), nullptr, false);
}

DiffRun run_of(const std::string& release, const Histogram& h) {
  DiffRun run;
  run.source = release + ".kprof";
  run.run = test::sample_run();
  run.run.kernel_release = release;
  run.summary = test::sample_summary();
  run.histogram = h;
  return run;
}

// Two kernels: kfree grows from 10% to 30% of 10,000 samples; memcpy stays.
DiffInput two_kernels(const std::string& odd_name = "memcpy") {
  Histogram a, b;
  a.images = b.images = {{"[kernel]", ""}, {"/bin/app", ""}};
  a.rows = {{0, "kfree", Mode::Kernel, 1000, 0},
            {1, odd_name, Mode::User, 2000, 0},
            {1, "main", Mode::User, 7000, 0}};
  b.rows = {{0, "kfree.cold", Mode::Kernel, 3000, 0},
            {1, odd_name, Mode::User, 2000, 0},
            {1, "main", Mode::User, 5000, 0}};
  DiffInput in;
  in.sides.push_back({"", {run_of("6.1.0", a)}});
  in.sides.push_back({"", {run_of("6.2.0", b)}});
  return in;
}

std::string diff_page(const DiffInput& in, DiffResult* result_out = nullptr) {
  const DiffResult r = diff_profiles(in);
  std::ostringstream out;
  write_diff_html(out, in, r, diff_flame(in));
  if (result_out) *result_out = r;
  return out.str();
}

// Issue 24: the page gets what differs besides the workload, every option.
TEST(HtmlPage, IslandHoldsTheEnvironmentDifferences) {
  DiffInput in = two_kernels();
  Environment a;
  a.facts = {{"clocksource", "tsc", "/sys/x", true}};
  a.config = {{"PREEMPT_VOLUNTARY", "y"}, {"XFS_FS", "m"}};
  Environment b = a;
  b.facts[0].value = "hpet";
  b.config = {{"PREEMPT_RT", "y"}, {"XFS_FS", "y"}};
  in.sides[0].runs[0].environment = a;
  in.sides[1].runs[0].environment = b;
  const json j = island(diff_page(in));
  const json& env = j["environment"];
  EXPECT_EQ(env["facts"][0]["key"], "clocksource");
  EXPECT_EQ(env["facts"][0]["values"], json({"tsc", "hpet"}));
  ASSERT_EQ(env["config"].size(), 3u) << "every differing option";
  EXPECT_EQ(env["config"][0]["option"], "PREEMPT_RT");
  EXPECT_EQ(env["config"][2]["option"], "XFS_FS");
  EXPECT_FALSE(env["same"]);
}

TEST(HtmlPage, IslandHoldsEveryRowWithTheDiffsVerdicts) {
  DiffResult r;
  const DiffInput in = two_kernels();
  const std::string page = diff_page(in, &r);
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos) << "no network: a strict CSP";
  const json j = island(page);
  ASSERT_TRUE(j.is_object()) << "island does not parse";
  EXPECT_EQ(j["kind"], "diff");
  ASSERT_EQ(j["rows"].size(), r.rows.size());
  const json& strings = j["strings"];
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const json& row = j["rows"][i];
    EXPECT_EQ(strings[row["n"].get<size_t>()], r.rows[i].name);
    EXPECT_EQ(strings[row["i"].get<size_t>()], r.rows[i].image);
    EXPECT_EQ(row["cmp"][1]["v"], verdict_name(r.rows[i].vs_base[1], r.noise[1]));
    EXPECT_NEAR(row["cmp"][1]["d"].get<double>(), r.rows[i].vs_base[1].change.delta_pp, 1e-4);
    EXPECT_NEAR(row["pct"][1].get<double>(), r.rows[i].cells[1].pct, 1e-4);
  }
  EXPECT_EQ(strings[j["rows"][0]["n"].get<size_t>()], "kfree") << "largest change first";
  EXPECT_EQ(j["rows"][0]["cmp"][1]["v"], "changed");
  ASSERT_EQ(j["rows"][0]["raw"].size(), 2u) << "kfree.cold merged into kfree";
  EXPECT_EQ(strings[j["rows"][0]["raw"][1].get<size_t>()], "kfree.cold");
  EXPECT_EQ(j["sides"][0]["label"], "6.1.0");
  EXPECT_EQ(j["sides"][1]["noise"], "sampling");
  EXPECT_NE(j["sides"][1]["noise_text"].get<std::string>().find("Benjamini"), std::string::npos);
  // Without call chains the flame graph is image -> function, with verdicts.
  const json& flame = j["flame"];
  EXPECT_FALSE(flame["chains"].get<bool>());
  EXPECT_EQ(flame["totals"], json::array({10000, 10000}));
  bool kfree_red = false;
  for (const json& node : flame["nodes"]) {
    if (strings[node["n"].get<size_t>()] == "kfree") {
      kfree_red = node["cmp"][1]["v"] == "changed" && node["cmp"][1]["d"].get<double>() > 0;
    }
  }
  EXPECT_TRUE(kfree_red);
}

TEST(HtmlPage, NamesWithMarkupStayText) {
  const std::string evil = "operator<< <T>(a&b, \"q\", 'x') </script><script>alert(1)</script>";
  const std::string page = diff_page(two_kernels(evil));
  EXPECT_EQ(count_of(page, "</script>"), 2u) << "only the island's and the script's own";
  EXPECT_EQ(page.find("alert(1)</"), std::string::npos);
  EXPECT_EQ(page.find("<T>"), std::string::npos);
  const json j = island(page);
  ASSERT_TRUE(j.is_object());
  const json& strings = j["strings"];
  EXPECT_NE(std::find(strings.begin(), strings.end(), evil), strings.end())
      << "the name survives exactly, as data";
}

TEST(HtmlPage, ScriptBuildsTheDomWithoutParsingMarkup) {
  for (const char* script :
       {"common.js", "header.js", "chart.js", "tables.js", "flame.js", "main.js"}) {
    const std::string js =
        test::read_text(std::string(KPROF_SOURCE_DIR) + "/export/page/" + script);
    ASSERT_GT(js.size(), 300u) << script;
    for (const char* sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                             "eval(", "new Function"}) {
      EXPECT_EQ(js.find(sink), std::string::npos) << script << " uses " << sink;
    }
  }
}

TEST(HtmlPage, TenThousandRowsStayUnderFiveMegabytes) {
  Histogram a, b;
  a.images = b.images = {{"[kernel]", ""}, {"/usr/lib/x86_64-linux-gnu/libc.so.6", ""}};
  for (uint32_t i = 0; i < 10000; ++i) {
    const std::string name =
        "std::vector<std::pair<unsigned long, std::string>>::_M_realloc_insert_" +
        std::to_string(i);
    // From 1 in 200,000 to 1 in 5,000 samples: a long tail, as real profiles have.
    const uint64_t k = 50 + (i * 7919u) % 1950;
    a.rows.push_back({i % 2, name, Mode::User, k, 0});
    b.rows.push_back({i % 2, name, Mode::User, k + i % 11, 0});
  }
  DiffInput in;
  in.sides.push_back({"", {run_of("6.1.0", a)}});
  in.sides.push_back({"", {run_of("6.2.0", b)}});
  DiffResult r;
  const std::string page = diff_page(in, &r);
  ASSERT_EQ(r.rows.size(), 10000u);
  EXPECT_LT(page.size(), 5u << 20) << page.size() << " bytes";
  std::cout << "10,000-row diff page: " << page.size() << " bytes\n";
  const json j = island(page);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["rows"].size(), 10000u);
  EXPECT_GT(j["flame"]["nodes"].size(), 4000u) << "the frames wide enough to draw";
  EXPECT_GT(j["flame"]["pruned"].get<size_t>(), 1000u) << "the tail under 1 in 10,000 samples";
}

TEST(HtmlPage, ReportPageHoldsEveryRowAndTheStacks) {
  const Stacks st = test::bench_stacks();
  Profile p;
  p.path = "bench.kprof";
  p.run = test::sample_run();
  p.summary = test::sample_summary();
  ProfileHistogram hist;
  hist.histogram = leaf_histogram(st);
  hist.stacks = st;
  std::ostringstream out;
  write_report_html(out, p, hist);
  const json j = island(out.str());
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["kind"], "report");
  EXPECT_EQ(j["rows"].size(), report_rows(hist.histogram, SortKey::Function).size());
  EXPECT_TRUE(j["flame"]["chains"].get<bool>());
  EXPECT_EQ(j["flame"]["totals"], json::array({100}));
  EXPECT_EQ(j["flame"]["nodes"][0]["s"], json::array({100}));
  EXPECT_FALSE(j.contains("timeline")) << "no timeline given, none on the page";

  // Given the run's slices, the island holds them: edges in seconds from
  // the start, rates, and each row's shares in %.
  Timeline t;
  t.start_ns = 1'000'000'000;
  t.edges = {1'000'000'000, 1'500'000'000, 3'000'000'000};
  t.in_slice = {50, 50};
  t.rate = {100, 33.3};
  t.rows.push_back({"/bin/x", "hot", 80, {0.5, 0.3}});
  t.total = 100;
  std::ostringstream with;
  write_report_html(with, p, hist, &t);
  const json k = island(with.str());
  ASSERT_TRUE(k.contains("timeline")) << with.str().substr(0, 2000);
  EXPECT_EQ(k["timeline"]["edges_s"], json::array({0.0, 0.5, 2.0}));
  EXPECT_EQ(k["timeline"]["in_slice"], json::array({50, 50}));
  ASSERT_EQ(k["timeline"]["rows"].size(), 1u);
  EXPECT_EQ(k["strings"][k["timeline"]["rows"][0]["n"].get<size_t>()], "hot");
  EXPECT_EQ(k["timeline"]["rows"][0]["share"], json::array({50.0, 30.0}));
}

TEST(HtmlCli, WritesPagesAndAnUnwritablePathIsOneLine) {
  const std::string dir = test::temp_dir("html_cli");
  const Stacks st = test::bench_stacks();
  const std::string prof = test::write_profile(dir + "/run.kprof", test::sample_run(),
                                               test::sample_summary(), leaf_histogram(st), st);
  const std::string q = test::shell_quote(prof);
  test::CommandResult r = test::run_cli(
      KPROF_BINARY, "diff " + q + " " + q + " --html " + test::shell_quote(dir + "/d.html"), dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Matched diff"), std::string::npos) << "the text diff still prints";
  const json d = island(test::read_text(dir + "/d.html"));
  ASSERT_TRUE(d.is_object());
  EXPECT_TRUE(d["flame"]["chains"].get<bool>());

  r = test::run_cli(KPROF_BINARY, "report " + q + " --html -", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(island(r.out)["kind"], "report") << "'-' writes the page alone on stdout";

  for (const std::string& cmd : {"diff " + q + " " + q, "report " + q}) {
    r = test::run_cli(KPROF_BINARY, cmd + " --html " + test::shell_quote(dir + "/no/such/x.html"),
                      dir);
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no/such/x.html"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kprof
