// The flame graph's tree (report/flame.h): paths counted inclusively, in a
// stable order, and for a diff each path judged like a table row.
#include "report/flame.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/export/export_support.h"

namespace kprof {
namespace {

// "name@parent-name" for every node with its samples on run `r`.
std::map<std::string, uint64_t> paths(const FlameTree& t, size_t r) {
  std::map<std::string, uint64_t> out;
  std::vector<std::string> full(t.nodes.size());
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const FlameNode& node = t.nodes[n];
    full[n] =
        node.parent < 0 ? node.name : full[static_cast<size_t>(node.parent)] + ";" + node.name;
    out[full[n]] = t.samples[r][n];
  }
  return out;
}

TEST(FlameTree, CountsEachPathInclusivelyFromTheRoot) {
  const Stacks st = test::bench_stacks();
  const Histogram leaves = leaf_histogram(st);
  const FlameTree t = flame_tree({FlameRun{&leaves, &st}}, false);
  ASSERT_TRUE(t.chains);
  ASSERT_EQ(t.totals, std::vector<uint64_t>{100});
  const auto p = paths(t, 0);
  EXPECT_EQ(p.at("all"), 100u);
  EXPECT_EQ(p.at("all;bench"), 97u) << "both bench processes under one name";
  EXPECT_EQ(p.at("all;sh"), 3u);
  EXPECT_EQ(p.at("all;bench;__libc_start_main;main"), 97u);
  EXPECT_EQ(p.at("all;bench;__libc_start_main;main;compute"), 75u);
  EXPECT_EQ(p.at("all;bench;__libc_start_main;main;compute;hash_block"), 55u);
  EXPECT_EQ(
      p.at("all;bench;__libc_start_main;main;write;entry_SYSCALL_64;do_syscall_64;ksys_write"),
      10u);
  EXPECT_EQ(p.at("all;bench;__libc_start_main;main;recurse;recurse;recurse"), 12u)
      << "each recursion level is a frame of its own";
  EXPECT_EQ(p.at("all;sh;__libc_start_main;[unknown]"), 3u);
}

TEST(FlameTree, ParentsComeFirstAndSiblingsByName) {
  const Stacks st = test::bench_stacks();
  const Histogram leaves = leaf_histogram(st);
  const FlameTree t = flame_tree({FlameRun{&leaves, &st}}, false);
  std::map<int32_t, std::vector<std::string>> children;
  for (size_t n = 1; n < t.nodes.size(); ++n) {
    ASSERT_GE(t.nodes[n].parent, 0);
    ASSERT_LT(static_cast<size_t>(t.nodes[n].parent), n) << "parent before child";
    EXPECT_LE(t.samples[0][n], t.samples[0][static_cast<size_t>(t.nodes[n].parent)]);
    children[t.nodes[n].parent].push_back(t.nodes[n].name);
  }
  for (const auto& [parent, names] : children) {
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << "children of " << parent;
  }
  EXPECT_EQ(t.nodes[0].name, "all");
  EXPECT_EQ(t.nodes[0].parent, -1);
}

TEST(FlameTree, WithoutStacksIsImageThenFunction) {
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/bin/app", ""}};
  h.rows = {{0, "kfree.cold", Mode::Kernel, 3, 0},
            {0, "kfree", Mode::Kernel, 2, 0},
            {1, "main", Mode::User, 5, 0}};
  const FlameTree raw = flame_tree({FlameRun{&h, nullptr}}, false);
  EXPECT_FALSE(raw.chains);
  auto p = paths(raw, 0);
  EXPECT_EQ(p.at("all;[kernel]"), 5u);
  EXPECT_EQ(p.at("all;[kernel];kfree.cold"), 3u);
  EXPECT_EQ(p.at("all;/bin/app;main"), 5u);
  const FlameTree canon = flame_tree({FlameRun{&h, nullptr}}, true);
  p = paths(canon, 0);
  EXPECT_EQ(p.at("all;[kernel];kfree"), 5u) << "clone names fold in a diff";
  EXPECT_EQ(p.count("all;[kernel];kfree.cold"), 0u);
}

// A profile of two paths into `leaf`: through a (a_samples) and b (b_samples).
DiffRun path_run(const std::string& release, uint64_t a_samples, uint64_t b_samples) {
  Stacks st;
  st.images = {{"/bin/app", ""}};
  st.frames = {
      {0, "main", Mode::User}, {0, "a", Mode::User}, {0, "b", Mode::User}, {0, "leaf", Mode::User}};
  st.processes = {{1, "app"}};
  st.stacks = {{0, {3, 1, 0}, a_samples, a_samples}, {0, {3, 2, 0}, b_samples, b_samples}};
  DiffRun run;
  run.source = release + ".kprof";
  run.run.kernel_release = release;
  run.histogram = leaf_histogram(st);
  run.stacks = std::move(st);
  return run;
}

DiffInput two_sides(DiffRun base, DiffRun next) {
  DiffInput in;
  in.sides.push_back({"base", {std::move(base)}});
  in.sides.push_back({"new", {std::move(next)}});
  return in;
}

const FlameNode* find(const FlameDiff& f, const std::string& name, const std::string& parent,
                      size_t* index) {
  for (size_t n = 1; n < f.nodes.size(); ++n) {
    const FlameNode& node = f.nodes[n];
    if (node.name == name && f.nodes[static_cast<size_t>(node.parent)].name == parent) {
      *index = n;
      return &node;
    }
  }
  return nullptr;
}

TEST(FlameDiff, TheSlowedCallerIsChangedAndTheRestNoise) {
  // b's path goes from 1/3 to 1/2 of 30,000 samples: far beyond sampling noise.
  const FlameDiff f =
      diff_flame(two_sides(path_run("6.1", 20000, 10000), path_run("6.2", 15000, 15000)));
  ASSERT_TRUE(f.chains);
  ASSERT_EQ(f.totals, (std::vector<uint64_t>{30000, 30000}));
  size_t b = 0, a = 0, main = 0;
  ASSERT_NE(find(f, "b", "main", &b), nullptr);
  ASSERT_NE(find(f, "a", "main", &a), nullptr);
  ASSERT_NE(find(f, "main", "app", &main), nullptr);
  EXPECT_EQ(f.samples[b], (std::vector<uint64_t>{10000, 15000}));
  EXPECT_FALSE(f.vs_base[b][1].within_noise);
  EXPECT_NEAR(f.vs_base[b][1].change.delta_pp, 100.0 / 6, 1e-9);
  EXPECT_FALSE(f.vs_base[a][1].within_noise);
  EXPECT_LT(f.vs_base[a][1].change.delta_pp, 0);
  EXPECT_TRUE(f.vs_base[main][1].within_noise) << "main holds every sample on both sides";
  EXPECT_EQ(f.noise[1], NoiseMethod::Sampling);
}

TEST(FlameDiff, SameProfileOnBothSidesIsAllNoise) {
  const FlameDiff f =
      diff_flame(two_sides(path_run("6.1", 2000, 1000), path_run("6.1", 2000, 1000)));
  for (size_t n = 1; n < f.nodes.size(); ++n) {
    EXPECT_TRUE(f.vs_base[n][1].within_noise) << f.nodes[n].name;
    EXPECT_EQ(f.vs_base[n][1].change.delta_pp, 0) << f.nodes[n].name;
  }
}

TEST(FlameDiff, APathOnOneSideIsMarkedSo) {
  DiffRun next = path_run("6.2", 2000, 1000);
  Stacks& st = *next.stacks;
  st.frames.push_back({0, "c", Mode::User});
  st.stacks.push_back({0, {4, 0}, 500, 500});
  next.histogram = leaf_histogram(st);
  const FlameDiff f = diff_flame(two_sides(path_run("6.1", 2000, 1000), std::move(next)));
  size_t c = 0;
  ASSERT_NE(find(f, "c", "main", &c), nullptr);
  EXPECT_EQ(f.vs_base[c][1].sided, Sidedness::OnlyNew);
  EXPECT_EQ(f.samples[c], (std::vector<uint64_t>{0, 500}));
  EXPECT_FALSE(f.vs_base[c][1].within_noise) << "500 of 3500 samples where there were none";
}

TEST(FlameDiff, PruningKeepsTheHeaviestNodesAndTheirAncestors) {
  const DiffInput in = two_sides(path_run("6.1", 2000, 10), path_run("6.2", 2000, 12));
  const FlameDiff all = diff_flame(in, 0, 0);
  ASSERT_EQ(all.pruned, 0u);
  // all, app, main, a, a;leaf, b, b;leaf: the root and the 4 heaviest stay.
  ASSERT_EQ(all.nodes.size(), 7u);
  const FlameDiff some = diff_flame(in, 4, 0);
  EXPECT_EQ(some.pruned, 2u);
  ASSERT_EQ(some.nodes.size(), 5u);
  for (size_t n = 1; n < some.nodes.size(); ++n) {
    ASSERT_GE(some.nodes[n].parent, 0);
    ASSERT_LT(static_cast<size_t>(some.nodes[n].parent), n);
    EXPECT_NE(some.nodes[n].name, "b");
  }
  EXPECT_EQ(some.totals, all.totals) << "shares stay of all samples";
  // b's path holds 10 of 2010 samples (0.5%): under a 1% floor it goes.
  const FlameDiff floor = diff_flame(in, 0, 0.01);
  EXPECT_EQ(floor.nodes.size(), 5u);
  EXPECT_EQ(floor.pruned, 2u);
}

}  // namespace
}  // namespace kprof
