// report/filter.h: perf's --comm, --pid, --dso and --symbol over a loaded
// profile's stacks or flat rows.
#include "report/filter.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "report/summary.h"

namespace kprof {
namespace {

// Two processes: postgres (pid 10) and other (pid 20). Frames: 0 a kernel
// function, 1 memcpy in libc, 2 main in postgres, 3 main in other.
Profile two_processes() {
  Stacks s;
  s.images = {{"[kernel]", ""},
              {"/usr/lib/x86_64-linux-gnu/libc.so.6", ""},
              {"/usr/lib/postgresql/15/bin/postgres", ""},
              {"/usr/bin/other", ""}};
  s.frames = {{0, "copy_user_generic", Mode::Kernel},
              {1, "memcpy", Mode::User},
              {2, "main", Mode::User},
              {3, "main", Mode::User}};
  s.processes = {{10, "postgres"}, {20, "other"}};
  s.stacks = {{0, {0, 2}, 30, 30}, {0, {1, 2}, 20, 20}, {1, {0, 3}, 40, 40}, {1, {3}, 10, 10}};
  // Leaf samples of each frame over two time slices.
  s.leaf_slices = {{35, 35}, {10, 10}, {}, {5, 5}};
  Profile p;
  p.path = "two.kprof";
  p.stacks = std::move(s);
  p.histogram = Histogram{};  // a finished -g profile (histogram_usable)
  return p;
}

uint64_t samples_of(const Profile& p) {
  return histogram_of(p).histogram.total_samples();
}

int exit_code_of(Profile p, const SampleFilter& f, std::string* message) {
  try {
    apply_filter(p, f);
  } catch (const Error& e) {
    *message = e.what();
    return e.exit_code();
  }
  return 0;
}

TEST(Filter, CommKeepsThatProcessesStacksAndSaysWhatShareRemains) {
  Profile p = two_processes();
  apply_filter(p, {.comms = {"postgres"}});
  EXPECT_EQ(samples_of(p), 50u);
  ASSERT_EQ(p.stacks->stacks.size(), 2u);
  for (const Stack& s : p.stacks->stacks) EXPECT_EQ(s.process, 0u);
  // copy_user_generic is a leaf of both processes: its slices no longer hold.
  EXPECT_TRUE(p.stacks->leaf_slices.empty());
  ASSERT_FALSE(p.run.notices.empty());
  EXPECT_EQ(p.run.notices.back(),
            "filtered (--comm postgres): 50 of 100 samples (50.0%) kept; shares are of what "
            "remains");
}

TEST(Filter, PidAndCommTogetherMustBothHold) {
  Profile p = two_processes();
  apply_filter(p, {.pids = {20}});
  EXPECT_EQ(samples_of(p), 50u);
  std::string message;
  EXPECT_EQ(exit_code_of(two_processes(), {.comms = {"postgres"}, .pids = {20}}, &message), 1);
  EXPECT_NE(message.find("together"), std::string::npos) << message;
}

TEST(Filter, DsoByFileNameKeepsLeavesThereAndTheirSlices) {
  Profile p = two_processes();
  apply_filter(p, {.dsos = {"libc.so.6"}});
  EXPECT_EQ(samples_of(p), 20u);
  // memcpy's stacks are all kept: its slices stand; the others' are cleared.
  ASSERT_EQ(p.stacks->leaf_slices.size(), 4u);
  EXPECT_EQ(p.stacks->leaf_slices[1], (std::vector<uint32_t>{10, 10}));
  EXPECT_TRUE(p.stacks->leaf_slices[0].empty());
  EXPECT_EQ(histogram_of(p).histogram.rows.at(0).slices, (std::vector<uint32_t>{10, 10}));
}

TEST(Filter, KernelIsNamedAsPerfNamesIt) {
  Profile p = two_processes();
  apply_filter(p, {.dsos = {"[kernel.kallsyms]"}});
  EXPECT_EQ(samples_of(p), 70u);
  EXPECT_TRUE(names_image("[kernel]", "kernel"));
  EXPECT_TRUE(names_image("[kernel]", "kernel.kallsyms"));  // [...] as CLI11 passes it
  EXPECT_TRUE(names_image("[vdso]", "vdso"));
  EXPECT_FALSE(names_image("[vdso]", "[kernel]"));
  EXPECT_TRUE(names_image("/usr/bin/other", "other"));
  EXPECT_TRUE(names_image("/usr/bin/other", "/usr/bin/other"));
  EXPECT_FALSE(names_image("/usr/bin/other", "bin/other"));
  EXPECT_FALSE(names_image("/usr/bin/other", "othe"));
}

TEST(Filter, SymbolKeepsTheStacksThatHitIt) {
  Profile p = two_processes();
  apply_filter(p, {.symbols = {"main"}});
  EXPECT_EQ(samples_of(p), 10u);  // only other's own main is a leaf
  Profile q = two_processes();
  apply_filter(q, {.dsos = {"[kernel]"}, .symbols = {"copy_user_generic"}});
  EXPECT_EQ(samples_of(q), 70u);
}

TEST(Filter, NothingMatchingNamesWhatExists) {
  std::string message;
  EXPECT_EQ(exit_code_of(two_processes(), {.comms = {"postgre"}}, &message), 1);
  EXPECT_NE(message.find("no samples match --comm postgre in two.kprof (100 samples)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("these exist: other (50), postgres (50)"), std::string::npos) << message;
  EXPECT_EQ(exit_code_of(two_processes(), {.symbols = {"memcpyy"}}, &message), 1);
  EXPECT_NE(message.find("closest: memcpy"), std::string::npos) << message;
}

TEST(Filter, AFlatProfileTakesTheProcessOnlyThroughItsThreadTable) {
  Profile p;
  p.path = "flat.kprof";
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/usr/bin/app", ""}};
  h.rows = {{0, "schedule", Mode::Kernel, 60, 60}, {1, "work", Mode::User, 40, 40}};
  h.rows[0].slices = {30, 30};
  h.rows[1].slices = {20, 20};
  p.histogram = h;
  // Without one (older files, listings): refused, naming the way out.
  std::string message;
  EXPECT_EQ(exit_code_of(p, {.comms = {"app"}}, &message), 2);
  EXPECT_NE(message.find("per-thread table"), std::string::npos) << message;
  apply_filter(p, {.dsos = {"app"}});
  ASSERT_EQ(p.histogram->rows.size(), 1u);
  EXPECT_EQ(p.histogram->rows[0].function, "work");
  EXPECT_NE(p.run.notices.back().find("40 of 100 samples (40.0%)"), std::string::npos);
  // With one: app's threads ran work 30 and schedule 20, db's the rest.
  Profile q;
  q.path = "flat.kprof";
  q.histogram = h;
  const std::vector<uint32_t> order = flat_order(h);  // rank -> row
  std::vector<uint32_t> rank(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  ThreadCounts t;
  t.threads = {{10, 10, "app"}, {11, 10, "app"}, {20, 20, "db"}};
  t.rows = {{0, 0, rank[1], 25, 25},
            {1, 1, rank[1], 5, 5},
            {0, 0, rank[0], 20, 20},
            {2, 1, rank[1], 10, 10},
            {2, 0, rank[0], 40, 40}};
  q.threads = t;
  Profile by_pid = q;
  apply_filter(q, {.comms = {"app"}});
  ASSERT_EQ(q.histogram->rows.size(), 2u);
  EXPECT_EQ(q.histogram->rows[0].function, "schedule");
  EXPECT_EQ(q.histogram->rows[0].samples, 20u);
  EXPECT_TRUE(q.histogram->rows[0].slices.empty());  // not kept per thread
  EXPECT_EQ(q.histogram->rows[1].samples, 30u);
  EXPECT_NE(q.run.notices.back().find("50 of 100 samples (50.0%)"), std::string::npos)
      << q.run.notices.back();
  EXPECT_FALSE(q.threads);  // it counted the table before the filter
  apply_filter(by_pid, {.pids = {20}, .symbols = {"work"}});
  ASSERT_EQ(by_pid.histogram->rows.size(), 1u);
  EXPECT_EQ(by_pid.histogram->rows[0].samples, 10u);
  // Nothing matching names what exists.
  Profile none = by_pid;
  none.histogram = h;
  none.threads = t;
  EXPECT_EQ(exit_code_of(none, {.comms = {"postgres"}}, &message), 1);
  EXPECT_NE(message.find("app"), std::string::npos) << message;
  EXPECT_NE(message.find("db"), std::string::npos) << message;
  // A table that does not count this flat table is not used.
  Profile stale = none;
  stale.histogram->rows[0].samples = 61;
  EXPECT_EQ(exit_code_of(stale, {.comms = {"app"}}, &message), 2);
}

TEST(Filter, ACutShortProfileIsRefused) {
  Profile p;
  p.path = "cut.kprof";
  std::string message;
  EXPECT_EQ(exit_code_of(p, {.dsos = {"app"}}, &message), 2);
  EXPECT_NE(message.find("kprof symbolize"), std::string::npos) << message;
}

TEST(Filter, OffCpuStacksAndThreadsAreFilteredToo) {
  Profile p = two_processes();
  OffCpu o;
  o.tick_ns = 1'000'000;
  o.stacks = *p.stacks;
  o.threads = {{10, 11, "postgres"}, {20, 21, "other"}};
  p.off_cpu = o;
  apply_filter(p, {.comms = {"other"}});
  ASSERT_EQ(p.off_cpu->threads.size(), 1u);
  EXPECT_EQ(p.off_cpu->threads[0].comm, "other");
  EXPECT_EQ(p.off_cpu->stacks.total_samples(), 50u);
  EXPECT_NE(p.run.notices.back().find("off CPU 50 of 100 samples"), std::string::npos)
      << p.run.notices.back();
}

TEST(Filter, NoFilterLeavesTheProfileAlone) {
  Profile p = two_processes();
  apply_filter(p, {});
  EXPECT_EQ(samples_of(p), 100u);
  EXPECT_TRUE(p.run.notices.empty());
  const SampleFilter f{.comms = {"a", "b"}, .pids = {3}};
  EXPECT_EQ(f.describe(), "--comm a,b --pid 3");
}

}  // namespace
}  // namespace kprof
