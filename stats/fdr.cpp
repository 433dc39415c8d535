#include "stats/fdr.h"

#include <algorithm>
#include <numeric>

namespace kprof::stats {

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m);
  double running = 1;
  for (size_t i = m; i-- > 0;) {
    const double adjusted = p[order[i]] * static_cast<double>(m) / static_cast<double>(i + 1);
    running = std::min(running, adjusted);
    q[order[i]] = std::min(1.0, running);
  }
  return q;
}

Selection select_at_fdr(std::span<const double> p, double alpha) {
  Selection out;
  out.level_alpha = alpha;
  if (p.empty()) return out;
  out.q = benjamini_hochberg(p);
  for (double v : out.q) out.selected += v <= alpha;
  out.level_alpha = static_cast<double>(std::max<size_t>(out.selected, 1)) * alpha /
                    static_cast<double>(out.q.size());
  return out;
}

}  // namespace kprof::stats
