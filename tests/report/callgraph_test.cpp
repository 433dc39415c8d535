// The call-graph views (report/callgraph.h) on stacks made in code with a
// known call tree, and `kprof report --children / --callers / --callees`
// through the built binary (KPROF_BINARY).
#include "report/callgraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "export/tables.h"
#include "report/table.h"
#include "tests/report/test_support.h"
#include "tests/support/cli_run.h"

namespace kprof {
namespace {

// Frames are written outermost first, as "function" (user, in the bench
// binary), "libc:function" (user, in libc) or "k:function" (kernel).
class StacksMaker {
 public:
  StacksMaker() {
    s_.images = {{"[kernel]", ""}, {"/usr/bin/bench", ""}, {"/usr/lib/libc.so.6", ""}};
    s_.processes = {{42, "bench"}};
  }
  StacksMaker& add(const std::vector<std::string>& outer_first, uint64_t samples) {
    Stack st;
    for (auto it = outer_first.rbegin(); it != outer_first.rend(); ++it) {
      st.frames.push_back(frame(*it));
    }
    st.samples = samples;
    st.period = samples * 1000;
    s_.stacks.push_back(std::move(st));
    return *this;
  }
  const Stacks& stacks() const { return s_; }

 private:
  uint32_t frame(const std::string& spec) {
    Frame f{1, spec, Mode::User};
    if (spec.rfind("k:", 0) == 0) f = {0, spec.substr(2), Mode::Kernel};
    if (spec.rfind("libc:", 0) == 0) f = {2, spec.substr(5), Mode::User};
    auto it = std::find(s_.frames.begin(), s_.frames.end(), f);
    if (it != s_.frames.end()) return static_cast<uint32_t>(it - s_.frames.begin());
    s_.frames.push_back(f);
    return static_cast<uint32_t>(s_.frames.size() - 1);
  }
  Stacks s_;
};

// The known tree, 60 samples:
//   main→a→leaf 20, main→b→leaf 10, main→b 5 (self), main→r→r→r 6,
//   main→r→r→leaf 4, main→foo.isra.0→leaf 3, main→c→foo 2 (all under
//   _start→__libc_start_main); a kernel thread 5; a truncated a→leaf 3; a
//   syscall main→write→[kernel] 2.
Stacks sample_stacks() {
  const std::vector<std::string> top = {"_start", "libc:__libc_start_main", "main"};
  auto under_main = [&](std::vector<std::string> rest) {
    std::vector<std::string> v = top;
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  };
  StacksMaker m;
  m.add(under_main({"a", "leaf"}), 20)
      .add(under_main({"b", "leaf"}), 10)
      .add(under_main({"b"}), 5)
      .add(under_main({"r", "r", "r"}), 6)
      .add(under_main({"r", "r", "leaf"}), 4)
      .add(under_main({"foo.isra.0", "leaf"}), 3)
      .add(under_main({"c", "foo"}), 2)
      .add({"k:ret_from_fork", "k:worker_thread", "k:schedule"}, 5)
      .add({"a", "leaf"}, 3)
      .add(under_main({"libc:write", "k:entry_SYSCALL_64", "k:ksys_write"}), 2);
  return m.stacks();
}

const ChildrenRow* find_row(const std::vector<ChildrenRow>& rows, const std::string& function) {
  for (const ChildrenRow& r : rows) {
    if (r.function == function) return &r;
  }
  return nullptr;
}

// "function samples" for each child, in order.
std::vector<std::pair<std::string, uint64_t>> kids(const CallTreeNode& n) {
  std::vector<std::pair<std::string, uint64_t>> v;
  for (const CallTreeNode& c : n.children) v.emplace_back(c.function, c.samples);
  return v;
}

using Kids = std::vector<std::pair<std::string, uint64_t>>;

// A node's children never add up to more than the node.
void expect_children_within(const CallTreeNode& n) {
  uint64_t sum = 0;
  for (const CallTreeNode& c : n.children) {
    sum += c.samples;
    expect_children_within(c);
  }
  EXPECT_LE(sum, n.samples) << n.function;
}

TEST(Callgraph, ChildrenSelfAndTotal) {
  Stacks s = sample_stacks();
  ASSERT_EQ(s.total_samples(), 60u);
  std::vector<ChildrenRow> rows = children_rows(s);
  ASSERT_EQ(rows.size(), 16u);
  struct Want {
    const char* function;
    uint64_t self, total;
  };
  for (const Want& w : std::vector<Want>{{"_start", 0, 52},
                                         {"__libc_start_main", 0, 52},
                                         {"main", 0, 52},
                                         {"leaf", 40, 40},
                                         {"a", 0, 23},
                                         {"b", 5, 15},
                                         {"r", 6, 10},  // recursion counted once per stack
                                         {"schedule", 5, 5},
                                         {"foo.isra.0", 0, 3},
                                         {"foo", 2, 2},
                                         {"write", 0, 2},
                                         {"ksys_write", 2, 2}}) {
    const ChildrenRow* r = find_row(rows, w.function);
    ASSERT_NE(r, nullptr) << w.function;
    EXPECT_EQ(r->self_samples, w.self) << w.function;
    EXPECT_EQ(r->total_samples, w.total) << w.function;
  }
  // Total desc, then self desc, then image, function.
  EXPECT_EQ(rows[0].function, "_start");
  EXPECT_EQ(rows[1].function, "main");
  EXPECT_EQ(rows[2].function, "__libc_start_main");
  EXPECT_EQ(rows[3].function, "leaf");
  EXPECT_EQ(rows[7].function, "schedule");  // 5 self before the 0-self rows of 5
  EXPECT_EQ(rows[0].image, "/usr/bin/bench");
  EXPECT_EQ(rows[0].mode, Mode::User);
}

TEST(Callgraph, ChildrenCsv) {
  std::ostringstream out;
  write_children_csv(out, sample_stacks());
  EXPECT_EQ(out.str(),
            "self_samples,self_percent,total_samples,total_percent,image,function,mode\r\n"
            "0,0.0000,52,86.6667,/usr/bin/bench,_start,user\r\n"
            "0,0.0000,52,86.6667,/usr/bin/bench,main,user\r\n"
            "0,0.0000,52,86.6667,/usr/lib/libc.so.6,__libc_start_main,user\r\n"
            "40,66.6667,40,66.6667,/usr/bin/bench,leaf,user\r\n"
            "0,0.0000,23,38.3333,/usr/bin/bench,a,user\r\n"
            "5,8.3333,15,25.0000,/usr/bin/bench,b,user\r\n"
            "6,10.0000,10,16.6667,/usr/bin/bench,r,user\r\n"
            "5,8.3333,5,8.3333,[kernel],schedule,kernel\r\n"
            "0,0.0000,5,8.3333,[kernel],ret_from_fork,kernel\r\n"
            "0,0.0000,5,8.3333,[kernel],worker_thread,kernel\r\n"
            "0,0.0000,3,5.0000,/usr/bin/bench,foo.isra.0,user\r\n"
            "2,3.3333,2,3.3333,/usr/bin/bench,foo,user\r\n"
            "2,3.3333,2,3.3333,[kernel],ksys_write,kernel\r\n"
            "0,0.0000,2,3.3333,/usr/bin/bench,c,user\r\n"
            "0,0.0000,2,3.3333,/usr/lib/libc.so.6,write,user\r\n"
            "0,0.0000,2,3.3333,[kernel],entry_SYSCALL_64,kernel\r\n");
}

TEST(Callgraph, ChildrenTableTopAndPercentLimit) {
  ReportOptions opts;
  opts.top = 5;
  std::ostringstream out;
  write_children_table(out, sample_stacks(), opts);
  EXPECT_EQ(out.str(),
            "  self%   total%  samples  image      function\n"
            " 0.0000  86.6667       52  bench      _start\n"
            " 0.0000  86.6667       52  bench      main\n"
            " 0.0000  86.6667       52  libc.so.6  __libc_start_main\n"
            "66.6667  66.6667       40  bench      leaf\n"
            " 0.0000  38.3333       23  bench      a\n"
            "(11 more functions not shown)\n");
  opts.top = 0;
  opts.percent_limit = 50;
  std::ostringstream limited;
  write_children_table(limited, sample_stacks(), opts);
  EXPECT_NE(limited.str().find("leaf\n(12 more functions not shown)\n"), std::string::npos)
      << limited.str();
  opts.percent_limit = 0;
  opts.name_width = 4;
  std::ostringstream cut;
  write_children_table(cut, sample_stacks(), opts);
  EXPECT_NE(cut.str().find("  _st…\n"), std::string::npos) << cut.str();
}

TEST(Callgraph, CallersOfLeaf) {
  CallTree t = call_tree(sample_stacks(), "leaf", CallDirection::Callers, 3, "x.kprof");
  EXPECT_EQ(t.root.function, "leaf");
  EXPECT_EQ(t.root.image, "/usr/bin/bench");
  EXPECT_EQ(t.root.samples, 40u);
  EXPECT_EQ(t.all_samples, 60u);
  ASSERT_EQ(t.matches.size(), 1u);
  EXPECT_EQ(kids(t.root), (Kids{{"a", 23}, {"b", 10}, {"r", 4}, {"foo.isra.0", 3}}));
  EXPECT_EQ(kids(t.root.children[0]), (Kids{{"main", 20}}));  // the truncated a→leaf stops at a
  EXPECT_EQ(kids(t.root.children[0].children[0]), (Kids{{"__libc_start_main", 20}}));
  EXPECT_TRUE(t.root.children[0].children[0].children[0].children.empty());  // depth 3
  EXPECT_EQ(kids(t.root.children[2]), (Kids{{"r", 4}}));  // a recursive caller, level by level
  EXPECT_EQ(kids(t.root.children[2].children[0]), (Kids{{"main", 4}}));
  expect_children_within(t.root);

  std::ostringstream out;
  write_call_tree(out, t, ReportOptions{});
  EXPECT_EQ(out.str(),
            "callers of leaf: 40 samples, 66.6667% of all 60; shares below are of its 40, 3 "
            "levels up\n"
            "100.0000%  40  leaf  [bench]\n"
            "  57.5000%  23  a  [bench]\n"
            "    50.0000%  20  main  [bench]\n"
            "      50.0000%  20  __libc_start_main  [libc.so.6]\n"
            "  25.0000%  10  b  [bench]\n"
            "    25.0000%  10  main  [bench]\n"
            "      25.0000%  10  __libc_start_main  [libc.so.6]\n"
            "  10.0000%  4  r  [bench]\n"
            "    10.0000%  4  r  [bench]\n"
            "      10.0000%  4  main  [bench]\n"
            "  7.5000%  3  foo.isra.0  [bench]\n"
            "    7.5000%  3  main  [bench]\n"
            "      7.5000%  3  __libc_start_main  [libc.so.6]\n");
}

TEST(Callgraph, CallTreeTopAndPercentLimit) {
  CallTree t = call_tree(sample_stacks(), "leaf", CallDirection::Callers, 1, "x.kprof");
  ReportOptions opts;
  opts.top = 2;
  std::ostringstream out;
  write_call_tree(out, t, opts);
  EXPECT_NE(out.str().find("  25.0000%  10  b  [bench]\n  … 2 more: 7 samples, 17.5000%\n"),
            std::string::npos)
      << out.str();
  opts.top = 0;
  opts.percent_limit = 20;
  std::ostringstream limited;
  write_call_tree(limited, t, opts);
  EXPECT_NE(limited.str().find("  b  [bench]\n  … 2 more: 7 samples"), std::string::npos)
      << limited.str();
}

// Issue 23, item 11: on a terminal the tree's names give way to its width.
TEST(Callgraph, CallTreeFitsATerminal) {
  StacksMaker m;
  const std::string longname =
      "ns::detail::Scheduler<ns::detail::Queue<long>>::dispatch_all_pending(unsigned long, bool)";
  m.add({"main", longname, "leaf"}, 5);
  CallTree t = call_tree(m.stacks(), "leaf", CallDirection::Callers, 3, "x.kprof");
  ReportOptions opts;
  opts.line_width = 60;
  std::ostringstream out;
  write_call_tree(out, t, opts);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);  // the title: prose, wrapped by the terminal layer
  while (std::getline(lines, line)) EXPECT_LE(display_width(line), 60u) << out.str();
  EXPECT_NE(out.str().find("ns::detail::"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  [bench]"), std::string::npos) << out.str();
  // Not on a terminal: the name as before.
  std::ostringstream wide;
  write_call_tree(wide, t, ReportOptions{});
  EXPECT_NE(wide.str().find(longname), std::string::npos) << wide.str();
}

TEST(Callgraph, CallersAndCalleesOfRecursion) {
  Stacks s = sample_stacks();
  // Callers from the outermost r: r is never its own caller.
  CallTree up = call_tree(s, "r", CallDirection::Callers, 3, "x.kprof");
  EXPECT_EQ(up.root.samples, 10u);
  EXPECT_EQ(kids(up.root), (Kids{{"main", 10}}));
  EXPECT_EQ(kids(up.root.children[0]), (Kids{{"__libc_start_main", 10}}));
  EXPECT_EQ(kids(up.root.children[0].children[0]), (Kids{{"_start", 10}}));
  // Callees from the outermost r: the recursion shows as r calling r.
  CallTree down = call_tree(s, "r", CallDirection::Callees, 3, "x.kprof");
  EXPECT_EQ(down.root.samples, 10u);
  EXPECT_EQ(kids(down.root), (Kids{{"r", 10}}));
  EXPECT_EQ(kids(down.root.children[0]), (Kids{{"r", 6}, {"leaf", 4}}));
  expect_children_within(up.root);
  expect_children_within(down.root);
}

TEST(Callgraph, CalleesDepthLimit) {
  Stacks s = sample_stacks();
  CallTree one = call_tree(s, "main", CallDirection::Callees, 1, "x.kprof");
  EXPECT_EQ(one.root.samples, 52u);
  EXPECT_EQ(kids(one.root),
            (Kids{{"a", 20}, {"b", 15}, {"r", 10}, {"foo.isra.0", 3}, {"c", 2}, {"write", 2}}));
  for (const CallTreeNode& c : one.root.children) EXPECT_TRUE(c.children.empty()) << c.function;
  CallTree two = call_tree(s, "main", CallDirection::Callees, 2, "x.kprof");
  EXPECT_EQ(kids(two.root.children[1]), (Kids{{"leaf", 10}}));  // b: 5 self left over
  EXPECT_EQ(kids(two.root.children[5]), (Kids{{"entry_SYSCALL_64", 2}}));
  std::ostringstream out;
  write_call_tree(out, two, ReportOptions{});
  EXPECT_NE(out.str().find("\n  3.8462%  2  write  [libc.so.6]\n"
                           "    3.8462%  2  entry_SYSCALL_64  [kernel]\n"),
            std::string::npos)
      << out.str();
  for (const CallTreeNode& c : two.root.children) {
    for (const CallTreeNode& g : c.children) EXPECT_TRUE(g.children.empty()) << g.function;
  }
  CallTree none = call_tree(s, "main", CallDirection::Callees, 0, "x.kprof");
  EXPECT_TRUE(none.root.children.empty());
}

TEST(Callgraph, CanonicalNameMergesClones) {
  CallTree t = call_tree(sample_stacks(), "foo", CallDirection::Callers, 2, "x.kprof");
  EXPECT_EQ(t.matches, (std::vector<CallTreeMatch>{{"/usr/bin/bench", "foo"},
                                                   {"/usr/bin/bench", "foo.isra.0"}}));
  EXPECT_EQ(t.root.function, "foo");
  EXPECT_EQ(t.root.samples, 5u);
  EXPECT_EQ(kids(t.root), (Kids{{"main", 3}, {"c", 2}}));
  std::ostringstream out;
  write_call_tree(out, t, ReportOptions{});
  EXPECT_NE(out.str().find("foo matches 2 functions, merged: foo [bench], foo.isra.0 [bench]\n"),
            std::string::npos)
      << out.str();
  // The exact clone name finds only the clone.
  CallTree exact = call_tree(sample_stacks(), "foo.isra.0", CallDirection::Callers, 2, "x.kprof");
  EXPECT_EQ(exact.matches.size(), 1u);
  EXPECT_EQ(exact.root.samples, 3u);
}

TEST(Callgraph, CallTreeCsv) {
  CallTree t = call_tree(sample_stacks(), "b", CallDirection::Callers, 2, "x.kprof");
  std::ostringstream out;
  write_call_tree_csv(out, t);
  EXPECT_EQ(out.str(),
            "depth,path,samples,percent_of_function,image,function,mode\r\n"
            "0,b,15,100.0000,/usr/bin/bench,b,user\r\n"
            "1,b;main,15,100.0000,/usr/bin/bench,main,user\r\n"
            "2,b;main;__libc_start_main,15,100.0000,/usr/lib/libc.so.6,__libc_start_main,user\r\n");
  CallTree down = call_tree(sample_stacks(), "main", CallDirection::Callees, 2, "x.kprof");
  std::ostringstream d;
  write_call_tree_csv(d, down);
  EXPECT_NE(d.str().find("2,main;write;entry_SYSCALL_64,2,3.8462,[kernel],entry_SYSCALL_64,"
                         "kernel\r\n"),
            std::string::npos)
      << d.str();
}

TEST(Callgraph, FunctionNotFound) {
  try {
    call_tree(sample_stacks(), "nope", CallDirection::Callees, 3, "run.kprof");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "no function 'nope' in the call stacks of run.kprof; kprof report --children "
                 "lists them");
  }
}

// Issue 23, item 8: on no match the closest names are offered.
TEST(Callgraph, FunctionNotFoundSuggestsTheClosest) {
  try {
    call_tree(sample_stacks(), "schedul", CallDirection::Callers, 3, "run.kprof");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "no function 'schedul' in the call stacks of run.kprof; closest: schedule; "
                 "kprof report --children lists them");
  }
  const CallTree t = call_tree(sample_stacks(), "foo", CallDirection::Callers, 1, "run.kprof");
  EXPECT_EQ(t.matches.size(), 2u) << "foo and foo.isra.0";
}

TEST(Callgraph, TruncatedStacks) {
  Stacks s = sample_stacks();
  EXPECT_EQ(truncated_stack_samples(s), 3u);  // only the a→leaf stack; kernel-only stacks never
  EXPECT_EQ(truncation_notice(s),
            "5.0% of stacks look truncated (user code without frame pointers, or "
            "kernel.perf_event_max_stack); record with --call-graph dwarf to unwind it by CFI");
  StacksMaker m;
  m.add({"main", "work"}, 1)          // main is not a root
      .add({"[unknown]", "work"}, 2)  // lost its frames
      .add({"libc:clone3", "libc:start_thread", "worker"}, 4)
      .add({"libc:__libc_start_call_main", "main"}, 8)
      .add({"thread_start", "k:schedule"}, 16)     // outermost user frame counts
      .add({"k:ret_from_fork", "k:kthread"}, 32);  // no user part
  EXPECT_EQ(truncated_stack_samples(m.stacks()), 3u);
  EXPECT_TRUE(is_stack_root("__libc_start_main"));
  EXPECT_TRUE(is_stack_root("start_thread"));
  EXPECT_FALSE(is_stack_root("main"));
  StacksMaker whole;
  whole.add({"_start", "main"}, 1);
  EXPECT_EQ(truncation_notice(whole.stacks()), "");
}

// ------------------------------------------------------------------ the CLI

using test::CliRun;

CliRun run_kprof(const std::string& args, const std::string& dir) {
  return test::run_cli(KPROF_BINARY, args, dir);
}

void expect_one_line_error(const CliRun& r, int code) {
  EXPECT_EQ(r.status, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("kprof report: ", 0), 0u) << r.err;
}

// The flat histogram of a -g profile: each stack's leaf frame.

// The sample stacks' run: its histogram always, its Stacks with -g.
test::ProfileBuilder builder(bool with_stacks) {
  test::ProfileBuilder b;
  b.run = test::sample_run();
  b.run.event.callchains = with_stacks;
  b.summary = test::sample_summary();
  b.histogram = leaf_histogram(sample_stacks());
  if (with_stacks) b.stacks = sample_stacks();
  return b;
}

std::string write_profile(const std::string& dir, bool with_stacks) {
  return builder(with_stacks).write(dir + (with_stacks ? "/g.kprof" : "/flat.kprof"));
}

TEST(CallgraphCli, Children) {
  std::string dir = test::temp_dir("cg_children");
  std::string path = write_profile(dir, true);
  CliRun r = run_kprof("report --children --top 2 '" + path + "'", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# event:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" self%   total%  samples  image  function\n"
                       "0.0000  86.6667       52  bench  _start\n"
                       "0.0000  86.6667       52  bench  main\n"
                       "(14 more functions not shown)\n"
                       "5.0% of stacks look truncated"),
            std::string::npos)
      << r.out;
  CliRun csv = run_kprof("report --children --csv - '" + path + "'", dir);
  EXPECT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("self_samples,self_percent,total_samples,total_percent,image,function,"
                          "mode\r\n0,0.0000,52,86.6667,/usr/bin/bench,_start,user\r\n",
                          0),
            0u)
      << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 17) << csv.out;
}

