// --call-graph dwarf from real recordings: a program built as Debian builds
// (-O2, no frame pointers) gives the call tree it was written to have, as
// the same program built with frame pointers does under -g; the file keeps
// the unwound stacks (not the copies) in its records too; a recording cut
// short is unwound by kprof symbolize; bad modes are refused.
#include <signal.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "perfabi/load.h"
#include "report/callgraph.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

// 4.5 binomial standard errors plus 0.02 (see callgraph_e2e_test.cpp).
double tolerance(double p, double n) {
  return 4.5 * std::sqrt(p * (1 - p) / n) + 0.02;
}

struct TreeShares {
  double n = 0;  // samples under main
  double leaf_self = 0, b_self = 0, a_total = 0, b_total = 0;
  double leaf_from_a = 0, leaf_from_b = 0, leaf = 0;
};

TreeShares shares_of(const Stacks& st, const std::string& path) {
  std::map<std::string, ChildrenRow> rows;
  for (const ChildrenRow& row : children_rows(st)) rows[row.function] = row;
  TreeShares s;
  s.n = static_cast<double>(rows["main"].total_samples);
  if (s.n == 0) return s;
  s.leaf_self = static_cast<double>(rows["kprof_ct_leaf"].self_samples) / s.n;
  s.b_self = static_cast<double>(rows["kprof_ct_b"].self_samples) / s.n;
  s.a_total = static_cast<double>(rows["kprof_ct_a"].total_samples) / s.n;
  s.b_total = static_cast<double>(rows["kprof_ct_b"].total_samples) / s.n;
  const CallTree tree = call_tree(st, "kprof_ct_leaf", CallDirection::Callers, 1, path);
  s.leaf = static_cast<double>(tree.root.samples);
  for (const CallTreeNode& c : tree.root.children) {
    if (c.function == "kprof_ct_a") s.leaf_from_a = static_cast<double>(c.samples) / s.leaf;
    if (c.function == "kprof_ct_b") s.leaf_from_b = static_cast<double>(c.samples) / s.leaf;
  }
  return s;
}

// Samples whose user part has at least `depth` frames, of the user-side
// samples of the records (what compaction wrote).
struct DepthCount : RecordSink {
  explicit DepthCount(size_t d) : depth(d) {}
  void on_sample(const Sample& s) override {
    if (s.callchain.size() <= s.kernel_frames) return;
    ++user;
    if (s.callchain.size() - s.kernel_frames >= depth) ++deep;
    copies += s.user_stack.empty() ? 0 : 1;
  }
  size_t depth;
  uint64_t user = 0, deep = 0, copies = 0;
};

class DwarfE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  TempDir dir_;
};

