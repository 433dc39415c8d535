// The per-thread table a recording stores (core/thread_counts.h, issue 29):
// on a real recording of two processes on two CPUs, every view it answers
// (--sort tid|cpu[,function], --tid, --cpu, --comm and --pid on a flat
// profile) prints what counting the records again prints (--time 0%,100%
// forces that path), and a -g recording's table counts its stacks' leaves.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "core/stacks.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

class ThreadTable : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  // Two processes of the syscall program at once, so both CPUs and several
  // threads hold samples.
  void record(const std::string& out, std::vector<std::string> flags = {}) {
    std::vector<std::string> argv = {kprof_binary(), "record", "-F", "2000", "-o", out};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const std::string prog = program("kprof_prog_syscalls");
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", prog + " 0.4 & " + prog + " 0.4; wait"});
    const RunResult r = run(argv, dir_.path(), 60);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }
  // `kprof report FILE ARGS --csv -`: its table, or the failure.
  std::string csv(const std::string& file, const std::string& args) {
    std::vector<std::string> argv = {kprof_binary(), "report", file, "--top", "0"};
    size_t at = 0;
    while (at < args.size()) {
      const size_t end = std::min(args.find(' ', at), args.size());
      argv.push_back(args.substr(at, end - at));
      at = end + 1;
    }
    argv.insert(argv.end(), {"--csv", "-"});
    const RunResult r = run(argv, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.describe();
    return r.out;
  }
  TempDir dir_;
};

TEST_F(ThreadTable, StoredTableAnswersAsTheRecordsDo) {
  const std::string file = dir_.file("flat.kprof");
  record(file);
  const Profile p = perfabi::load_profile(file);
  ASSERT_TRUE(p.histogram) << p.status.problem;
  ASSERT_TRUE(p.threads) << "no per-thread table stored";
  ASSERT_TRUE(p.threads->rows_of(*p.histogram)) << "the table does not count the flat table";
  uint32_t tid = 0, pid = 0;
  uint64_t most = 0;
  std::vector<uint64_t> per_thread(p.threads->threads.size());
  for (const ThreadCpuRow& r : p.threads->rows) per_thread[r.thread] += r.samples;
  for (size_t i = 0; i < per_thread.size(); ++i) {
    if (per_thread[i] > most && p.threads->threads[i].tid != 0) {
      most = per_thread[i];
      tid = p.threads->threads[i].tid;
      pid = p.threads->threads[i].pid;
    }
  }
  ASSERT_GT(most, 0u);
  for (const std::string& args :
       {std::string("--sort tid"), std::string("--sort cpu"), std::string("--sort tid,function"),
        std::string("--sort cpu,function --dso kernel"), std::string("--cpu 0"),
        std::string("--cpu 1"), std::string("--cpu 0 --comm kprof_prog_sysc"),
        "--tid " + std::to_string(tid), "--sort cpu --pid " + std::to_string(pid)}) {
    const std::string stored = csv(file, args);
    EXPECT_GT(stored.size(), 40u) << args;
    EXPECT_EQ(stored, csv(file, args + " --time 0%,100%")) << args;
  }
  // --comm on a flat profile (refused before the table was stored): the
  // program's samples (its name cut to 15 characters, as the kernel keeps
  // it), not the shell's.
  const auto samples = [](const std::string& table) {
    uint64_t n = 0;
    size_t at = table.find('\n');
    while (at != std::string::npos && at + 1 < table.size()) {
      n += std::stoull(table.substr(at + 1));
      at = table.find('\n', at + 1);
    }
    return n;
  };
  const uint64_t all = samples(csv(file, "")),
                 program = samples(csv(file, "--comm kprof_prog_sysc"));
  const uint64_t shell = samples(csv(file, "--comm sh"));
  EXPECT_GT(program, all / 2);
  EXPECT_EQ(program + shell, all);
  // --sort comm and pid of a flat profile: the same split.
  const std::string by_comm = csv(file, "--sort comm");
  EXPECT_NE(by_comm.find(std::to_string(program) + ","), std::string::npos) << by_comm;
  EXPECT_NE(by_comm.find("kprof_prog_sysc"), std::string::npos) << by_comm;
  const std::string by_pid = csv(file, "--sort pid");
  EXPECT_NE(by_pid.find(std::to_string(pid) + " kprof_prog_sysc"), std::string::npos) << by_pid;
}

TEST_F(ThreadTable, CallGraphRecordingsCountTheirLeaves) {
  const std::string file = dir_.file("g.kprof");
  record(file, {"-g"});
  const Profile p = perfabi::load_profile(file);
  ASSERT_TRUE(p.stacks) << p.status.problem;
  ASSERT_TRUE(p.threads) << "no per-thread table stored";
  EXPECT_TRUE(p.threads->rows_of(leaf_histogram(*p.stacks)));
  for (const std::string args : {"--sort tid", "--sort cpu,function"}) {
    EXPECT_EQ(csv(file, args), csv(file, args + " --time 0%,100%")) << args;
  }
}

}  // namespace
}  // namespace kprof::e2e
