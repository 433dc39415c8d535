// Statistics behind the diff's noise verdicts. Pure functions, no I/O.
//
// Two ways to say whether a function's share changed between two sides:
// - one run per side: sampling statistics only. Each sample is a draw of
//   "in this function or not", so the share is a binomial proportion; the
//   interval on the difference is Newcombe's hybrid score interval (two
//   Wilson intervals), the p-value the level at which that interval first
//   includes 0 (so the two always agree, even for a handful of samples). This
//   ignores run-to-run variation (placement, frequency, cache luck), which is
//   usually larger: the verdict says so.
// - two or more runs per side: run-to-run variance. Welch's t on the per-run
//   percentages: interval and two-sided p-value.
// Across the many rows of a diff, Benjamini–Hochberg controls the false
// discovery rate; a row is "within noise" unless its BH q-value is <= alpha.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kprof {

// None: a side is a listing of shares without counts (importer/text_table.h):
// nothing says how noisy its shares are, so no row gets a verdict.
enum class NoiseMethod { Sampling, RunVariance, None };
const char* noise_method_name(NoiseMethod m);  // "sampling", "run-variance", "none"

// A change in percentage points with its (1 - alpha) interval and p-value.
struct Change {
  double delta_pp = 0;  // new% - base%
  double lo_pp = 0, hi_pp = 0;
  double p = 1;  // two-sided
};

// `k1` of `n1` base samples and `k2` of `n2` new samples fell in the row.
// n1 or n2 of 0 gives an infinite interval and p = 1.
Change sampling_change(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double alpha = 0.05);

// Per-run percentages of the row on each side (each needs >= 2 runs, else
// this falls back to an infinite interval and p = 1). Identical runs (zero
// variance) give a zero-width interval and p = 0 or 1.
Change welch_change(std::span<const double> base_pct, std::span<const double> new_pct,
                    double alpha = 0.05);

// Benjamini–Hochberg adjusted p-values (q-values), same order as `p`.
std::vector<double> benjamini_hochberg(std::span<const double> p);

// Two-sided tail of Student's t with `df` degrees of freedom: P(|T| >= |t|).
double student_t_two_sided_p(double t, double df);
// The t with P(|T| >= t) == alpha.
double student_t_quantile(double alpha, double df);
// Two-sided normal quantile: z with P(|Z| >= z) == alpha.
double normal_quantile(double alpha);

}  // namespace kprof
