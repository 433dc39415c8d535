// What a diff could not have seen: the detectability floor of each comparison.
//
// For each non-base side against the base, the change in percentage points
// that marks what diff_profiles() can tell at its false discovery rate, for
// a row holding 1%, 5% and 20% of the samples; and what would halve it. A
// floor F promises: 1.25 F is found (called "changed") at least 80% of the
// time, F / 2 at most 20%. From the test's own power curve: d80 the change
// found 80% of the time, d20 the one found 20% of the time; every F in
// [d80 / 1.25, d20 / 0.5] keeps both, and F is their geometric middle,
// sqrt(1.6 d80 d20) (a change of F itself is found 61% of the time by a
// single test, ~80% with 150 rows tested, ~87% with 10,000). A floor at
// d80 (80% power at F) cannot keep the second promise with few rows
// tested: a test at z = z(alpha / m) finds d80 / 2 with probability
// Phi((z(0.8) - z) / 2), 29% for a single test, 20% only from 6 rows up.
// `kprof diff` prints it after the tables; `kprof diff --plan` prints only
// it, from pilot profiles, to size a real experiment.
// Reads DiffInput / DiffResult; pure, no I/O. The floors themselves — the
// two-proportion power equation, the run-to-run spread model and its fit,
// Welch's power integrated over the sample variances, and why — are
// stats/power.h's; this is what the diff feeds them and what it prints.
//
// Contract:
// - A comparison tests m rows: those with samples on either side, as the
//   diff counts them; each is tested at alpha / m (BH's rank-1 threshold),
//   but two rows at alpha: each is the other's complement, so BH finds
//   both or neither at alpha x 2 / 2 (a floor at alpha / 2 there promised
//   too little: the hot-cold program's half-floor changes were found 28-33%
//   of the time where that curve said 24%; at alpha, 29%).
// - Sampling statistics (a side with one run): the sampling floor on the
//   samples summed over each side's runs, each side's divided by its
//   dispersion over time slices where measured (as the verdicts count
//   them), printed as "±" (a fall is found at least as often as a growth).
//   4x the samples per side at least halves it.
// - Run-to-run variance (both sides >= 2 runs): the spread fitted to the
//   per-run shares of every row present on both sides (fit_run_spread).
//   With rows enough to fit it the verdicts are the moderated t's and so is
//   the floor; else Welch's floor, and since those verdicts are held to the
//   pooled counts' sampling statistics too, the larger of the two. Halving:
//   the fewest runs per side (same samples per run) at which every finite
//   floor is at most half what it is now (and every infinite one finite).
// - NoiseMethod::None (listings of shares without counts): no floor.
// tests/diff/detect_test.cpp checks this by simulation: at 1.25x the floor
// the diff finds the change >= 80% of the time, at 0.5x at most ~20%; the
// formulas' own tests are tests/stats/power_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "report/diff.h"
#include "stats/power.h"

namespace kprof {

// What a floor F promises (the issue 22 contract): a change of
// kFoundAbove x F is found with probability kPowerAbove or more, one of
// kMissedBelow x F with kPowerBelow or less, by the test's own power curve.
inline constexpr double kFoundAbove = 1.25, kPowerAbove = 0.8;
inline constexpr double kMissedBelow = 0.5, kPowerBelow = 0.2;
inline constexpr double kFloorShares[] = {1.0, 5.0, 20.0};  // in %
inline constexpr size_t kMaxPlanRuns = 1000;                // halving search stops here

// Fits stats::RunSpread to the per-run shares of side `side` and the base:
// a from every run's samples on both sides, b over the rows present on both
// (those with >= 2 runs a side; else b = 0).
stats::RunSpread fit_run_spread(const DiffInput& in, const DiffResult& result, size_t side);

struct FloorAt {
  double share_pct = 0;
  double floor_pp = 0;                    // what the diff can see: the larger of the two below
  double sampling_pp = 0;                 // pooled counts' sampling statistics
  std::optional<double> run_variance_pp;  // RunVariance only
};

struct DetectFloor {
  size_t side = 0;  // >= 1, against side 0
  std::string label, base_label;
  NoiseMethod method = NoiseMethod::Sampling;
  size_t rows = 0;  // m: rows tested in this comparison
  double alpha = 0.05;
  uint64_t base_samples = 0, new_samples = 0;  // summed over runs
  size_t base_runs = 0, new_runs = 0;
  stats::RunSpread spread;  // RunVariance only
  // The counts' variance against binomial, measured over the runs' time
  // slices (DiffResult::slice_dispersion; 0: not measured, binomial). The
  // sampling floor counts n / dispersion samples a side, at Student's t
  // quantile with `dispersion_df` degrees of freedom (+inf: the normal's).
  double dispersion = 0;
  double dispersion_df = std::numeric_limits<double>::infinity();
  std::vector<FloorAt> at;  // per share asked for; empty with NoiseMethod::None
  // Sampling: 4x the samples per side. RunVariance: runs per side (both
  // sides the same), unset when kMaxPlanRuns do not halve it.
  uint64_t halve_base_samples = 0, halve_new_samples = 0;
  std::optional<size_t> halve_runs;
};

// One DetectFloor per non-base side. `in` gives the sample totals (as the
// diff counts them), `result` = diff_profiles(in) the rows and methods.
std::vector<DetectFloor> detectability(const DiffInput& in, const DiffResult& result,
                                       std::span<const double> shares_pct = kFloorShares);

// A few lines per comparison, starting "Detectability floor for NEW against BASE".
void write_detectability(std::ostream& out, const std::vector<DetectFloor>& floors);

}  // namespace kprof
