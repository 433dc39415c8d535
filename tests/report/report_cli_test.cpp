// Runs the built `kprof report` / `kprof info` (KPROF_BINARY) on good and bad
// files: bad input must give a non-zero exit and exactly one line on stderr.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "tests/report/test_support.h"
#include "tests/support/cli_run.h"

namespace kprof {
namespace {

using test::CliRun;

CliRun run_kprof(const std::string& args, const std::string& dir) {
  return test::run_cli(KPROF_BINARY, args, dir);
}

// Exactly kprof's own exit code (1 for bad input): a crash, or a sanitizer's
// report with its own exit code, fails.
void expect_one_line_error(const CliRun& r, const std::string& command, int code = 1) {
  EXPECT_EQ(r.status, code) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("kprof " + command + ": ", 0), 0u) << r.err;
}

TEST(ReportCli, NotAProfile) {
  std::string dir = test::temp_dir("cli_not_profile");
  test::write_text(dir + "/notes.txt", "this is not a profile, just some text\n");
  expect_one_line_error(run_kprof("report '" + dir + "/notes.txt'", dir), "report");
  expect_one_line_error(run_kprof("info '" + dir + "/notes.txt'", dir), "info");
}

TEST(ReportCli, EmptyFile) {
  std::string dir = test::temp_dir("cli_empty");
  test::write_text(dir + "/empty.kprof", "");
  expect_one_line_error(run_kprof("report '" + dir + "/empty.kprof'", dir), "report");
  expect_one_line_error(run_kprof("info '" + dir + "/empty.kprof'", dir), "info");
}

TEST(ReportCli, MissingFile) {
  std::string dir = test::temp_dir("cli_missing");
  CliRun r = run_kprof("report '" + dir + "/nope.kprof'", dir);
  expect_one_line_error(r, "report");
  EXPECT_NE(r.err.find("nope.kprof"), std::string::npos) << r.err;
}

TEST(ReportCli, BadOptionAndHelp) {
  std::string dir = test::temp_dir("cli_help");
  CliRun help = run_kprof("report --help", dir);
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--percent-limit"), std::string::npos) << help.out;
  EXPECT_EQ(run_kprof("info --help", dir).status, 0);
  expect_one_line_error(run_kprof("report --sort nonsense x.kprof", dir), "report", 2);
}

TEST(ReportCli, ReportsAProfileAndWritesCsv) {
  std::string dir = test::temp_dir("cli_good");
  test::ProfileBuilder b;
  b.run = test::sample_run();
  b.summary = test::sample_summary();
  b.histogram = Histogram{{{"[kernel]", ""}, {"/usr/bin/bench", ""}},
                          {{0, "schedule", Mode::Kernel, 30, 30}, {1, "main", Mode::User, 70, 70}}};
  std::string path = b.write(dir + "/good.kprof");
  CliRun r = run_kprof("report --top 1 --csv '" + dir + "/out.csv' '" + path + "'", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# event:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("70  70.0000  bench  main"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("schedule"), std::string::npos) << r.out;
  std::string csv = test::read_text(dir + "/out.csv");
  EXPECT_EQ(csv,
            "samples,percent,image,function,mode\r\n"
            "70,70.0000,/usr/bin/bench,main,user\r\n"
            "30,30.0000,[kernel],schedule,kernel\r\n");
  CliRun info = run_kprof("info '" + path + "'", dir);
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("status:"), std::string::npos) << info.out;
}

}  // namespace
}  // namespace kprof

