// How one recording's counts spread: batch means over its time slices.
//
// With one run a side nothing says how much a row's share would move from
// one recording to the next, and binomial sampling is the wrong guess both
// ways: a timer samples at fixed intervals, so a steady program's shares
// can spread less than binomial (systematic sampling: over 165 one-second
// recordings of a three-function program, a 30% row spread by SD 0.24 pp
// where binomial says 0.65), while interrupt-disabled stretches arrive in
// bursts (30 samples at one enable point in one slice, 2 in the next) and
// spread more. A recording knows its own spread: its samples fall in B
// consecutive slices of equal count (core/time_slices.h; batch means:
// Schmeiser 1982, "Batch size effects in the analysis of simulation
// output", Operations Research 30:556-568), and a row's counts k_j of the
// slices' n_j samples scatter about its share p_r = K / N in that run. The
// scatter is measured by successive differences (von Neumann 1941, "Distribution
// of the ratio of the mean square successive difference to the variance",
// Ann. Math. Statist. 12:367-395) of e_j = (k_j - n_j p_r) / sqrt(n_j),
//   S = sum_{j >= 1} (e_j - e_{j-1})^2 / 2,   with B - 1 degrees of freedom,
// whose mean for independent binomial slices is (B - 1) p (1 - p), as the
// plain sum of squares' is; but a phase (a job that runs for part of the
// recording, every recording alike) moves the level once and adds one
// difference, where the sum of squares would count it in every slice and
// call a steady row of a phased workload bursty. A burst (one slice far
// above its neighbours) still counts in full.
//
// A comparison judges one row on two sides, and under "no change" both are
// one process: its dispersion is estimated from the runs of both sides
// together, each about its own share, at their common share p (Pearson's
// quasi-binomial dispersion over the residuals of the model with a share
// per run; McCullagh & Nelder 1989, Generalized Linear Models, 2nd ed.,
// section 4.5.2):
//   D = sum_r S_r / (p (1 - p)) / sum_r (B_r - 1),
// 1 for binomial counts. (One side's own D alone is wrong exactly where it
// matters: a run that happened to have no burst of a bursty row looks
// precise, and its comparison with one that had bursts looks significant.)
// One row's D is noisy, so the rows' D are moderated toward their common
// level (stats/moderation.h, a trend of 1), fitted over rows with a sample
// per slice on average (a rarer row's counts per slice are mostly 0 or 1:
// its D says little); each row's share is then compared with its effective
// counts K / D of N / D on both sides (stats/change.h dispersed_change).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "stats/moderation.h"

namespace kprof::stats {

// One run's scatter of one row over its slices: S, its B - 1 terms, and
// the degrees of freedom of the chi-square it is worth (0 when the run has
// fewer than 2 used slices). Half the mean square successive difference is
// a less steady estimate than the plain variance with as many terms: for
// independent normal values Var(S / (B - 1)) = sigma^4 (3B - 4) / (B - 1)^2
// (von Neumann, Kent, Bellinson & Hart 1941, "The mean square successive
// difference", Ann. Math. Statist. 12:153-162), where chi-square's with
// B - 1 df is 2 sigma^4 / (B - 1); so df = 2 (B - 1)^2 / (3B - 4), about
// two thirds of B - 1. A test that reads it as B - 1 finds too much
// (tests/stats/screen_test.cpp: 5.7% at 5% with 8 slices a run; 4.9% with
// these df).
struct SliceScatter {
  double ss = 0;
  double terms = 0;  // B - 1
  double df = 0;
};

// A row's counts per slice, and the slices' sample totals (same length). A
// row without samples in the run scatters by 0 (no_scatter).
SliceScatter slice_scatter(std::span<const uint32_t> counts, std::span<const uint64_t> totals);

// A row without samples in a run of `slices` slices: S = 0 over its B - 1
// terms; none with fewer than 2 slices.
SliceScatter no_scatter(size_t slices);

struct Dispersion {
  double value = 1;  // D
  double df = 0;     // summed over the runs; 0 when nothing was measured (or p is 0 or 1)
};

// D over runs' scatters at the common share p (a fraction).
Dispersion pooled_dispersion(std::span<const SliceScatter> runs, double p);

// One run's D: the same over that run alone, at its own share.
Dispersion batch_dispersion(std::span<const uint32_t> counts, std::span<const uint64_t> totals);

// The prior of many rows' dispersions (stats/moderation.h with a trend of
// 1): its scale is their typical level.
VariancePrior fit_dispersion_prior(std::span<const Dispersion> rows);

// A row's dispersion moderated by `prior`, and the df to test it with; a
// row that says nothing (df 0) gets the prior's scale (1 without a prior:
// binomial).
Moderated moderated_dispersion(const Dispersion& d, const VariancePrior& prior);

}  // namespace kprof::stats
