// The table exports and the differential folded stacks: kprof diff --folded
// line by line, and the CSV of report --children / --callers and of diff read
// back by a real reader, Python's csv module, against kprof's own numbers.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "export/export.h"
#include "report/callgraph.h"
#include "tests/export/export_support.h"
#include "tests/report/test_support.h"

namespace kprof {
namespace {

using test::shell_quote;

test::CommandResult kprof(const std::string& args, const std::string& dir) {
  return test::run_cli(KPROF_BINARY, args, dir);
}

// bench_stacks with `hash_block` renamed to a compiler clone and its samples
// scaled, and one stack only this side has.
Stacks renamed_stacks() {
  Stacks st = test::bench_stacks();
  st.frames[2].function = "hash_block.isra.0";
  for (Stack& s : st.stacks) s.samples *= 2;
  st.frames.push_back({0, "fresh", Mode::User});
  st.stacks.push_back({0, {static_cast<uint32_t>(st.frames.size() - 1), 0, 9}, 7, 7000});
  return st;
}

std::string write_g_profile(const std::string& path, const Stacks& st) {
  return test::write_profile(path, test::sample_run(), test::sample_summary(), leaf_histogram(st),
                             st);
}

std::map<std::string, std::pair<uint64_t, uint64_t>> parse_diff_folded(const std::string& text) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t b = line.rfind(' '), a = line.rfind(' ', b - 1);
    EXPECT_NE(a, std::string::npos) << line;
    if (a == std::string::npos) continue;
    out[line.substr(0, a)] = {std::stoull(line.substr(a + 1, b - a - 1)),
                              std::stoull(line.substr(b + 1))};
  }
  return out;
}

TEST(DiffFolded, TwoCountsPerStackWithClonesMatched) {
  std::ostringstream out;
  write_diff_folded(out, {test::bench_stacks()}, {renamed_stacks(), test::bench_stacks()});
  const auto lines = parse_diff_folded(out.str());
  // hash_block.isra.0 folds into hash_block: one line, counts of both sides.
  const auto& hot = lines.at("bench;__libc_start_main;main;compute;hash_block");
  EXPECT_EQ(hot.first, 55u);            // 50 + 5 (two bench processes)
  EXPECT_EQ(hot.second, 2 * 55u + 55);  // the renamed run doubled, plus a plain run
  EXPECT_EQ(lines.at("bench;__libc_start_main;main;fresh"), (std::pair<uint64_t, uint64_t>{0, 7}));
  uint64_t base = 0, next = 0;
  for (const auto& [stack, c] : lines) {
    base += c.first;
    next += c.second;
  }
  EXPECT_EQ(base, test::bench_stacks().total_samples());
  EXPECT_EQ(next, renamed_stacks().total_samples() + test::bench_stacks().total_samples());
}

