#include "report/flame.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/error.h"
#include "report/canonical.h"

namespace kprof {
namespace {

// The tree being built: nodes in creation order (a parent before its
// children), each child found by (parent, label) where a label is an interned
// (name, image, mode).
class TreeBuilder {
 public:
  explicit TreeBuilder(size_t runs) : samples_(runs) {
    nodes_.push_back({-1, "all", "", ""});
    for (auto& s : samples_) s.push_back(0);
  }

  uint32_t label(const std::string& name, const std::string& image, const std::string& mode) {
    key_.assign(name).push_back('\0');
    key_.append(image).push_back('\0');
    key_.append(mode);
    auto [it, added] = label_index_.try_emplace(key_, static_cast<uint32_t>(labels_.size()));
    if (added) labels_.push_back({-1, name, image, mode});
    return it->second;
  }

  uint32_t child(uint32_t parent, uint32_t label) {
    const uint64_t k = (static_cast<uint64_t>(parent) << 32) | label;
    auto [it, added] = child_index_.try_emplace(k, static_cast<uint32_t>(nodes_.size()));
    if (added) {
      FlameNode n = labels_[label];
      n.parent = static_cast<int32_t>(parent);
      nodes_.push_back(std::move(n));
      for (auto& s : samples_) s.push_back(0);
    }
    return it->second;
  }

  void add(size_t run, uint32_t node, uint64_t samples) { samples_[run][node] += samples; }

  // The tree with siblings in name order (then image, mode), depth first.
  FlameTree finish(bool chains) {
    std::vector<std::vector<uint32_t>> children(nodes_.size());
    for (uint32_t i = 1; i < nodes_.size(); ++i) {
      children[static_cast<size_t>(nodes_[i].parent)].push_back(i);
    }
    auto by_name = [&](uint32_t a, uint32_t b) {
      const FlameNode& x = nodes_[a];
      const FlameNode& y = nodes_[b];
      return std::tie(x.name, x.image, x.mode) < std::tie(y.name, y.image, y.mode);
    };
    std::vector<uint32_t> order;  // old index per new index
    order.reserve(nodes_.size());
    std::vector<uint32_t> todo = {0};
    while (!todo.empty()) {
      const uint32_t n = todo.back();
      todo.pop_back();
      order.push_back(n);
      auto& c = children[n];
      std::sort(c.begin(), c.end(), by_name);
      todo.insert(todo.end(), c.rbegin(), c.rend());
    }
    std::vector<int32_t> new_index(nodes_.size());
    for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int32_t>(i);
    FlameTree t;
    t.chains = chains;
    for (uint32_t old : order) {
      FlameNode n = std::move(nodes_[old]);
      if (n.parent >= 0) n.parent = new_index[static_cast<size_t>(n.parent)];
      t.nodes.push_back(std::move(n));
    }
    for (auto& s : samples_) {
      std::vector<uint64_t> v(order.size());
      for (size_t i = 0; i < order.size(); ++i) v[i] = s[order[i]];
      t.totals.push_back(v[0]);
      t.samples.push_back(std::move(v));
    }
    return t;
  }

 private:
  std::vector<FlameNode> nodes_;
  std::vector<std::vector<uint64_t>> samples_;  // [run][node]
  std::vector<FlameNode> labels_;
  std::unordered_map<std::string, uint32_t> label_index_;
  std::unordered_map<uint64_t, uint32_t> child_index_;
  std::string key_;
};

std::string image_name(const std::vector<Image>& images, uint32_t i) {
  return i < images.size() ? images[i].name : "[unknown]";
}

void add_stacks(TreeBuilder& b, size_t run, const Stacks& st, bool canonical) {
  // Labels per frame id and process, made once.
  std::vector<uint32_t> frame_label(st.frames.size());
  for (size_t f = 0; f < st.frames.size(); ++f) {
    const Frame& fr = st.frames[f];
    frame_label[f] = b.label(canonical ? canonical_name(fr.function) : fr.function,
                             image_name(st.images, fr.image), mode_name(fr.mode));
  }
  std::vector<int64_t> process_label(st.processes.size(), -1);
  for (size_t p = 0; p < st.processes.size(); ++p) {
    if (!st.processes[p].name.empty()) process_label[p] = b.label(st.processes[p].name, "", "");
  }
  for (const Stack& s : st.stacks) {
    uint32_t node = 0;
    b.add(run, node, s.samples);
    if (s.process < process_label.size() && process_label[s.process] >= 0) {
      node = b.child(node, static_cast<uint32_t>(process_label[s.process]));
      b.add(run, node, s.samples);
    }
    for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it) {
      if (*it >= frame_label.size()) break;  // a bad frame id: the path ends here
      node = b.child(node, frame_label[*it]);
      b.add(run, node, s.samples);
    }
  }
}

void add_flat(TreeBuilder& b, size_t run, const Histogram& h, bool canonical) {
  for (const FunctionCount& fc : h.rows) {
    const std::string image = image_name(h.images, fc.image);
    b.add(run, 0, fc.samples);
    const uint32_t img = b.child(0, b.label(image, image, ""));
    b.add(run, img, fc.samples);
    const uint32_t fn = b.child(img, b.label(canonical ? canonical_name(fc.function) : fc.function,
                                             image, mode_name(fc.mode)));
    b.add(run, fn, fc.samples);
  }
}

}  // namespace