TEST(CallgraphCli, Callers) {
  std::string dir = test::temp_dir("cg_callers");
  std::string path = write_profile(dir, true);
  CliRun r = run_kprof("report --no-header --callers foo --depth 1 '" + path + "'", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "callers of foo: 5 samples, 8.3333% of all 60; shares below are of its 5, 1 level up\n"
            "foo matches 2 functions, merged: foo [bench], foo.isra.0 [bench]\n"
            "100.0000%  5  foo  [bench]\n"
            "  60.0000%  3  main  [bench]\n"
            "  40.0000%  2  c  [bench]\n"
            "5.0% of stacks look truncated (user code without frame pointers, or "
            "kernel.perf_event_max_stack); record with --call-graph dwarf to unwind it by CFI\n");
  CliRun csv =
      run_kprof("report --callees r --csv '" + dir + "/tree.csv' --no-header '" + path + "'", dir);
  EXPECT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(test::read_text(dir + "/tree.csv"),
            "depth,path,samples,percent_of_function,image,function,mode\r\n"
            "0,r,10,100.0000,/usr/bin/bench,r,user\r\n"
            "1,r;r,10,100.0000,/usr/bin/bench,r,user\r\n"
            "2,r;r;r,6,60.0000,/usr/bin/bench,r,user\r\n"
            "2,r;r;leaf,4,40.0000,/usr/bin/bench,leaf,user\r\n");
  EXPECT_EQ(csv.out.rfind("callees of r: 10 samples", 0), 0u) << csv.out;
  expect_one_line_error(run_kprof("report --callers nope '" + path + "'", dir), 1);
}

