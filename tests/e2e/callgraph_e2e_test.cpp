// Call graphs from real -g recordings: the known call tree of
// kprof_prog_calltree lands where its design puts it, and a syscall's kernel
// samples sit under the user code that made it, entry path in between.
#include <signal.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/profile.h"
#include "perfabi/load.h"
#include "report/callgraph.h"
#include "report/summary.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

class CallgraphE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }

  // Records `workload` with -g at 999 Hz; its stacks (rebuilt if need be).
  Stacks record_stacks(const std::vector<std::string>& workload) {
    std::vector<std::string> argv = {kprof_binary(), "record", "-g",  "-F",
                                     "999",          "-o",     path_, "--"};
    argv.insert(argv.end(), workload.begin(), workload.end());
    const RunResult r = run(argv, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    const Profile p = perfabi::load_profile(path_);
    EXPECT_TRUE(p.status.complete) << p.status.problem;
    EXPECT_TRUE(p.run.event.callchains);
    if (!p.stacks) {
      ADD_FAILURE() << "a -g recording has no Stacks chunk";
      return {};
    }
    return *p.stacks;
  }

  TempDir dir_;
  std::string path_ = dir_.file("g.kprof");
};

std::map<std::string, ChildrenRow> by_name(const Stacks& st) {
  std::map<std::string, ChildrenRow> out;
  for (const ChildrenRow& row : children_rows(st)) out[row.function] = row;
  return out;
}

// 4.5 binomial standard errors at n samples (a correct recording strays that
// far about once in 150,000 runs), plus a floor of 0.02: samples that land in
// a function's first instructions, before it has pushed its frame, lose its
// caller, and that is not sampling noise.
double tolerance(double p, double n) {
  return 4.5 * std::sqrt(p * (1 - p) / n) + 0.02;
}

TEST_F(CallgraphE2E, CallTreeTotalsAndCallersMatchTheProgram) {
  const Stacks st = record_stacks({program("kprof_prog_calltree"), "2"});
  if (HasFailure()) return;
  auto rows = by_name(st);
  // Shares of the samples whose stack reaches main: the program's own.
  const double n = static_cast<double>(rows["main"].total_samples);
  ASSERT_GE(n, 300) << "too few samples under main";
  auto share = [&](const std::string& f, bool total) {
    const ChildrenRow& r = rows[f];
    return static_cast<double>(total ? r.total_samples : r.self_samples) / n;
  };
  // Per round: a -> leaf 2 units; b 1 unit itself, then leaf 1 unit.
  EXPECT_NEAR(share("kprof_ct_leaf", false), 0.75, tolerance(0.75, n));
  EXPECT_NEAR(share("kprof_ct_leaf", true), 0.75, tolerance(0.75, n));
  EXPECT_NEAR(share("kprof_ct_b", false), 0.25, tolerance(0.25, n));
  EXPECT_NEAR(share("kprof_ct_b", true), 0.50, tolerance(0.50, n));
  EXPECT_NEAR(share("kprof_ct_a", true), 0.50, tolerance(0.50, n));
  EXPECT_LT(share("kprof_ct_a", false), 0.03) << "a does no work of its own";

  // The leaf's callers split 2:1.
  const CallTree tree = call_tree(st, "kprof_ct_leaf", CallDirection::Callers, 1, path_);
  std::map<std::string, uint64_t> callers;
  for (const CallTreeNode& c : tree.root.children) callers[c.function] = c.samples;
  const double leaf = static_cast<double>(tree.root.samples);
  ASSERT_GT(leaf, 200);
  EXPECT_NEAR(callers["kprof_ct_a"] / leaf, 2.0 / 3, tolerance(2.0 / 3, leaf));
  EXPECT_NEAR(callers["kprof_ct_b"] / leaf, 1.0 / 3, tolerance(1.0 / 3, leaf));
}

TEST_F(CallgraphE2E, SyscallKernelSamplesSitUnderTheirUserCaller) {
  const Stacks st = record_stacks({program("kprof_prog_syscalls"), "1.5"});
  if (HasFailure()) return;
  uint64_t kernel_leaf = 0, under_user = 0, with_entry = 0, under_main = 0;
  for (const Stack& s : st.stacks) {
    if (st.frames.at(s.frames.front()).mode != Mode::Kernel) continue;
    if (st.processes.at(s.process).name != "kprof_prog_sysc") continue;  // comm is 15 chars
    kernel_leaf += s.samples;
    bool seen_user = false, entry = false, main = false, ordered = true;
    for (uint32_t id : s.frames) {
      const Frame& f = st.frames.at(id);
      if (f.mode == Mode::User) {
        seen_user = true;
      } else if (seen_user) {
        ordered = false;  // a kernel frame outside the user frames
      }
      entry |= f.mode == Mode::Kernel &&
               (f.function == "do_syscall_64" || f.function.starts_with("entry_SYSCALL_64"));
      main |= f.mode == Mode::User && f.function == "main";
    }
    EXPECT_TRUE(ordered) << "kernel frames must all come before (below) the user frames";
    if (seen_user) under_user += s.samples;
    if (seen_user && entry) with_entry += s.samples;
    if (main) under_main += s.samples;
  }
  ASSERT_GT(kernel_leaf, 100u) << "the syscall program spends most of its time in the kernel";
  // Nearly every kernel sample of the program is one stack with its user
  // side: entered through the syscall path, and reaching main.
  EXPECT_GE(with_entry * 10, kernel_leaf * 9) << with_entry << " of " << kernel_leaf;
  EXPECT_GE(under_main * 10, kernel_leaf * 9) << under_main << " of " << kernel_leaf;
  // (The few others entered the kernel by a fault or an interrupt.)
}

