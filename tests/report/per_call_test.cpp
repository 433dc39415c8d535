// Cost per system call (issue 25) on stacks made in code, whose costs are
// known by construction: samples under each call's entry charged to it,
// the system-call path shared over every call, the counting's own handlers
// kept apart; across two sides, the slowed call found, the other noise, and
// the functions under it accounting for its change.
#include "report/per_call.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/error.h"

namespace kprof {
namespace {

// Stacks from (leaf-first frame names, samples); kernel frames unless the
// name starts with "u:". Every sample's period is 1,000,000 ns (1 kHz).
Stacks make_stacks(const std::vector<std::pair<std::vector<std::string>, uint64_t>>& in) {
  Stacks s;
  s.images = {{"[kernel]"}, {"/bin/app"}};
  s.processes = {{100, "app"}};
  std::map<std::string, uint32_t> ids;
  for (const auto& [names, samples] : in) {
    Stack st;
    for (const std::string& n : names) {
      const bool user = n.starts_with("u:");
      const std::string fn = user ? n.substr(2) : n;
      auto [it, fresh] = ids.emplace(n, static_cast<uint32_t>(s.frames.size()));
      if (fresh) s.frames.push_back({user ? 1u : 0u, fn, user ? Mode::User : Mode::Kernel});
      st.frames.push_back(it->second);
    }
    st.samples = samples;
    st.period = samples * 1'000'000;
    s.stacks.push_back(st);
  }
  return s;
}

const std::vector<std::string> kEntry = {"do_syscall_64", "entry_SYSCALL_64_after_hwframe"};

std::vector<std::string> under(std::vector<std::string> leaf_first) {
  leaf_first.insert(leaf_first.end(), kEntry.begin(), kEntry.end());
  leaf_first.push_back("u:main");
  return leaf_first;
}

EventInfo cpu_clock() {
  EventInfo e;
  e.name = "cpu-clock";
  return e;
}

// chdir: `chdir_samples` under __x64_sys_chdir, split link_path_walk /
// extra (rt_spin_unlock); newuname 200 under __do_sys_newuname (tail-called:
// no __x64_ frame); 100 in do_syscall_64 itself; 50 in the counting's
// handlers; 30 in an interrupt; 20 in user space (compute: it makes no calls,
// so they are not a wrapper's).
Stacks profile(uint64_t walk, uint64_t extra) {
  std::vector<std::pair<std::vector<std::string>, uint64_t>> in = {
      {under({"link_path_walk", "__x64_sys_chdir"}), walk},
      {under({"_copy_to_user", "__do_sys_newuname"}), 200},
      {under({}), 100},
      {under({"perf_tp_event", "perf_syscall_enter", "syscall_trace_enter"}), 50},
      {{"native_safe_halt", "asm_sysvec_apic_timer_interrupt"}, 30},
      {{"u:compute", "u:main"}, 20}};
  if (extra) in.push_back({under({"rt_spin_unlock", "__x64_sys_chdir"}), extra});
  return make_stacks(in);
}

SyscallCounts counts() {
  SyscallCounts c;
  c.calls = {{"chdir", 1'000'000}, {"newuname", 1'000'000}, {"getpid", 3}};
  c.source = "test";
  return c;
}

TEST(PerCall, ChargesEachSampleToItsCallAndSharesThePath) {
  const Stacks s = profile(1000, 0);
  EXPECT_EQ(syscall_of_stack(s, s.stacks[0]), "chdir");
  EXPECT_EQ(syscall_of_stack(s, s.stacks[1]), "newuname");
  EXPECT_EQ(syscall_of_stack(s, s.stacks[2]), "");
  const PerCallProfile p = per_call_profile(s, counts(), cpu_clock(), 10, "x.kprof");
  EXPECT_EQ(p.unit, "ns");
  ASSERT_GE(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[0].name, "chdir");  // the most time first
  EXPECT_EQ(p.calls[0].samples, 1000u);
  EXPECT_DOUBLE_EQ(p.calls[0].period / static_cast<double>(p.calls[0].calls), 1000.0);  // ns
  EXPECT_EQ(p.calls[0].functions[0].function, "link_path_walk");
  EXPECT_EQ(p.calls[1].name, "newuname");
  EXPECT_DOUBLE_EQ(p.calls[1].period / 1e6, 200e6 / 1e6);
  EXPECT_EQ(p.entry_exit_samples, 100u);
  EXPECT_NEAR(p.entry_exit_per_call(), 100e6 / 2'000'003, 1e-6);
  EXPECT_EQ(p.counting_samples, 50u);
  EXPECT_EQ(p.other_kernel_samples, 30u);
  EXPECT_EQ(p.user_samples, 20u);
  std::ostringstream out;
  write_per_call(out, p, 0);
  EXPECT_NE(out.str().find("chdir"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("in the counting's own tracepoint handlers"), std::string::npos);
}

// close's final fput runs as task work on the way back to user space, in
// the path outside __x64_sys_close: its user-side caller (__close) says
// whose it is; syscall(2), making two kinds, splits by their counts.
TEST(PerCall, EntryExitGoesToTheCallItsUserCallerMakes) {
  auto path = [](std::vector<std::string> f, const std::string& caller) {
    f.insert(f.end(), kEntry.begin(), kEntry.end());
    f.push_back("u:" + caller);
    return f;
  };
  const Stacks s = make_stacks({{path({"filp_close", "__x64_sys_close"}, "__close"), 100},
                                {path({"__fput", "task_work_run"}, "__close"), 400},
                                {path({"__x64_sys_getpid"}, "syscall"), 10},
                                {path({"__x64_sys_getppid"}, "syscall"), 10},
                                {path({}, "syscall"), 200}});
  SyscallCounts c;
  c.calls = {{"close", 1'000'000}, {"getpid", 500'000}, {"getppid", 500'000}};
  const PerCallProfile p = per_call_profile(s, c, cpu_clock(), 1, "x");
  std::map<std::string, const CallCost*> by;
  for (const CallCost& cc : p.calls) by[cc.name] = &cc;
  // close: its 400 ms of fput, 400 ns a call; syscall(2)'s 200 ms split
  // over getpid and getppid by their counts: 200 ns a call each.
  EXPECT_DOUBLE_EQ(by["close"]->entry_exit_period, 400e6);
  EXPECT_DOUBLE_EQ(by["getpid"]->entry_exit_period, 100e6);
  EXPECT_DOUBLE_EQ(p.shared_entry_exit_period, 0);
  EXPECT_DOUBLE_EQ(p.entry_exit_of(*by["close"]), 400);
  EXPECT_DOUBLE_EQ(p.entry_exit_of(*by["getpid"]), 200);
  EXPECT_DOUBLE_EQ(p.entry_exit_per_call(), 600e6 / 2e6);
}

// The way back to user mode runs with interrupts off, so a timer sample due
// there lands on the wrapper's next instruction: a user-mode sample in a
// wrapper seen making calls is that call's exit; one in other user code
// (main) stays user time.
TEST(PerCall, SamplesInACallsWrapperAreItsExit) {
  auto path = [](std::vector<std::string> f, const std::string& caller) {
    f.insert(f.end(), kEntry.begin(), kEntry.end());
    f.push_back("u:" + caller);
    f.push_back("u:main");
    return f;
  };
  const Stacks s = make_stacks({{path({"filp_close", "__x64_sys_close"}, "__close"), 100},
                                {path({"__x64_sys_getpid"}, "syscall"), 30},
                                {path({"__x64_sys_getppid"}, "syscall"), 30},
                                {{"u:__close", "u:main"}, 30},
                                {{"u:syscall", "u:main"}, 40},
                                {{"u:main"}, 20}});
  // main makes no call itself here; a loop making its calls inline whose own
  // samples outnumber those inside them is no wrapper either (below).
  SyscallCounts c;
  c.calls = {{"close", 1'000'000}, {"getpid", 300'000}, {"getppid", 100'000}};
  const PerCallProfile p = per_call_profile(s, c, cpu_clock(), 1, "x");
  std::map<std::string, const CallCost*> by;
  for (const CallCost& cc : p.calls) by[cc.name] = &cc;
  EXPECT_EQ(p.user_samples, 20u);
  EXPECT_EQ(p.wrapper_samples, 70u);
  EXPECT_EQ(p.entry_exit_samples, 70u);
  EXPECT_DOUBLE_EQ(by["close"]->entry_exit_period, 30e6);
  EXPECT_DOUBLE_EQ(by["getpid"]->entry_exit_period, 30e6);  // syscall(2)'s 40 ms by counts, 3:1
  EXPECT_DOUBLE_EQ(by["getppid"]->entry_exit_period, 10e6);
  EXPECT_DOUBLE_EQ(p.entry_exit_of(*by["close"]), 30);
  EXPECT_DOUBLE_EQ(by["close"]->period, 100e6);  // under its entry: unchanged
  std::ostringstream out;
  write_per_call(out, p, 0);
  EXPECT_NE(out.str().find("in the calls' libc wrappers, counted as entry/exit"), std::string::npos)
      << out.str();

  const Stacks loop =
      make_stacks({{path({"__x64_sys_getpid"}, "spin"), 10}, {{"u:spin", "u:main"}, 11}});
  const PerCallProfile q = per_call_profile(loop, c, cpu_clock(), 1, "x");
  EXPECT_EQ(q.user_samples, 11u);
  EXPECT_EQ(q.wrapper_samples, 0u);
}

TEST(PerCall, MissingStacksOrCountsIsExitTwoWithTheFix) {
  try {
    per_call_profile(std::nullopt, counts(), cpu_clock(), 1, "flat.kprof");
    FAIL() << "no stacks accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("kprof record -g --syscalls"), std::string::npos);
  }
  try {
    per_call_profile(profile(10, 0), std::nullopt, cpu_clock(), 1, "g.kprof");
    FAIL() << "no counts accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("no system-call counts"), std::string::npos);
  }
}

// Known by construction: chdir costs 1,000 ns a call on the base and 1,300
// on the new side, all of it in rt_spin_unlock; newuname the same on both.
TEST(PerCall, TheSlowedCallIsFoundAndItsFunctionsAccountForIt) {
  std::vector<PerCallSide> sides = {
      {"generic", {per_call_profile(profile(1000, 0), counts(), cpu_clock(), 10, "a")}},
      {"rt", {per_call_profile(profile(1000, 300), counts(), cpu_clock(), 10, "b")}}};
  const PerCallDiff d = per_call_diff(sides, 0.05);
  std::map<std::string, const CallColumn*> by;
  for (const CallColumn& c : d.calls) by[c.name] = &c;
  ASSERT_TRUE(by.count("chdir") && by.count("newuname"));
  const CallChange& chdir = by["chdir"]->vs_base[1];
  EXPECT_TRUE(chdir.changed);
  EXPECT_NEAR(chdir.delta(), 300, 1e-9);
  EXPECT_LT(chdir.base * chdir.change.lo_pp / 100, 300);
  EXPECT_GT(chdir.base * chdir.change.hi_pp / 100, 300) << "the interval holds the true +300 ns";
  EXPECT_FALSE(by["newuname"]->vs_base[1].changed);
  const auto& fns = by["chdir"]->functions[1];
  ASSERT_FALSE(fns.empty());
  EXPECT_EQ(fns[0].function, "rt_spin_unlock");
  EXPECT_TRUE(fns[0].cost.changed);
  double sum = 0;
  for (const FunctionChange& f : fns) sum += f.cost.delta();
  EXPECT_NEAR(sum, chdir.delta(), 1e-9) << "the functions' changes sum to the call's";
  EXPECT_NEAR(by["chdir"]->accounted_pct[1], 100, 1e-9);
  std::ostringstream out;
  write_per_call_diff(out, d, 6);
  const std::string text = out.str();
  EXPECT_NE(text.find("chdir() on rt +300 ns per call: rt_spin_unlock +300 ns"), std::string::npos)
      << text;
  EXPECT_NE(text.find("accounted for: 100%"), std::string::npos) << text;
}

// Several runs a side: run-to-run variance, and an A/A with it finds nothing.
TEST(PerCall, RepeatedRunsUseRunVariance) {
  std::vector<PerCallSide> sides = {{"a", {}}, {"b", {}}};
  for (uint64_t w : {980, 1010, 1000}) {
    sides[0].runs.push_back(per_call_profile(profile(w, 0), counts(), cpu_clock(), 10, "a"));
    sides[1].runs.push_back(per_call_profile(profile(w + 5, 0), counts(), cpu_clock(), 10, "b"));
  }
  const PerCallDiff d = per_call_diff(sides, 0.05);
  EXPECT_EQ(d.noise, stats::NoiseMethod::RunVariance);
  for (const CallColumn& c : d.calls) EXPECT_FALSE(c.vs_base[1].changed) << c.name;
}

}  // namespace
}  // namespace kprof
