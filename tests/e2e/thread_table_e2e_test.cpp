// The per-thread table a recording stores (core/thread_counts.h, issue 29):
// on a real recording of two processes on two CPUs, every view it answers
// (--sort tid|cpu[,function], --tid, --cpu, --comm and --pid on a flat
// profile) prints what counting the records again prints (--time 0%,100%
// forces that path), and a -g recording's table counts its stacks' leaves.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/bytes.h"
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
  std::map<uint32_t, uint64_t> per_cpu;
  for (const ThreadCpuRow& r : p.threads->rows) {
    per_thread[r.thread] += r.samples;
    per_cpu[r.cpu] += r.samples;
  }
  for (size_t i = 0; i < per_thread.size(); ++i) {
    if (per_thread[i] > most && p.threads->threads[i].tid != 0) {
      most = per_thread[i];
      tid = p.threads->threads[i].tid;
      pid = p.threads->threads[i].pid;
    }
  }
  ASSERT_GT(most, 0u);
  // Each CPU that holds samples (the two processes usually run on both;
  // on a busy machine the scheduler may keep them on one).
  ASSERT_FALSE(per_cpu.empty());
  const auto busiest = std::max_element(per_cpu.begin(), per_cpu.end(),
                                        [](auto& a, auto& b) { return a.second < b.second; });
  std::vector<std::string> views = {
      "--sort tid",
      "--sort cpu",
      "--sort tid,function",
      "--sort cpu,function --dso kernel",
      "--cpu " + std::to_string(busiest->first) + " --comm kprof_prog_sysc",
      "--tid " + std::to_string(tid),
      "--sort cpu --pid " + std::to_string(pid)};
  for (const auto& [cpu, n] : per_cpu) views.push_back("--cpu " + std::to_string(cpu));
  for (const std::string& args : views) {
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

// A table chunk whose bytes lie (a row of a thread it does not list, with a
// valid checksum): the file says it is damaged there and why, the table is
// not used, and every view still answers from the records, as before.
TEST_F(ThreadTable, DamagedTableIsSaidAndTheRecordsAnswer) {
  const std::string file = dir_.file("bad.kprof");
  record(file);
  const std::string good = csv(file, "--sort tid");
  std::ifstream in(file, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  in.close();
  // Chunks: u16 type, u16 flags, u32 stored, u32 raw, u32 crc, then the bytes.
  const auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  size_t at = 16;
  while (at + 16 <= bytes.size() && (bytes[at] | bytes[at + 1] << 8) != 15) at += 16 + u32(at + 4);
  ASSERT_LT(at + 16, bytes.size()) << "no thread counts chunk";
  // Two fields: one thread (tid 5, pid 5, no name), one row of thread 9.
  const std::vector<uint8_t> lie = {2, 1, 5, 5, 0, 1, 9, 0, 0, 1, 1};
  std::vector<uint8_t> header(16, 0);
  header[0] = 15;
  const uint32_t n = static_cast<uint32_t>(lie.size()), crc = crc32(lie);
  std::memcpy(&header[4], &n, 4);
  std::memcpy(&header[8], &n, 4);
  std::memcpy(&header[12], &crc, 4);
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + static_cast<long>(at));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), lie.begin(), lie.end());
  out.insert(out.end(), bytes.begin() + static_cast<long>(at + 16 + u32(at + 4)), bytes.end());
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));

  const Profile p = perfabi::load_profile(file);
  EXPECT_FALSE(p.threads);
  EXPECT_TRUE(p.status.complete);
  EXPECT_NE(p.status.describe_damage().find("a row of a thread not listed"), std::string::npos)
      << p.status.describe_damage();
  EXPECT_EQ(csv(file, "--sort tid"), good);
  const RunResult r = run({kprof_binary(), "report", file, "--sort", "tid"}, dir_.path(), 60);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("skipped chunk 'thread counts'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kprof::e2e
