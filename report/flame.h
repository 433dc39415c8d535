// The flame graph's data: the call paths of one or more profiles as a tree,
// counted per run, and for a diff each path's change, judged by the diff
// itself (diff_profiles() on a histogram whose rows are the paths), so a frame
// is "changed" exactly as a table row would be.
//
// Paths, root first:
// - with call stacks (every run has Stacks): the process name (when known),
//   then the frames from the outermost caller to the leaf;
// - without: the image, then the function (a tree one level deep).
// A node's samples are those of the stacks through it (inclusive), so a child
// never holds more than its parent. A node is identified by its parent and
// its (name, image, mode); in a diff, function names are canonical
// (report/canonical.h), so clone renames between kernels still match.
// Pure functions over in-memory profiles; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/stacks.h"
#include "report/diff.h"

namespace kprof {

struct FlameNode {
  int32_t parent = -1;  // index of the parent node; -1 for the root
  std::string name;     // "all" (root), process name, image (one-level tree) or function
  std::string image;    // full image name; "" for the root and process nodes
  std::string mode;     // "kernel", "user", ...; "" for the root, process and image nodes
};

struct FlameTree {
  bool chains = false;           // paths from call stacks (else image -> function)
  std::vector<FlameNode> nodes;  // [0] is the root; parents before children; siblings by name
  std::vector<uint64_t> totals;  // per run: its samples (the root's count)
  std::vector<std::vector<uint64_t>> samples;  // [run][node]: inclusive samples
};

// One run's input: its flat histogram and, for a -g profile, its stacks.
struct FlameRun {
  const Histogram* histogram = nullptr;
  const Stacks* stacks = nullptr;
};

// The tree of `runs` (at least one). Paths come from call stacks when every
// run has them; `canonical` folds clone names (as the diff matches rows).
FlameTree flame_tree(const std::vector<FlameRun>& runs, bool canonical);

struct FlameDiff {
  bool chains = false;
  std::vector<FlameNode> nodes;                   // as FlameTree::nodes, after pruning
  std::vector<uint64_t> totals;                   // per side: samples summed over its runs
  std::vector<std::vector<uint64_t>> samples;     // [node][side], summed over runs
  std::vector<std::vector<DiffCompare>> vs_base;  // [node][side]; [.][0] unused
  std::vector<NoiseMethod> noise;                 // per side, as DiffResult::noise
  size_t pruned = 0;                              // nodes left out by max_nodes
};

// Every side's runs as one tree; each node compared against the base by
// diff_profiles() with `in`'s options (interval level, BH across all nodes
// but the root). Then, for drawing, only nodes with at least `min_share` (a
// fraction) of the samples on some side are kept, and of those the
// `max_nodes` heaviest (by their largest share on any side) and their
// ancestors; max_nodes 0 keeps all. The defaults drop frames under 1 in
// 10,000 samples (0.15 px of a 1500 px graph) and bound a page's size.
FlameDiff diff_flame(const DiffInput& in, size_t max_nodes = 10000, double min_share = 1e-4);

}  // namespace kprof