TEST(CallgraphCli, NoCallChains) {
  std::string dir = test::temp_dir("cg_flat");
  std::string path = write_profile(dir, false);
  for (const char* opt : {"--children", "--callers main", "--callees main --csv -"}) {
    CliRun r = run_kprof(std::string("report ") + opt + " '" + path + "'", dir);
    expect_one_line_error(r, 1);
    EXPECT_EQ(r.err, "kprof report: " + path + " has no call chains: record with kprof record -g\n")
        << opt;
  }
  EXPECT_EQ(run_kprof("report '" + path + "'", dir).status, 0);
}

// A Stacks chunk whose table points past its frames: the reader stops there
// and says why, and report rebuilds from the records (none here) instead of
// trusting the histogram beside the damaged stacks.
TEST(CallgraphCli, DamagedStackTableIsNamed) {
  std::string dir = test::temp_dir("cg_damaged");
  test::ProfileBuilder b = builder(true);
  b.stacks->stacks[0].frames[0] = 99;
  const std::string path = b.write(dir + "/bad.kprof");
  // Its stacks skipped as damaged, and no records to rebuild them from:
  // nothing to show is a failure (issue 23, item 6).
  CliRun r = run_kprof("report --children '" + path + "'", dir);
  expect_one_line_error(r, 1);
  EXPECT_NE(r.err.find("damaged: skipped chunk 'stacks'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stack names frame 99"), std::string::npos) << r.err;
  // An older kprof's -g file: a histogram, call chains recorded, no stacks.
  test::ProfileBuilder old = builder(true);
  old.stacks.reset();
  const std::string old_path = old.write(dir + "/old.kprof");
  r = run_kprof("report --children '" + old_path + "'", dir);
  expect_one_line_error(r, 1);
  EXPECT_NE(r.err.find("kprof symbolize"), std::string::npos) << r.err;
}

TEST(CallgraphCli, CallersExcludeCallees) {
  std::string dir = test::temp_dir("cg_exclusive");
  std::string path = write_profile(dir, true);
  expect_one_line_error(run_kprof("report --callers a --callees b '" + path + "'", dir), 2);
  expect_one_line_error(run_kprof("report --children --callers a '" + path + "'", dir), 2);
  expect_one_line_error(run_kprof("report --callers a --depth 0 '" + path + "'", dir), 2);
  CliRun help = run_kprof("report --help", dir);
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--callees"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--depth"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace kprof