TEST_F(DwarfE2E, CodeWithoutFramePointersGivesTheTreeFramePointersGive) {
  const std::string dwarf = dir_.file("dwarf.kprof"), fp = dir_.file("fp.kprof");
  const RunResult r1 = run({kprof_binary(), "record", "--call-graph", "dwarf", "-F", "999", "-o",
                            dwarf, "--", program("kprof_prog_calltree_nofp"), "2"},
                           dir_.path(), 90);
  ASSERT_EQ(r1.exit_code, 0) << r1.describe();
  EXPECT_NE(r1.err.find("DWARF unwinding (8192-byte stack copies)"), std::string::npos) << r1.err;
  const RunResult r2 = run({kprof_binary(), "record", "-g", "-F", "999", "-o", fp, "--",
                            program("kprof_prog_calltree"), "2"},
                           dir_.path(), 90);
  ASSERT_EQ(r2.exit_code, 0) << r2.describe();

  const Profile d = perfabi::load_profile(dwarf), f = perfabi::load_profile(fp);
  ASSERT_TRUE(d.stacks && f.stacks);
  EXPECT_EQ(d.run.event.user_stack_bytes, 8192u);
  ASSERT_TRUE(d.unwind.has_value()) << "a dwarf recording says how its stacks ended";
  EXPECT_GE(d.unwind->of(UnwindStop::Entry) * 10, d.unwind->total() * 9)
      << unwind_notice(*d.unwind);

  const TreeShares a = shares_of(*d.stacks, dwarf), b = shares_of(*f.stacks, fp);
  ASSERT_GE(a.n, 300) << "too few dwarf samples under main";
  ASSERT_GE(b.n, 300) << "too few fp samples under main";
  // The design (kprof_prog_calltree.cpp), and each build against the other.
  EXPECT_NEAR(a.leaf_self, 0.75, tolerance(0.75, a.n));
  EXPECT_NEAR(a.b_self, 0.25, tolerance(0.25, a.n));
  EXPECT_NEAR(a.a_total, 0.50, tolerance(0.50, a.n));
  EXPECT_NEAR(a.b_total, 0.50, tolerance(0.50, a.n));
  EXPECT_NEAR(a.leaf_from_a, 2.0 / 3, tolerance(2.0 / 3, a.leaf));
  EXPECT_NEAR(a.leaf_from_b, 1.0 / 3, tolerance(1.0 / 3, a.leaf));
  EXPECT_NEAR(a.leaf_from_a, b.leaf_from_a,
              tolerance(2.0 / 3, a.leaf) + tolerance(2.0 / 3, b.leaf));
  EXPECT_NEAR(a.b_total, b.b_total, tolerance(0.5, a.n) + tolerance(0.5, b.n));

  // The records compaction wrote hold the unwound stacks, not the copies.
  DepthCount depth(4);  // leaf, caller, main, libc's entry at least
  perfabi::load_profile(dwarf, {.records = &depth});
  ASSERT_GT(depth.user, 300u);
  EXPECT_GE(depth.deep * 10, depth.user * 9) << depth.deep << " of " << depth.user;
  EXPECT_EQ(depth.copies, 0u);

  const RunResult rep = run({kprof_binary(), "report", dwarf, "--children"}, dir_.path(), 60);
  ASSERT_EQ(rep.exit_code, 0) << rep.describe();
  EXPECT_NE(rep.out.find("--call-graph dwarf"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("of user stacks reached a thread's entry"), std::string::npos) << rep.out;
}

// Cut short by SIGKILL, the file keeps the stack copies (PerfRecords); kprof
// symbolize unwinds them and writes the stacks and the Unwind chunk.
TEST_F(DwarfE2E, CutShortRecordingIsUnwoundBySymbolize) {
  const std::string path = dir_.file("cut.kprof");
  const Killed k = record_then_kill({kprof_binary(), "record", "--call-graph", "dwarf", "-F", "999",
                                     "-o", path, "--", program("kprof_prog_calltree_nofp"), "10"},
                                    dir_.path());
  ASSERT_EQ(k.result.exit_code, 128 + SIGKILL) << k.result.describe();
  ASSERT_FALSE(perfabi::load_profile(path).status.complete);

  const RunResult sym = run({kprof_binary(), "symbolize", path}, dir_.path(), 90);
  ASSERT_EQ(sym.exit_code, 0) << sym.describe();
  EXPECT_NE(sym.err.find("of user stacks reached a thread's entry"), std::string::npos) << sym.err;
  const Profile p = perfabi::load_profile(path);
  ASSERT_TRUE(p.stacks.has_value());
  ASSERT_TRUE(p.unwind.has_value());
  const TreeShares s = shares_of(*p.stacks, path);
  ASSERT_GE(s.n, 200);
  EXPECT_NEAR(s.leaf_from_a, 2.0 / 3, tolerance(2.0 / 3, s.leaf));
  // Symbolizing the finished file again keeps its stacks and Unwind chunk.
  const RunResult again = run({kprof_binary(), "symbolize", path}, dir_.path(), 90);
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  const Profile q = perfabi::load_profile(path);
  ASSERT_TRUE(q.stacks && q.unwind);
  EXPECT_EQ(*q.unwind, *p.unwind);
  EXPECT_NEAR(shares_of(*q.stacks, path).leaf_from_a, s.leaf_from_a, 1e-9);
}

// --keep-stacks: the copies stay (as PerfRecords) in the finished file, the
// record-level filters unwind them as they read, and kprof symbolize unwinds
// them again, keeping them with --keep-stacks and dropping them without.
TEST_F(DwarfE2E, KeptStacksAreUnwoundAgainLater) {
  const std::string path = dir_.file("kept.kprof");
  const RunResult rec =
      run({kprof_binary(), "record", "--call-graph", "dwarf", "--keep-stacks", "-F", "999", "-o",
           path, "--", program("kprof_prog_calltree_nofp"), "2"},
          dir_.path(), 90);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  auto info = [&] { return run({kprof_binary(), "info", path}, dir_.path(), 30).out; };
  EXPECT_NE(info().find("perf-records"), std::string::npos) << info();
  DepthCount copies(1);
  perfabi::load_profile(path, {.records = &copies});
  EXPECT_GT(copies.copies, 300u) << "the records keep their stack copies";

  // A record-level filter counts again from the records: unwound as read.
  const RunResult half =
      run({kprof_binary(), "report", path, "--time", "0,1.5", "--children", "--csv", "-"},
          dir_.path(), 60);
  ASSERT_EQ(half.exit_code, 0) << half.describe();
  EXPECT_NE(half.out.find("kprof_ct_a"), std::string::npos) << half.out;

  const Profile before = perfabi::load_profile(path);
  ASSERT_TRUE(before.stacks.has_value());
  const TreeShares first = shares_of(*before.stacks, path);
  const RunResult keep = run({kprof_binary(), "symbolize", "--keep-stacks", path}, dir_.path(), 90);
  ASSERT_EQ(keep.exit_code, 0) << keep.describe();
  EXPECT_NE(info().find("perf-records"), std::string::npos) << "kept again";
  const RunResult drop = run({kprof_binary(), "symbolize", path}, dir_.path(), 90);
  ASSERT_EQ(drop.exit_code, 0) << drop.describe();
  EXPECT_EQ(info().find("perf-records"), std::string::npos) << "dropped once unwound";
  const Profile after = perfabi::load_profile(path);
  ASSERT_TRUE(after.stacks.has_value());
  EXPECT_NEAR(shares_of(*after.stacks, path).leaf_from_a, first.leaf_from_a, 1e-9)
      << "unwound again, the same stacks";

  const RunResult fp = run(
      {kprof_binary(), "record", "-g", "--keep-stacks", "-o", dir_.file("x.kprof"), "--", "true"},
      dir_.path(), 30);
  EXPECT_EQ(fp.exit_code, 2) << fp.describe();
  EXPECT_NE(fp.err.find("--call-graph dwarf"), std::string::npos) << fp.err;
}

// perf's own --call-graph dwarf recordings: kprof unwinds their stack copies
// as it reads the perf.data, with the same unwinder.
TEST_F(DwarfE2E, PerfDwarfRecordingsAreUnwoundOnImport) {
  const std::string data = dir_.file("perf.data");
  const RunResult rec =
      run({"/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "--call-graph", "dwarf", "-F", "999",
           "-o", data, "--", program("kprof_prog_calltree_nofp"), "2"},
          dir_.path(), 90);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  const RunResult folded = run({kprof_binary(), "export", "-f", "folded", data}, dir_.path(), 90);
  ASSERT_EQ(folded.exit_code, 0) << folded.describe();
  double from_a = 0, from_b = 0;
  std::istringstream in(folded.out);
  for (std::string line; std::getline(in, line);) {
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos || !line.starts_with("kprof_prog_call;")) continue;
    const double n = std::stod(line.substr(sp + 1));
    const std::string stack = line.substr(0, sp);
    if (!stack.ends_with("kprof_ct_leaf")) continue;
    if (stack.find(";main;kprof_ct_a;kprof_ct_leaf") != std::string::npos) from_a += n;
    if (stack.find(";main;kprof_ct_b;kprof_ct_leaf") != std::string::npos) from_b += n;
  }
  const double leaf = from_a + from_b;
  ASSERT_GT(leaf, 200) << folded.out.substr(0, 2000);
  EXPECT_NEAR(from_a / leaf, 2.0 / 3, tolerance(2.0 / 3, leaf));
  const RunResult rep = run({kprof_binary(), "report", data, "--children"}, dir_.path(), 60);
  ASSERT_EQ(rep.exit_code, 0) << rep.describe();
  EXPECT_NE(rep.out.find("of user stacks reached a thread's entry"), std::string::npos) << rep.out;
}

