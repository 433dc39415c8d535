// Issue 25 with the real binary: kprof record -g --syscalls counts every
// system call the workload makes, exactly; report --per-call charges the
// samples under each call's entry to it; the bad-input paths exit 2 naming
// what is missing.
#include <sys/mount.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

bool tracefs_usable() {
  std::ifstream mounts("/proc/mounts");
  std::string line;
  while (std::getline(mounts, line)) {
    if (line.find(" tracefs ") != std::string::npos) return true;
  }
  return ::geteuid() == 0;  // kprof mounts it
}

TEST(PerCallE2E, CountsEveryCallExactlyAndChargesSamplesToThem) {
  KPROF_REQUIRE_SAMPLING();
  if (!tracefs_usable()) GTEST_SKIP() << "tracefs is not mounted and this is not root";
  TempDir dir;
  const std::string out = dir.file("calls.kprof");
  const RunResult r = run({kprof_binary(), "record", "-g", "--syscalls", "-F", "999", "-o", out,
                           "--", program("kprof_prog_syscalls"), "1"},
                          dir.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("syscalls (\\d+) ")));
  const uint64_t made = std::stoull(m[1]);  // getppid + getpid, half each
  const Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.syscalls.has_value()) << "no SyscallCounts chunk\n" << r.describe();
  EXPECT_EQ(p.syscalls->calls.at("getppid"), made / 2);
  EXPECT_EQ(p.syscalls->calls.at("getpid"), made / 2);
  EXPECT_NE(p.syscalls->source.find("sys_enter"), std::string::npos);

  const RunResult report =
      run({kprof_binary(), "report", "--per-call", out, "--csv", dir.file("calls.csv")}, dir.path(),
          60);
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE(report.out.find("Cost per system call"), std::string::npos) << report.out;
  std::ifstream csv(dir.file("calls.csv"));
  std::string line;
  bool getppid = false;
  while (std::getline(csv, line)) {
    if (line.rfind("getppid,", 0) != 0) continue;
    getppid = true;
    EXPECT_NE(line.find("," + std::to_string(made / 2) + ","), std::string::npos) << line;
  }
  EXPECT_TRUE(getppid) << "no getppid row";
  const RunResult info = run({kprof_binary(), "info", out}, dir.path(), 60);
  EXPECT_NE(info.out.find("getppid " + std::to_string(made / 2)), std::string::npos) << info.out;
}

// --syscalls-only: the calls named are counted exactly, the others not at
// all, and a name no kernel has is a notice, not a failure.
TEST(PerCallE2E, SyscallsOnlyCountsJustTheCallsNamed) {
  KPROF_REQUIRE_SAMPLING();
  if (!tracefs_usable()) GTEST_SKIP() << "tracefs is not mounted and this is not root";
  TempDir dir;
  const std::string out = dir.file("only.kprof");
  const RunResult r =
      run({kprof_binary(), "record", "-g", "--syscalls-only", "getppid,no_such_call", "-o", out,
           "--", program("kprof_prog_syscalls"), "0.3"},
          dir.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("no system call 'no_such_call'"), std::string::npos) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("syscalls (\\d+) ")));
  const uint64_t made = std::stoull(m[1]);
  const Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.syscalls.has_value()) << r.describe();
  EXPECT_EQ(p.syscalls->calls.size(), 1u);
  EXPECT_EQ(p.syscalls->calls.at("getppid"), made / 2);
  EXPECT_EQ(p.syscalls->calls.count("getpid"), 0u);
  EXPECT_NE(p.syscalls->source.find("1 of "), std::string::npos) << p.syscalls->source;
}

TEST(PerCallE2E, WithoutStacksOrCountsSaysHowToRecord) {
  KPROF_REQUIRE_SAMPLING();
  TempDir dir;
  const std::string flat = dir.file("flat.kprof");
  ASSERT_EQ(run({kprof_binary(), "record", "-o", flat, "--", program("kprof_prog_syscalls"), "0.2"},
                dir.path(), 60)
                .exit_code,
            0);
  const RunResult r = run({kprof_binary(), "report", "--per-call", flat}, dir.path(), 60);
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("no call chains"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kprof record -g --syscalls"), std::string::npos) << r.err;
  const std::string stacks = dir.file("stacks.kprof");
  ASSERT_EQ(run({kprof_binary(), "record", "-g", "-o", stacks, "--", program("kprof_prog_syscalls"),
                 "0.2"},
                dir.path(), 60)
                .exit_code,
            0);
  const RunResult d = run({kprof_binary(), "diff", "--per-call", stacks, stacks}, dir.path(), 60);
  EXPECT_EQ(d.exit_code, 2) << d.describe();
  EXPECT_NE(d.err.find("no system-call counts"), std::string::npos) << d.err;
}

// --score-from: the workload's output still reaches stdout, and the score
// read from it is the run's (kprof info, RunInfo::scores); no match is a
// notice, not a failure.
TEST(PerCallE2E, ScoreFromReadsTheWorkloadsOutput) {
  KPROF_REQUIRE_SAMPLING();
  TempDir dir;
  const std::string out = dir.file("score.kprof");
  const RunResult r = run({kprof_binary(), "record", "--score-from", "calls=syscalls ([0-9]+)",
                           "-o", out, "--", program("kprof_prog_syscalls"), "0.3"},
                          dir.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("syscalls (\\d+) ")))
      << "the workload's output passes through\n"
      << r.describe();
  const Profile p = perfabi::load_profile(out);
  ASSERT_EQ(p.run.scores.count("calls"), 1u);
  EXPECT_DOUBLE_EQ(p.run.scores.at("calls"), std::stod(m[1]));

  const RunResult none = run({kprof_binary(), "record", "--score-from", "tps = ([0-9.]+)", "-o",
                              dir.file("none.kprof"), "--", program("kprof_prog_syscalls"), "0.2"},
                             dir.path(), 60);
  EXPECT_EQ(none.exit_code, 0) << none.describe();
  EXPECT_NE(none.err.find("matched nothing"), std::string::npos) << none.err;
  EXPECT_TRUE(perfabi::load_profile(dir.file("none.kprof")).run.scores.empty());
}

}  // namespace
}  // namespace kprof::e2e
