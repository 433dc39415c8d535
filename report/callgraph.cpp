#include "report/callgraph.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.h"
#include "report/canonical.h"
#include "report/table.h"

namespace kprof {

namespace {

const std::string& image_name(const Stacks& s, uint32_t index) {
  static const std::string kUnknown = "[unknown]";
  return index < s.images.size() ? s.images[index].name : kUnknown;
}

// Functions interned by (image name, function, mode): frame id -> key id.
struct FunctionKeys {
  struct Key {
    std::string_view image, function;
    Mode mode;
    auto operator<=>(const Key&) const = default;
  };
  std::vector<Key> keys;
  std::vector<uint32_t> of_frame;

  explicit FunctionKeys(const Stacks& s) {
    std::map<Key, uint32_t> ids;
    of_frame.reserve(s.frames.size());
    for (const Frame& f : s.frames) {
      Key k{image_name(s, f.image), f.function, f.mode};
      auto [it, added] = ids.emplace(k, static_cast<uint32_t>(keys.size()));
      if (added) keys.push_back(k);
      of_frame.push_back(it->second);
    }
  }
  // Frame ids out of range (a damaged file) read as key ~0u.
  uint32_t of(uint32_t frame) const { return frame < of_frame.size() ? of_frame[frame] : ~0u; }
};

// Basenames read best; the full path only where two shown images share one.
class ImageDisplay {
 public:
  void add(const std::string& image) { by_base_[path_basename(image)].insert(image); }
  std::string operator()(const std::string& image) const {
    std::string_view base = path_basename(image);
    auto it = by_base_.find(base);
    return it != by_base_.end() && it->second.size() > 1 ? image : std::string(base);
  }