// A binary rebuilt between recording and reading: its CFI no longer
// describes the code that ran, so the stacks stop there, counted as "image
// changed", instead of being unwound by the wrong file.
TEST_F(DwarfE2E, ABinaryReplacedSinceTheRecordingIsNotUnwound) {
  const std::string exe = dir_.file("calltree");
  std::filesystem::copy_file(program("kprof_prog_calltree_nofp"), exe);
  const std::string data = dir_.file("perf.data");
  const RunResult rec = run({"/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "--call-graph",
                             "dwarf", "-F", "999", "-o", data, "--", exe, "1"},
                            dir_.path(), 90);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  std::filesystem::remove(exe);
  std::filesystem::copy_file(program("kprof_prog_calltree"), exe);  // another build-id
  const RunResult info = run({kprof_binary(), "info", data}, dir_.path(), 60);
  ASSERT_EQ(info.exit_code, 0) << info.describe();
  EXPECT_NE(info.out.find("stopped in files changed or gone since the recording (calltree"),
            std::string::npos)
      << info.out;
}

TEST_F(DwarfE2E, UnknownModesAndSizesAreRefused) {
  for (const char* mode : {"lbr", "dwarf,70000", "dwarf,abc", "dwarf,0"}) {
    const RunResult r = run(
        {kprof_binary(), "record", "--call-graph", mode, "-o", dir_.file("x.kprof"), "--", "true"},
        dir_.path(), 30);
    EXPECT_EQ(r.exit_code, 2) << mode << ": " << r.describe();
    EXPECT_NE(r.err.find("--call-graph"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kprof::e2e
