#include "core/stacks.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace kprof {

void add_slices(std::vector<uint32_t>& into, std::span<const uint32_t> from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

uint64_t Stacks::total_samples() const {
  uint64_t n = 0;
  for (const Stack& s : stacks) n += s.samples;
  return n;
}

Histogram leaf_histogram(const Stacks& st) {
  Histogram h;
  h.images = st.images;
  std::map<Frame, size_t> row_of;  // frames are distinct, but merge if a file repeats one
  std::vector<uint8_t> sliced(st.leaf_slices.size());  // a leaf frame's slices added once
  for (const Stack& s : st.stacks) {
    if (s.frames.empty() || s.frames.front() >= st.frames.size()) continue;
    const uint32_t leaf = s.frames.front();
    const Frame& f = st.frames[leaf];
    auto [it, fresh] = row_of.try_emplace(f, h.rows.size());
    if (fresh) h.rows.push_back({f.image, f.function, f.mode, 0, 0});
    FunctionCount& row = h.rows[it->second];
    row.samples += s.samples;
    row.period += s.period;
    if (leaf < sliced.size() && !sliced[leaf]) {
      sliced[leaf] = 1;
      add_slices(row.slices, st.leaf_slices[leaf]);
    }
  }
  std::sort(h.rows.begin(), h.rows.end(), [](const FunctionCount& a, const FunctionCount& b) {
    return std::tie(b.samples, a.image, a.function, a.mode) <
           std::tie(a.samples, b.image, b.function, b.mode);
  });
  return h;
}

namespace {

bool is_user_mode(Mode m) {
  return m == Mode::User || m == Mode::GuestUser;
}

}  // namespace

uint64_t mend_broken_chains(Stacks& st) {
  constexpr std::string_view kUnknown = "[unknown]";
  // Per frame: unnamed, and outside every mapping (a user frame whose image
  // is "[unknown]", as the symbolizer names an ip no mapping covers).
  std::vector<uint8_t> unnamed(st.frames.size()), unmapped(st.frames.size());
  for (size_t i = 0; i < st.frames.size(); ++i) {
    const Frame& f = st.frames[i];
    unnamed[i] = f.function == kUnknown;
    unmapped[i] =
        is_user_mode(f.mode) && f.image < st.images.size() && st.images[f.image].name == kUnknown;
  }
  auto known = [&](uint32_t id) { return id < st.frames.size(); };
  uint64_t cut = 0;
  bool changed = false;
  for (Stack& s : st.stacks) {
    size_t out = 0;
    for (size_t i = 0; i < s.frames.size(); ++i) {
      const uint32_t id = s.frames[i];
      if (out > 0 && known(id) && known(s.frames[out - 1])) {
        const uint32_t prev = s.frames[out - 1];
        if (unmapped[id] && is_user_mode(st.frames[prev].mode)) {
          cut += s.samples;
          break;
        }
        if (unnamed[id] && unnamed[prev]) continue;
      }
      s.frames[out++] = id;
    }
    if (out != s.frames.size()) {
      s.frames.resize(out);
      changed = true;
    }
  }
  if (!changed) return 0;
  // Merge the stacks that became equal, keeping the first one's place.
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, size_t> first;
  std::vector<Stack> merged;
  merged.reserve(st.stacks.size());
  for (Stack& s : st.stacks) {
    auto [it, fresh] = first.try_emplace({s.process, s.frames}, merged.size());
    if (fresh) {
      merged.push_back(std::move(s));
    } else {
      merged[it->second].samples += s.samples;
      merged[it->second].period += s.period;
    }
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [](const Stack& a, const Stack& b) { return a.samples > b.samples; });
  st.stacks = std::move(merged);
  return cut;
}

}  // namespace kprof