TEST(DiffFolded, CliWritesOnlyTheLinesToStdoutAndWantsTwoKernels) {
  const std::string dir = test::temp_dir("diff_folded_cli");
  const Stacks a = test::bench_stacks(), b = renamed_stacks();
  const std::string pa = write_g_profile(dir + "/a.kprof", a),
                    pb = write_g_profile(dir + "/b.kprof", b);
  test::CommandResult r =
      kprof("diff " + shell_quote(pa) + " " + shell_quote(pb) + " --folded -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ostringstream want;
  write_diff_folded(want, {a}, {b});
  EXPECT_EQ(r.out, want.str()) << "stdout holds the folded lines alone";
  r = kprof("diff " + shell_quote(pa) + " " + shell_quote(pb) + " " + shell_quote(pa) +
                " --folded " + shell_quote(dir + "/x.folded"),
            dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("two kernels"), std::string::npos) << r.err;
  r = kprof("diff " + shell_quote(pa) + " " + shell_quote(pb) + " --csv - --json -", dir);
  EXPECT_EQ(r.status, 2) << r.err;
}

// Python's csv module reads FILE and prints "field|field|..." per row.
std::string python_csv(const std::string& file, const std::string& dir) {
  const test::CommandResult r = test::run_shell(
      "python3 -c 'import csv,sys\n"
      "for row in csv.reader(open(sys.argv[1], newline=\"\")): print(\"|\".join(row))' " +
          shell_quote(file),
      dir);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

TEST(TablesCsv, PythonReadsTheCallGraphCsvAsKprofCountsIt) {
  const std::string dir = test::temp_dir("csv_python");
  Stacks st = test::bench_stacks();
  st.frames[1].function = "compute(int, \"quoted\", std::map<a, b>)";  // commas and quotes
  const std::string p = write_g_profile(dir + "/g.kprof", st);
  ASSERT_EQ(
      kprof("report " + shell_quote(p) + " --children --csv " + shell_quote(dir + "/c.csv"), dir)
          .status,
      0);
  std::string want = "self_samples|self_percent|total_samples|total_percent|image|function|mode\n";
  const double total = static_cast<double>(st.total_samples());
  for (const ChildrenRow& row : children_rows(st)) {
    char pct[2][32];
    std::snprintf(pct[0], sizeof pct[0], "%.4f", 100.0 * row.self_samples / total);
    std::snprintf(pct[1], sizeof pct[1], "%.4f", 100.0 * row.total_samples / total);
    want += std::to_string(row.self_samples) + "|" + pct[0] + "|" +
            std::to_string(row.total_samples) + "|" + pct[1] + "|" + row.image + "|" +
            row.function + "|" + mode_name(row.mode) + "\n";
  }
  EXPECT_EQ(python_csv(dir + "/c.csv", dir), want);

  ASSERT_EQ(kprof("report " + shell_quote(p) + " --callers hash_block --csv " +
                      shell_quote(dir + "/t.csv"),
                  dir)
                .status,
            0);
  const std::string tree = python_csv(dir + "/t.csv", dir);
  EXPECT_NE(tree.find("1|hash_block;compute(int, \"quoted\", std::map<a, b>)|55|100.0000|"),
            std::string::npos)
      << tree;
}

// report --sort pid,function: Python reads one row per (process, function),
// the column headed pid, and the rows hold every sample.
TEST(TablesCsv, PythonReadsTheProcessSortCsv) {
  const std::string dir = test::temp_dir("csv_python_process");
  const Stacks st = test::bench_stacks();
  const std::string p = write_g_profile(dir + "/g.kprof", st);
  ASSERT_EQ(kprof("report " + shell_quote(p) + " --sort pid,function --csv " +
                      shell_quote(dir + "/p.csv"),
                  dir)
                .status,
            0);
  const std::string rows = python_csv(dir + "/p.csv", dir);
  ASSERT_EQ(rows.rfind("samples|percent|pid|function|mode\n", 0), 0u) << rows;
  uint64_t sum = 0;
  size_t lines = 0;
  for (size_t at = rows.find('\n') + 1; at < rows.size(); at = rows.find('\n', at) + 1) {
    sum += std::stoull(rows.substr(at, rows.find('|', at) - at));
    ++lines;
  }
  for (const StackProcess& process : st.processes) {  // each process by pid and name
    EXPECT_NE(rows.find("|" + std::to_string(process.pid) + " " + process.name + "|"),
              std::string::npos)
        << rows;
  }
  EXPECT_EQ(sum, st.total_samples());
  EXPECT_GT(lines, 1u);
}

TEST(TablesCsv, PythonReadsTheDiffCsv) {
  const std::string dir = test::temp_dir("csv_python_diff");
  const Stacks a = test::bench_stacks(), b = renamed_stacks();
  const std::string pa = write_g_profile(dir + "/a.kprof", a),
                    pb = write_g_profile(dir + "/b.kprof", b);
  ASSERT_EQ(kprof("diff " + shell_quote(pa) + " " + shell_quote(pb) + " --csv " +
                      shell_quote(dir + "/d.csv"),
                  dir)
                .status,
            0);
  std::istringstream rows(python_csv(dir + "/d.csv", dir));
  std::string header, line;
  std::getline(rows, header);
  EXPECT_EQ(header.rfind("image|name|raw_names|", 0), 0u) << header;
  bool merged = false;
  size_t n = 0;
  while (std::getline(rows, line)) {
    ++n;
    merged |= line.rfind("/usr/bin/bench|hash_block|hash_block; hash_block.isra.0|", 0) == 0;
  }
  EXPECT_TRUE(merged) << "the clone is merged into one row, its raw names listed";
  // hash_block, compute, ksys_write, [unknown] in libc, recurse, fresh: the
  // leaf functions of both sides, one row each.
  EXPECT_EQ(n, 6u) << "one row per (image, canonical function)";
}

}  // namespace
}  // namespace kprof
