#include "stats/screen.h"

#include <algorithm>
#include <map>

namespace kprof::stats {

double min_attainable_p(uint64_t total, const Sides<uint64_t>& n) {
  if (total == 0 || n.base == 0 || n.next == 0) return 1;
  auto split = [&](uint64_t on_base) {
    const uint64_t k_base = std::min(on_base, n.base);
    const uint64_t k_next = std::min(total - k_base, n.next);
    return sampling_change({{k_base, n.base}, {k_next, n.next}}, 0.05).p;
  };
  return std::min(split(total), split(0));
}

Screen screen_rows(std::span<const uint64_t> totals, const Sides<uint64_t>& n, double alpha) {
  Screen out;
  out.tested.assign(totals.size(), false);
  // The minimum attainable p falls as the total grows: one per distinct total.
  std::map<uint64_t, double> min_p;
  for (uint64_t t : totals) {
    if (t) min_p.emplace(t, 1.0);
  }
  for (auto& [t, p] : min_p) p = min_attainable_p(t, n);
  std::vector<double> sorted;
  for (uint64_t t : totals) {
    if (t) sorted.push_back(min_p[t]);
  }
  std::sort(sorted.begin(), sorted.end());
  // Tarone: the smallest K with M(K) = #{min_p <= alpha / K} <= K.
  double cut = alpha;
  for (size_t k = 1; k <= sorted.size(); ++k) {
    const double level = alpha / static_cast<double>(k);
    const size_t m =
        static_cast<size_t>(std::upper_bound(sorted.begin(), sorted.end(), level) - sorted.begin());
    if (m <= k) {
      cut = level;
      break;
    }
  }
  for (size_t i = 0; i < totals.size(); ++i) {
    if (totals[i] == 0 || min_p[totals[i]] > cut) continue;
    out.tested[i] = true;
    ++out.rows_tested;
    out.min_total = out.min_total ? std::min(out.min_total, totals[i]) : totals[i];
  }
  return out;
}

}  // namespace kprof::stats
