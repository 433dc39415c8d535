// Runs the built `kprof report` / `kprof info` (KPROF_BINARY) on good and bad
// files: bad input must give a non-zero exit and exactly one line on stderr.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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

}  // namespace
}  // namespace kprof