FlameTree flame_tree(const std::vector<FlameRun>& runs, bool canonical) {
  if (runs.empty()) throw Error("a flame graph needs at least one profile");
  const bool chains =
      std::all_of(runs.begin(), runs.end(), [](const FlameRun& r) { return r.stacks != nullptr; });
  TreeBuilder b(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) {
    if (chains) {
      add_stacks(b, r, *runs[r].stacks, canonical);
    } else if (runs[r].histogram) {
      add_flat(b, r, *runs[r].histogram, canonical);
    }
  }
  return b.finish(chains);
}

FlameDiff diff_flame(const DiffInput& in, size_t max_nodes, double min_share) {
  std::vector<FlameRun> runs;
  std::vector<size_t> side_of;
  for (size_t s = 0; s < in.sides.size(); ++s) {
    for (const DiffRun& run : in.sides[s].runs) {
      runs.push_back({&run.histogram, run.stacks ? &*run.stacks : nullptr});
      side_of.push_back(s);
    }
  }
  const FlameTree tree = flame_tree(runs, true);

  // The diff of the paths: each node a row named by its index, each run's
  // shares of its own total, judged by diff_profiles like any table row.
  DiffInput paths;
  paths.options = in.options;
  paths.options.by = DiffBy::Function;
  size_t r = 0;
  for (const DiffSide& side : in.sides) {
    DiffSide ps;
    ps.label = side.label;
    for (const DiffRun& run : side.runs) {
      DiffRun pr;
      pr.source = run.source;
      pr.run.event = run.run.event;
      pr.run.kernel_release = run.run.kernel_release;
      pr.run.sample_counts = run.run.sample_counts;
      pr.histogram.images = {Image{"", ""}};
      for (size_t n = 1; n < tree.nodes.size(); ++n) {
        if (const uint64_t k = tree.samples[r][n]) {
          pr.histogram.rows.push_back({0, std::to_string(n), Mode::Unknown, k, 0});
        }
      }
      pr.total_samples = tree.totals[r];
      ps.runs.push_back(std::move(pr));
      ++r;
    }
    paths.sides.push_back(std::move(ps));
  }
  const DiffResult diff = diff_profiles(paths);

  const size_t sides = in.sides.size();
  std::vector<std::vector<uint64_t>> samples(tree.nodes.size(), std::vector<uint64_t>(sides));
  for (size_t run = 0; run < runs.size(); ++run) {
    for (size_t n = 0; n < tree.nodes.size(); ++n) samples[n][side_of[run]] += tree.samples[run][n];
  }
  std::vector<std::vector<DiffCompare>> vs_base(tree.nodes.size(), std::vector<DiffCompare>(sides));
  for (const DiffRow& row : diff.rows) vs_base[std::stoul(row.name)] = row.vs_base;

  // Keep the heaviest nodes and their ancestors, in tree order.
  std::vector<uint64_t> side_total(sides);
  for (size_t s = 0; s < sides; ++s) side_total[s] = samples[0][s];
  std::vector<double> weight(tree.nodes.size());
  for (size_t n = 0; n < tree.nodes.size(); ++n) {
    for (size_t s = 0; s < sides; ++s) {
      if (side_total[s]) {
        weight[n] = std::max(
            weight[n], static_cast<double>(samples[n][s]) / static_cast<double>(side_total[s]));
      }
    }
  }
  std::vector<size_t> by_weight;  // the nodes heavy enough to draw, heaviest first
  for (size_t n = 1; n < tree.nodes.size(); ++n) {
    if (weight[n] >= min_share) by_weight.push_back(n);
  }
  std::stable_sort(by_weight.begin(), by_weight.end(),
                   [&](size_t a, size_t b) { return weight[a] > weight[b]; });
  if (max_nodes && by_weight.size() > max_nodes) by_weight.resize(max_nodes);
  std::vector<bool> keep(tree.nodes.size(), false);
  keep[0] = true;
  for (size_t heavy : by_weight) {
    for (int64_t n = static_cast<int64_t>(heavy); n >= 0 && !keep[static_cast<size_t>(n)];
         n = tree.nodes[static_cast<size_t>(n)].parent) {
      keep[static_cast<size_t>(n)] = true;
    }
  }

  FlameDiff out;
  out.chains = tree.chains;
  out.noise = diff.noise;
  std::vector<int32_t> new_index(tree.nodes.size(), -1);
  for (size_t n = 0; n < tree.nodes.size(); ++n) {
    if (!keep[n]) {
      ++out.pruned;
      continue;
    }
    new_index[n] = static_cast<int32_t>(out.nodes.size());
    FlameNode node = tree.nodes[n];
    if (node.parent >= 0) node.parent = new_index[static_cast<size_t>(node.parent)];
    out.nodes.push_back(std::move(node));
    out.samples.push_back(std::move(samples[n]));
    out.vs_base.push_back(std::move(vs_base[n]));
  }
  out.totals = std::move(side_total);
  return out;
}

}  // namespace kprof
