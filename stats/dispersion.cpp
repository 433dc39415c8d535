#include "stats/dispersion.h"

#include <cmath>
#include <vector>

namespace kprof::stats {

SliceScatter no_scatter(size_t slices) {
  SliceScatter out;
  if (slices < 2) return out;
  const double b = static_cast<double>(slices);
  out.terms = b - 1;
  out.df = 2 * (b - 1) * (b - 1) / (3 * b - 4);
  return out;
}

SliceScatter slice_scatter(std::span<const uint32_t> counts, std::span<const uint64_t> totals) {
  SliceScatter out;
  if (counts.size() != totals.size() || counts.size() < 2) return out;
  double k = 0, n = 0;
  size_t used = 0;
  for (size_t j = 0; j < counts.size(); ++j) {
    k += counts[j];
    n += static_cast<double>(totals[j]);
    used += totals[j] > 0;
  }
  if (!(n > 0) || used < 2) return out;
  // Successive differences of the standardized residuals
  // e_j = (k_j - n_j p) / sqrt(n_j): half their squares sum to
  // (B - 1) p (1 - p) on average for independent binomial slices, as the
  // plain sum of squares does, but a level that shifts once (a phase: a
  // program that runs for part of the recording) adds one difference, not
  // every slice's.
  out = no_scatter(used);
  const double p = k / n;
  double prev = 0;
  bool first = true;
  for (size_t j = 0; j < counts.size(); ++j) {
    const double nj = static_cast<double>(totals[j]);
    if (!(nj > 0)) continue;
    const double e = (counts[j] - nj * p) / std::sqrt(nj);
    if (!first) out.ss += (e - prev) * (e - prev) / 2;
    prev = e;
    first = false;
  }
  return out;
}

Dispersion pooled_dispersion(std::span<const SliceScatter> runs, double p) {
  Dispersion out;
  if (!(p > 0) || !(p < 1)) return out;
  double ss = 0, terms = 0, df = 0;
  for (const SliceScatter& r : runs) {
    ss += r.ss;
    terms += r.terms;
    df += r.df;
  }
  if (!(terms > 0)) return out;
  out.df = df;
  out.value = ss / (p * (1 - p)) / terms;
  return out;
}

Dispersion batch_dispersion(std::span<const uint32_t> counts, std::span<const uint64_t> totals) {
  double k = 0, n = 0;
  for (size_t j = 0; j < counts.size() && j < totals.size(); ++j) {
    k += counts[j];
    n += static_cast<double>(totals[j]);
  }
  const SliceScatter s = slice_scatter(counts, totals);
  return pooled_dispersion({&s, 1}, n > 0 ? k / n : 0);
}

VariancePrior fit_dispersion_prior(std::span<const Dispersion> rows) {
  std::vector<double> value, df;
  value.reserve(rows.size());
  df.reserve(rows.size());
  for (const Dispersion& d : rows) {
    value.push_back(d.value);
    df.push_back(d.df);
  }
  return fit_variance_prior(value, df);
}

Moderated moderated_dispersion(const Dispersion& d, const VariancePrior& prior) {
  if (prior.rows < 3) return {d.df > 0 ? d.value : 1.0, d.df};
  if (!(d.df > 0)) return {prior.scale, moderated_df(0, prior)};
  return moderate(d.value, d.df, 1.0, prior);
}

}  // namespace kprof::stats