// A -g recording killed with SIGKILL has Records but no Stacks chunk: report
// rebuilds the stacks from the records (user frames unnamed: [unknown] in
// their image, since symbols are written when recording ends), and kprof
// symbolize names them afterwards and writes the Stacks chunk.
TEST_F(CallgraphE2E, CutShortRecordingRebuildsItsStacks) {
  const Killed k = record_then_kill({kprof_binary(), "record", "-g", "-F", "999", "-o", path_, "--",
                                     program("kprof_prog_calltree"), "10"},
                                    dir_.path());
  ASSERT_EQ(k.result.exit_code, 128 + SIGKILL) << k.result.describe();

  const Profile cut = perfabi::load_profile(path_);
  ASSERT_FALSE(cut.status.complete);
  EXPECT_FALSE(cut.stacks.has_value());
  const ProfileHistogram rebuilt = histogram_of(cut);
  ASSERT_TRUE(rebuilt.stacks.has_value()) << "the stacks are rebuilt from the records";
  EXPECT_EQ(rebuilt.stacks->total_samples(), rebuilt.histogram.total_samples());
  ASSERT_GT(rebuilt.stacks->total_samples(), 200u);
  const RunResult children = run({kprof_binary(), "report", path_, "--children"}, dir_.path(), 60);
  ASSERT_EQ(children.exit_code, 0) << children.describe();
  EXPECT_NE(children.out.find("cut short"), std::string::npos) << children.out;

  const RunResult sym = run({kprof_binary(), "symbolize", path_}, dir_.path(), 60);
  ASSERT_EQ(sym.exit_code, 0) << sym.describe();
  const Profile named = perfabi::load_profile(path_);
  ASSERT_TRUE(named.stacks.has_value()) << "kprof symbolize writes the Stacks chunk";
  EXPECT_EQ(named.stacks->total_samples(), rebuilt.stacks->total_samples());
  auto rows = by_name(*named.stacks);
  EXPECT_GT(rows["kprof_ct_leaf"].total_samples, 0u);
  EXPECT_GT(rows["kprof_ct_b"].total_samples, 0u);
}

// B_FACTOR 2 doubles b's call of the leaf: b's total goes from 1/2 to 3/5 of
// the program, a's falls from 1/2 to 2/5, and of the leaf's callers b gains.
TEST_F(CallgraphE2E, DiffPutsTheSlowerPathOnItsCaller) {
  const std::string base = dir_.file("base.kprof"), next = dir_.file("new.kprof");
  for (const auto& [out, factor] : {std::pair{base, "1"}, std::pair{next, "2"}}) {
    const RunResult r = run({kprof_binary(), "record", "-g", "-F", "4999", "-o", out, "--",
                             program("kprof_prog_calltree"), "1.5", factor},
                            dir_.path(), 60);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }
  auto diff_rows = [&](const std::vector<std::string>& view) {
    const std::string json_path = dir_.file("d.json");
    std::vector<std::string> argv = {kprof_binary(), "diff", base, next, "--json", json_path};
    argv.insert(argv.end(), view.begin(), view.end());
    const RunResult r = run(argv, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::map<std::string, std::pair<double, std::string>> rows;  // name -> (delta, verdict)
    const nlohmann::json j = nlohmann::json::parse(read_text(json_path), nullptr, false);
    if (j.is_discarded() || !j.contains("rows")) return rows;
    for (const auto& row : j["rows"]) {
      rows[row["name"].get<std::string>()] = {row["sides"][1]["delta_pp"].get<double>(),
                                              row["sides"][1]["verdict"].get<std::string>()};
    }
    return rows;
  };
  auto children = diff_rows({"--children"});
  EXPECT_GT(children["kprof_ct_b"].first, 0) << "b's total grows";
  EXPECT_EQ(children["kprof_ct_b"].second, "changed");
  EXPECT_LT(children["kprof_ct_a"].first, 0) << "a's share shrinks as b's grows";
  auto callers = diff_rows({"--callers", "kprof_ct_leaf"});
  EXPECT_GT(callers["kprof_ct_b"].first, 0) << "the leaf's extra samples come through b";
  EXPECT_EQ(callers["kprof_ct_b"].second, "changed");
  EXPECT_GT(callers["kprof_ct_b"].first, callers["kprof_ct_a"].first);
}

// Issue 22: a -g recording keeps its time slices (per leaf frame), so one
// run a side is judged by its own spread, as a flat recording is.
TEST_F(CallgraphE2E, OneRunASideIsJudgedByItsTimeSlices) {
  const Stacks st = record_stacks({program("kprof_prog_calltree"), "1.5", "1"});
  ASSERT_FALSE(st.leaf_slices.empty()) << "no time slices in the Stacks chunk";
  const Histogram h = leaf_histogram(st);
  EXPECT_GE(h.slice_totals().size(), 16u);
  const std::string other = dir_.file("other.kprof");
  const RunResult rec = run({kprof_binary(), "record", "-g", "-F", "999", "-o", other, "--",
                             program("kprof_prog_calltree"), "1.5", "1"},
                            dir_.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  const std::string json_path = dir_.file("aa.json");
  const RunResult r =
      run({kprof_binary(), "diff", path_, other, "--json", json_path}, dir_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("own spread over its time slices"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(read_text(json_path), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["profiles"][1]["slice_dispersion"].is_number()) << j["profiles"].dump();
}

}  // namespace
}  // namespace kprof::e2e