 private:
  std::unordered_map<std::string_view, std::set<std::string_view>> by_base_;
};

std::string modes_string(const std::set<Mode>& modes) {
  std::string s;
  for (Mode m : modes) {
    if (!s.empty()) s += '+';
    s += mode_name(m);
  }
  return s;
}

bool node_before(const CallTreeNode& a, const CallTreeNode& b) {
  return std::tie(b.samples, a.image, a.function, a.mode) <
         std::tie(a.samples, b.image, b.function, b.mode);
}

// The tree while it is built: children by function key.
struct BuildNode {
  uint32_t key = 0;
  uint64_t samples = 0;
  std::map<uint32_t, BuildNode> children;
};

CallTreeNode finish(const BuildNode& b, const FunctionKeys& keys) {
  CallTreeNode n;
  const FunctionKeys::Key& k = keys.keys[b.key];
  n.image = std::string(k.image);
  n.function = std::string(k.function);
  n.mode = mode_name(k.mode);
  n.samples = b.samples;
  n.children.reserve(b.children.size());
  for (const auto& [key, child] : b.children) n.children.push_back(finish(child, keys));
  std::sort(n.children.begin(), n.children.end(), node_before);
  return n;
}

const char* direction_word(CallDirection d) {
  return d == CallDirection::Callers ? "callers" : "callees";
}

void write_tree_node(std::ostream& out, const CallTreeNode& n, size_t level, uint64_t root,
                     const ReportOptions& opts) {
  const std::string indent(2 * level, ' ');
  const std::string head =
      indent + format_percent(percent_of(n.samples, root)) + "%  " + format_count(n.samples) + "  ";
  // A merged root may list several images: show each by its basename.
  std::string images;
  std::string_view all = n.image;
  for (size_t start = 0;;) {
    size_t comma = all.find(", ", start);
    if (!images.empty()) images += ", ";
    images += path_basename(all.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 2;
  }
  // "[kernel]" stays as it is, not "[[kernel]]".
  if (images.size() < 2 || images.front() != '[' || images.back() != ']') {
    images = "[" + images + "]";
  }
  std::string function = truncate_display(n.function, opts.name_width);
  if (opts.line_width > 0) {  // a terminal: the function gives way, down to 12 columns
    const size_t used = display_width(head) + 2 + display_width(images);
    function = shorten_name(
        n.function, std::max<size_t>(12, opts.line_width > used ? opts.line_width - used : 0));
  }
  out << head << function << "  " << images << "\n";
  size_t shown = opts.top ? std::min(opts.top, n.children.size()) : n.children.size();
  while (shown > 0 && percent_of(n.children[shown - 1].samples, root) < opts.percent_limit) {
    --shown;
  }
  uint64_t left = 0;
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (i < shown) {
      write_tree_node(out, n.children[i], level + 1, root, opts);
    } else {
      left += n.children[i].samples;
    }
  }
  if (shown < n.children.size()) {
    out << indent << "  … " << n.children.size() - shown << " more: " << format_count(left)
        << " samples, " << format_percent(percent_of(left, root)) << "%\n";
  }
}

}  // namespace

// ------------------------------------------------------------ children table

std::vector<ChildrenRow> children_rows(const Stacks& s) {
  FunctionKeys keys(s);
  std::vector<uint64_t> self(keys.keys.size()), total(keys.keys.size());
  // seen[key] == stack index + 1: the key was already counted for this stack.
  std::vector<size_t> seen(keys.keys.size(), 0);
  for (size_t i = 0; i < s.stacks.size(); ++i) {
    const Stack& st = s.stacks[i];
    for (size_t f = 0; f < st.frames.size(); ++f) {
      uint32_t k = keys.of(st.frames[f]);
      if (k == ~0u) continue;
      if (f == 0) self[k] += st.samples;
      if (seen[k] == i + 1) continue;
      seen[k] = i + 1;
      total[k] += st.samples;
    }
  }
  std::vector<ChildrenRow> rows;
  for (size_t k = 0; k < keys.keys.size(); ++k) {
    if (total[k] == 0) continue;
    rows.push_back({std::string(keys.keys[k].image), std::string(keys.keys[k].function),
                    keys.keys[k].mode, self[k], total[k]});
  }
  std::sort(rows.begin(), rows.end(), [](const ChildrenRow& a, const ChildrenRow& b) {
    if (a.total_samples != b.total_samples) return a.total_samples > b.total_samples;
    if (a.self_samples != b.self_samples) return a.self_samples > b.self_samples;
    if (a.image != b.image) return a.image < b.image;
    if (a.function != b.function) return a.function < b.function;
    return std::string_view(mode_name(a.mode)) < std::string_view(mode_name(b.mode));
  });
  return rows;
}

void write_children_table(std::ostream& out, const Stacks& s, const ReportOptions& opts) {
  const uint64_t total = s.total_samples();
  if (total == 0) {
    out << "no samples\n";
    return;
  }
  std::vector<ChildrenRow> rows = children_rows(s);
  size_t shown = opts.top ? std::min(opts.top, rows.size()) : rows.size();
  while (shown > 0 && percent_of(rows[shown - 1].total_samples, total) < opts.percent_limit) {
    --shown;
  }
  ImageDisplay display;
  for (size_t i = 0; i < shown; ++i) display.add(rows[i].image);
  TextTable table({{"self%", Align::Right},
                   {"total%", Align::Right},
                   {"samples", Align::Right},
                   {"image", Align::Left, 60},
                   {"function", Align::Left, opts.name_width}});
  table.fit(opts.line_width);
  for (size_t i = 0; i < shown; ++i) {
    const ChildrenRow& r = rows[i];
    table.add_row({format_percent(percent_of(r.self_samples, total)),
                   format_percent(percent_of(r.total_samples, total)),
                   format_count(r.total_samples), display(r.image), r.function});
  }
  table.write(out);
  if (shown < rows.size()) out << "(" << rows.size() - shown << " more functions not shown)\n";
}

// ------------------------------------------------------ callers and callees

CallTree call_tree(const Stacks& s, std::string_view func, CallDirection direction, size_t depth,
                   const std::string& file) {
  FunctionKeys keys(s);
  CallTree tree;
  tree.direction = direction;
  tree.query = std::string(func);
  tree.depth = depth;
  tree.all_samples = s.total_samples();

  std::vector<bool> match(s.frames.size());
  std::set<CallTreeMatch> matches;
  std::set<std::string_view> images;
  std::set<Mode> modes;
  for (size_t f = 0; f < s.frames.size(); ++f) {
    const Frame& fr = s.frames[f];
    if (!names_function(fr.function, func)) continue;
    match[f] = true;
    matches.insert({image_name(s, fr.image), fr.function});
    images.insert(image_name(s, fr.image));
    modes.insert(fr.mode);
  }
  if (matches.empty()) {
    std::vector<std::string_view> names;
    for (const Frame& fr : s.frames) names.push_back(fr.function);
    std::string closest;
    for (const std::string& n : closest_names(names, func)) {
      closest += (closest.empty() ? "; closest: " : ", ") + n;
    }
    throw Error("no function '" + std::string(func) + "' in the call stacks of " + file + closest +
                "; kprof report --children lists them");
  }
  tree.matches.assign(matches.begin(), matches.end());

  BuildNode root;
  for (const Stack& st : s.stacks) {
    // The outermost occurrence: the last matching frame (frames are leaf first).
    size_t at = st.frames.size();
    for (size_t i = st.frames.size(); i-- > 0;) {
      if (st.frames[i] < match.size() && match[st.frames[i]]) {
        at = i;
        break;
      }
    }
    if (at == st.frames.size()) continue;
    root.samples += st.samples;
    BuildNode* node = &root;
    for (size_t level = 1; level <= depth; ++level) {
      size_t i;
      if (direction == CallDirection::Callers) {
        i = at + level;
        if (i >= st.frames.size()) break;
      } else {
        if (level > at) break;
        i = at - level;
      }
      uint32_t k = keys.of(st.frames[i]);
      if (k == ~0u) break;
      BuildNode& child = node->children[k];
      child.key = k;
      child.samples += st.samples;
      node = &child;
    }
  }

  tree.root.samples = root.samples;
  tree.root.children.reserve(root.children.size());
  for (const auto& [key, child] : root.children) tree.root.children.push_back(finish(child, keys));
  std::sort(tree.root.children.begin(), tree.root.children.end(), node_before);
  tree.root.function = matches.size() == 1 ? matches.begin()->function : tree.query;
  for (std::string_view image : images) {
    if (!tree.root.image.empty()) tree.root.image += ", ";
    tree.root.image += image;
  }
  tree.root.mode = modes_string(modes);
  return tree;
}

void write_call_tree(std::ostream& out, const CallTree& tree, const ReportOptions& opts) {
  const uint64_t root = tree.root.samples;
  out << direction_word(tree.direction) << " of " << tree.query << ": " << format_count(root)
      << " samples, " << format_percent(percent_of(root, tree.all_samples)) << "% of all "
      << format_count(tree.all_samples) << "; shares below are of its " << format_count(root)
      << ", " << tree.depth << (tree.depth == 1 ? " level" : " levels")
      << (tree.direction == CallDirection::Callers ? " up" : " down") << "\n";
  if (tree.matches.size() > 1) {
    ImageDisplay display;
    for (const CallTreeMatch& m : tree.matches) display.add(m.image);
    out << tree.query << " matches " << tree.matches.size() << " functions, merged:";
    for (size_t i = 0; i < tree.matches.size(); ++i) {
      out << (i ? ", " : " ") << tree.matches[i].function << " [" << display(tree.matches[i].image)
          << "]";
    }
    out << "\n";
  }
  write_tree_node(out, tree.root, 0, root, opts);
}

// ---------------------------------------------------------------- truncation

bool is_stack_root(std::string_view function) {
  static const std::set<std::string_view> kRoots = {
      "_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main", "clone",
      "clone3", "start_thread",      "thread_start",
  };
  return kRoots.count(function) > 0 || kRoots.count(canonical_name(function)) > 0;
}

uint64_t truncated_stack_samples(const Stacks& s) {
  uint64_t n = 0;
  for (const Stack& st : s.stacks) {
    for (size_t i = st.frames.size(); i-- > 0;) {
      if (st.frames[i] >= s.frames.size()) continue;
      const Frame& f = s.frames[st.frames[i]];
      if (f.mode != Mode::User && f.mode != Mode::GuestUser) continue;
      if (!is_stack_root(f.function)) n += st.samples;
      break;
    }
  }
  return n;
}

std::string truncation_notice(const Stacks& s) {
  const uint64_t truncated = truncated_stack_samples(s);
  if (truncated == 0) return "";
  std::string share = format_percent(percent_of(truncated, s.total_samples()), 1);
  if (share == "0.0") share = "<0.1";
  return share +
         "% of stacks look truncated (user code without frame pointers, or "
         "kernel.perf_event_max_stack); record with --call-graph dwarf to unwind it by CFI";
}

Histogram inclusive_histogram(const Stacks& st) {
  Histogram h;
  h.images = st.images;
  std::map<std::tuple<uint32_t, std::string, Mode>, size_t> index;
  std::vector<size_t> rows;  // of the current stack
  for (const Stack& s : st.stacks) {
    rows.clear();
    for (uint32_t id : s.frames) {
      if (id >= st.frames.size()) continue;
      const Frame& f = st.frames[id];
      auto [it, inserted] =
          index.try_emplace({f.image, canonical_name(f.function), f.mode}, h.rows.size());
      if (inserted) h.rows.push_back({f.image, std::get<1>(it->first), f.mode, 0, 0});
      rows.push_back(it->second);
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (size_t r : rows) {
      h.rows[r].samples += s.samples;
      h.rows[r].period += s.period;
    }
  }
  return h;
}

Histogram callers_histogram(const Stacks& stacks, std::string_view func, const std::string& file) {
  const CallTree tree = call_tree(stacks, func, CallDirection::Callers, 1, file);
  Histogram h;
  std::map<std::string, uint32_t> images;
  auto image = [&](const std::string& name) {
    auto [it, inserted] = images.try_emplace(name, static_cast<uint32_t>(h.images.size()));
    if (inserted) h.images.push_back({name, ""});
    return it->second;
  };
  auto mode = [](const std::string& m) {
    return m == "kernel" ? Mode::Kernel : m == "user" ? Mode::User : Mode::Unknown;
  };
  uint64_t called = 0;
  for (const CallTreeNode& c : tree.root.children) {
    h.rows.push_back({image(c.image), c.function, mode(c.mode), c.samples, 0});
    called += c.samples;
  }
  if (tree.root.samples > called) {
    h.rows.push_back({image(tree.root.image), "[no caller]", mode(tree.root.mode),
                      tree.root.samples - called, 0});
  }
  return h;
}

}  // namespace kprof