namespace kprof {
namespace {

// perf's filters (issue 29) on the shipped -g profile: what is kept is said,
// the table holds only it, and nothing matching is one line naming what exists.
TEST(ReportCli, FiltersByImageProcessAndFunction) {
  const std::string dir = test::temp_dir("cli_filters");
  const std::string rt = std::string(KPROF_SOURCE_DIR) + "/samples/rt.kprof";
  CliRun r = run_kprof("report '" + rt + "' --dso syscalls --top 0 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("filtered (--dso syscalls): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("crunch"), std::string::npos);
  EXPECT_EQ(r.out.find("[kernel]"), std::string::npos) << "a kernel row after --dso syscalls";
  r = run_kprof("report '" + rt + "' --comm syscalls --symbol crunch --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",100.0000,/bin/syscalls,crunch,user"), std::string::npos) << r.out;
  expect_one_line_error(run_kprof("report '" + rt + "' --comm nosuch", dir), "report");
  r = run_kprof("report '" + rt + "' --comm nosuch", dir);
  EXPECT_NE(r.err.find("these exist: syscalls ("), std::string::npos) << r.err;
  r = run_kprof("report '" + rt + "' --symbol rt_spin_lok", dir);
  EXPECT_NE(r.err.find("closest: rt_spin_lock"), std::string::npos) << r.err;
  expect_one_line_error(run_kprof("report --per-call '" + rt + "' --comm syscalls", dir), "report",
                        2);
}

// The samples of a report's CSV (each row's first column).
uint64_t csv_samples(const std::string& csv) {
  uint64_t n = 0;
  size_t at = csv.find('\n');  // after the header
  while (at != std::string::npos && at + 1 < csv.size()) {
    n += std::stoull(csv.substr(at + 1, csv.find(',', at + 1) - at - 1));
    at = csv.find('\n', at + 1);
  }
  return n;
}

// The samples of folded stacks (each line's last number).
uint64_t folded_samples(const std::string& folded) {
  uint64_t n = 0;
  for (size_t at = 0; at < folded.size();) {
    const size_t end = folded.find('\n', at);
    const std::string line = folded.substr(at, end - at);
    n += std::stoull(line.substr(line.rfind(' ') + 1));
    at = end == std::string::npos ? end : end + 1;
  }
  return n;
}

// The numbers in "these exist: 122 syscalls (3464), 120 syscalls (3409)".
std::vector<std::string> existing_values(const std::string& err) {
  std::vector<std::string> out;
  size_t at = err.find("these exist: ");
  while (at != std::string::npos) {
    at = err.find_first_of("0123456789", at);
    const size_t end = err.find_first_not_of("0123456789", at);
    out.push_back(err.substr(at, end - at));
    at = err.find(", ", err.find(')', end));
  }
  return out;
}

// A -g recording of the demo's workload on two CPUs (the shipped profiles
// come from guests with one): 4.43 s, two threads of samples/syscalls.
std::string two_cpu_rt() {
  return std::string(KPROF_SOURCE_DIR) + "/tests/core/data/two-cpu-rt.kprof";
}

// --tid, --cpu and --time (issue 29) count the records again: the slices of
// one kind partition the samples, what is kept is said, and a value that
// matches nothing is one line naming what exists.
TEST(ReportCli, SlicesByThreadCpuAndTimePartitionTheSamples) {
  const std::string dir = test::temp_dir("cli_slices");
  const std::string rt = two_cpu_rt();
  CliRun r = run_kprof("report '" + rt + "' --cpu 0-1 --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t total = csv_samples(r.out);
  ASSERT_GT(total, 1000u);

  r = run_kprof("report '" + rt + "' --tid 999999", dir);
  expect_one_line_error(r, "report");
  const std::vector<std::string> tids = existing_values(r.err);
  ASSERT_EQ(tids.size(), 2u) << "the workload's two threads: " << r.err;
  EXPECT_NE(r.err.find(" syscalls ("), std::string::npos) << "threads named: " << r.err;
  uint64_t by_tid = 0;
  for (const std::string& t : tids) {
    r = run_kprof("report '" + rt + "' --tid " + t + " --csv -", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const uint64_t n = csv_samples(r.out);
    EXPECT_GT(n, total / 4) << "thread " << t;
    by_tid += n;
  }
  EXPECT_EQ(by_tid, total);

  r = run_kprof("report '" + rt + "' --cpu 0 --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t cpu0 = csv_samples(r.out);
  r = run_kprof("report '" + rt + "' --cpu 1 --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cpu0 + csv_samples(r.out), total);
  EXPECT_GT(cpu0, 0u);

  r = run_kprof("report '" + rt + "' --time 0%,50% --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t first_half = csv_samples(r.out);
  r = run_kprof("report '" + rt + "' --time 50%,100% --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(first_half + csv_samples(r.out), total);
  EXPECT_GT(first_half, total / 4);
  EXPECT_LT(first_half, total * 3 / 4);
  r = run_kprof("report '" + rt + "' --time 1,2 --cpu 0 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("filtered (--cpu 0 --time 1,2): "), std::string::npos) << r.out;
  // With a table key too: both are said, the records' first.
  r = run_kprof("report '" + rt + "' --cpu 0 --dso kernel --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t cpu_notice = r.out.find("filtered (--cpu 0): ");
  ASSERT_NE(cpu_notice, std::string::npos) << r.out;
  const size_t dso_notice = r.out.find("filtered (--dso kernel): ");
  ASSERT_NE(dso_notice, std::string::npos) << r.out;
  EXPECT_GT(dso_notice, cpu_notice) << r.out;

  r = run_kprof("report '" + rt + "' --time 1000,", dir);
  expect_one_line_error(r, "report");
  EXPECT_NE(r.err.find(" s after its start"), std::string::npos) << r.err;
  r = run_kprof("report '" + rt + "' --cpu 7", dir);
  expect_one_line_error(r, "report");
  EXPECT_NE(r.err.find("these exist: "), std::string::npos) << r.err;
  expect_one_line_error(run_kprof("report '" + rt + "' --time 5,1", dir), "report", 2);
  expect_one_line_error(run_kprof("report '" + rt + "' --cpu x", dir), "report", 2);
  expect_one_line_error(run_kprof("report --off-cpu '" + rt + "' --cpu 0", dir), "report", 2);
  // Standard input is read once: its records cannot be read again.
  r = run_kprof("report - --cpu 0 < '" + rt + "'", dir);
  expect_one_line_error(r, "report", 2);
  EXPECT_NE(r.err.find("not on standard input"), std::string::npos) << r.err;
}

// The same keys in diff and export.
TEST(ReportCli, DiffAndExportTakeTheRecordKeys) {
  const std::string dir = test::temp_dir("cli_slices_diff");
  const std::string rt = std::string(KPROF_SOURCE_DIR) + "/samples/rt.kprof";
  const std::string generic = std::string(KPROF_SOURCE_DIR) + "/samples/generic.kprof";
  CliRun r = run_kprof("diff '" + generic + "' '" + rt + "' --cpu 0 --no-pager --top 5", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("filtered (--cpu 0): "), std::string::npos) << r.out << r.err;
  r = run_kprof("report '" + rt + "' --time ,50% --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t reported = csv_samples(r.out);
  r = run_kprof("export '" + rt + "' --time ,50% --format folded -o -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(folded_samples(r.out), reported);
  expect_one_line_error(run_kprof("diff '" + generic + "' '" + rt + "' --off-cpu --tid 1", dir),
                        "diff", 2);
}

// --timeline: the sampling rate and the top functions over the slices; with
// --time, the slices of what is kept; no records to read is one line.
TEST(ReportCli, TimelineShowsTheTopFunctionsOverTheRecording) {
  const std::string dir = test::temp_dir("cli_timeline");
  const std::string rt = two_cpu_rt();
  CliRun r = run_kprof("report '" + rt + "' --timeline --top 3 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t head = r.out.find("# timeline: ");
  ASSERT_NE(head, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples per second", head), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("% crunch", head), std::string::npos) << r.out;
  size_t rows = 0;
  for (size_t at = r.out.find(", highest at ", head); at != std::string::npos;
       at = r.out.find(", highest at ", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 3u) << r.out;
  // The last slice ends at the last sample: within the 4.43 s recording.
  const size_t to = r.out.find(" s to ", head);
  ASSERT_NE(to, std::string::npos);
  const double end = std::stod(r.out.substr(to + 6));
  EXPECT_GT(end, 4.0);
  EXPECT_LT(end, 4.44);

  r = run_kprof("report '" + rt + "' --timeline --time ,50% --top 3 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t half = r.out.find(" s to ", r.out.find("# timeline: "));
  ASSERT_NE(half, std::string::npos) << r.out;
  EXPECT_LT(std::stod(r.out.substr(half + 6)), 2.3) << "half of 4.43 s";

  r = run_kprof("report --timeline - < '" + rt + "'", dir);
  expect_one_line_error(r, "report", 2);
  expect_one_line_error(run_kprof("report --timeline --children '" + rt + "'", dir), "report", 2);
}

// --sort comm / pid[,function] on a -g profile: one row per process; a flat
// profile is refused naming -g.
TEST(ReportCli, SortByProcess) {
  const std::string dir = test::temp_dir("cli_sort_process");
  const std::string rt = two_cpu_rt();
  CliRun r = run_kprof("report '" + rt + "' --sort comm --csv -", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("samples,percent,comm,function,mode", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(",100.0000,syscalls,,"), std::string::npos) << r.out;
  r = run_kprof("report '" + rt + "' --sort pid,function --top 3 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(" syscalls  crunch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("more functions not shown"), std::string::npos) << r.out;
  const std::string flat = std::string(KPROF_SOURCE_DIR) + "/tests/core/data/row-layout-rt.kprof";
  expect_one_line_error(run_kprof("report '" + flat + "' --sort comm", dir), "report", 2);
  // --sort tid / cpu read the records: one row per thread or CPU, 100% in all.
  for (const char* key : {"tid", "cpu"}) {
    r = run_kprof("report '" + rt + "' --sort " + key + " --csv -", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind(std::string("samples,percent,") + key + ",function,mode", 0), 0u)
        << r.out;
    double total = 0;
    std::istringstream in(r.out);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) total += std::stod(line.substr(line.find(',') + 1));
    EXPECT_NEAR(total, 100.0, 0.01) << r.out;
  }
  r = run_kprof("report '" + rt + "' --sort cpu,function --top 3 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cpu 0"), std::string::npos) << r.out;
  expect_one_line_error(run_kprof("report '" + rt + "' --sort tid,comm", dir), "report", 2);
  expect_one_line_error(run_kprof("report '" + rt + "' --sort tid --off-cpu", dir), "report", 2);
  expect_one_line_error(run_kprof("report '" + rt + "' --sort cpu --children", dir), "report", 2);
  // Every filter applies as the records are counted, --comm on a flat
  // profile too, and the header says what was kept.
  r = run_kprof("report '" + rt + "' --sort cpu --comm syscalls --cpu 1 --no-pager", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("filtered (--comm syscalls --cpu 1): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu 1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cpu 0"), std::string::npos) << r.out;
  expect_one_line_error(run_kprof("report - --sort tid < '" + rt + "'", dir), "report", 2);
}

}  // namespace
}  // namespace kprof
