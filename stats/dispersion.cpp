#include "stats/dispersion.h"

namespace kprof::stats {

Dispersion batch_dispersion(std::span<const uint32_t> counts, std::span<const uint64_t> totals) {
  Dispersion out;
  if (counts.size() != totals.size() || counts.size() < 2) return out;
  double k = 0, n = 0;
  for (size_t j = 0; j < counts.size(); ++j) {
    k += counts[j];
    n += static_cast<double>(totals[j]);
  }
  if (!(n > 0) || k <= 0 || k >= n) return out;
  const double p = k / n;
  double chi2 = 0;
  size_t used = 0;
  for (size_t j = 0; j < counts.size(); ++j) {
    const double nj = static_cast<double>(totals[j]);
    if (!(nj > 0)) continue;
    const double dev = counts[j] - nj * p;
    chi2 += dev * dev / (nj * p * (1 - p));
    ++used;
  }
  if (used < 2) return out;
  out.df = static_cast<double>(used - 1);
  out.value = chi2 / out.df;
  return out;
}

}  // namespace kprof::stats
