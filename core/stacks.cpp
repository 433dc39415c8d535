#include "core/stacks.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace kprof {

uint64_t Stacks::total_samples() const {
  uint64_t n = 0;
  for (const Stack& s : stacks) n += s.samples;
  return n;
}

Histogram leaf_histogram(const Stacks& st) {
  Histogram h;
  h.images = st.images;
  std::map<Frame, size_t> row_of;  // frames are distinct, but merge if a file repeats one
  for (const Stack& s : st.stacks) {
    if (s.frames.empty() || s.frames.front() >= st.frames.size()) continue;
    const Frame& f = st.frames[s.frames.front()];
    auto [it, fresh] = row_of.try_emplace(f, h.rows.size());
    if (fresh) h.rows.push_back({f.image, f.function, f.mode, 0, 0});
    h.rows[it->second].samples += s.samples;
    h.rows[it->second].period += s.period;
  }
  std::sort(h.rows.begin(), h.rows.end(), [](const FunctionCount& a, const FunctionCount& b) {
    return std::tie(b.samples, a.image, a.function, a.mode) <
           std::tie(a.samples, b.image, b.function, b.mode);
  });
  return h;
}

}  // namespace kprof
