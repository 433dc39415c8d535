// Many rows tested at once: which to call changed, and at what level to give
// their intervals. Plain p-values in, q-values and a level out; no I/O.
//
// - Benjamini–Hochberg (Benjamini & Hochberg 1995, "Controlling the false
//   discovery rate: a practical and powerful approach to multiple testing",
//   JRSS B 57:289-300): adjusted p-values (q-values); the rows with
//   q <= alpha are selected, at false discovery rate alpha.
// - False coverage-rate intervals (Benjamini & Yekutieli 2005, "False
//   discovery rate-adjusted multiple confidence intervals for selected
//   parameters", JASA 100:71-81): when BH selects R of the m rows, every
//   row's interval is at level 1 - R * alpha / m (R = 0 counts as 1). An
//   interval that inverts the row's test excludes its null exactly when BH
//   selects the row, so no interval contradicts its verdict.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace kprof::stats {

// Benjamini–Hochberg adjusted p-values (q-values), in the order of `p`.
std::vector<double> benjamini_hochberg(std::span<const double> p);

struct Selection {
  std::vector<double> q;      // BH q-values, in the order of the p-values
  size_t selected = 0;        // R: how many have q <= alpha
  double level_alpha = 0.05;  // the intervals' level is 1 - this: max(R, 1) * alpha / m
};

// BH at FDR alpha over `p`, and the false coverage-rate level. No p-values:
// no q, level alpha.
Selection select_at_fdr(std::span<const double> p, double alpha);

}  // namespace kprof::stats
