// How one recording's counts spread: batch means over its time slices.
//
// With one run a side nothing says how much a row's share would move from
// one recording to the next, and binomial sampling is the wrong guess both
// ways: a timer samples at fixed intervals, so a steady program's shares
// spread less than binomial (systematic sampling: over 165 one-second
// recordings of a three-function program, a 30% row spread by SD 0.24 pp
// where binomial says 0.65), while interrupt-disabled stretches arrive in
// bursts (30 samples at one enable point in one slice, 2 in the next) and
// spread more. A recording knows its own spread: split its samples into B
// consecutive slices of (nearly) equal count (batch means: Schmeiser 1982,
// "Batch size effects in the analysis of simulation output", Operations
// Research 30:556-568), and a row's counts k_j of the slices' n_j samples
// give its Pearson dispersion against binomial at its share p = K / N,
//   D = sum_j (k_j - n_j p)^2 / (n_j p (1 - p)) / (B - 1),
// the quasi-binomial dispersion (McCullagh & Nelder 1989, Generalized
// Linear Models, 2nd ed., section 4.5.2), 1 for binomial counts, with B - 1
// degrees of freedom. One row's D is noisy (a row of 3 samples), so the
// rows' D are moderated toward their common level (stats/moderation.h, a
// trend of 1), and each row's share is compared with its effective counts
// K / D of N / D (stats/change.h dispersed_change).
#pragma once

#include <cstdint>
#include <span>

namespace kprof::stats {

struct Dispersion {
  double value = 1;  // D
  double df = 0;     // B - 1; 0 when the row says nothing (no slices, p of 0 or 1)
};

// A row's counts per slice, and the slices' sample totals (same length).
Dispersion batch_dispersion(std::span<const uint32_t> counts, std::span<const uint64_t> totals);

}  // namespace kprof::stats
