// Inside the diff (report/diff.h): a row's cells and the judgement of every
// row of one side against the base. Used by diff.cpp only. The statistics
// are stats/'s (stats/change.h, stats/fdr.h); this pulls the counts out of
// the rows and stores what comes back.
//
// Shares: sampling statistics (Newcombe) with one run on a side, on counts
// over their dispersion across time slices where the runs have them
// (stats/dispersion.h), else run-to-run variance (moderated t, or Welch held
// to the pooled counts); Benjamini–Hochberg across the rows at FDR alpha. Events per unit of work
// (with scores): the same two methods on each run's events per work — Welch on the per-run values,
// or with one run a side the sample counts against the work done (a score test on the conditional
// binomial) — and their own BH.
//
// Intervals are false coverage-rate intervals (Benjamini & Yekutieli 2005):
// when BH selects R of the m rows tested, every row's interval is at level
// 1 - R * alpha / m (R = 0 counts as 1), which excludes zero exactly when BH
// selects the row, so no interval contradicts its verdict. The level is
// returned for the header.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/aggregate.h"
#include "report/diff.h"

namespace kprof::diff_detail {

struct RunTotals {
  uint64_t samples = 0, period = 0;
  double work = 0;  // score x seconds; 0 without scores
  // A cut top-N listing: its last listed row's samples (a row it does not
  // list had at most these); 0 for a recording or a whole listing.
  uint64_t cutoff = 0;
  // Each time slice's samples (Histogram::slice_totals); empty: none.
  std::vector<uint64_t> slice_totals;
};

// A row's cell on one side from its per-run counts and the runs' totals (a
// run that is a cut listing and lacks the row makes the cell unlisted), and
// per run its samples in each time slice (`slices`, empty where unknown).
DiffCell make_cell(const std::vector<Counts>& runs, const std::vector<RunTotals>& totals,
                   bool with_work, const std::vector<std::vector<uint32_t>>& slices = {});

// Judges side `s` of every row against side 0 (vs_base[s]), shares and, when
// `with_work`, events per work. Rows too small to reach significance are
// screened out first (stats/screen.h). RunVariance: the rows' spread is
// fitted (stats/power.h) and, with rows enough, each share is judged by the
// moderated t (stats/moderation.h); else Welch held to the pooled counts.
// Sampling: Newcombe on the pooled counts; events per work are not judged
// with one run a side (a change in machine speed moves every row's cost per
// unit of work alike; overweight_pct says which rows grew more than the
// whole). A bounded row (DiffCell::unlisted on a side) is judged at the end
// of its bounds nearest no change, its interval the hull over both ends.
// Intervals are cut to what a change can be (a share's to
// [-100, +100] pp, a rate's to at least -100%). Returns the intervals'
// levels, the screen and the spread.
struct SideLevels {
  double share_alpha = 0.05;
  double work_alpha = 0.05;
  DiffResult::Screened screened;
  stats::RunSpread spread;
  double dispersion = 0;  // the rows' level over time slices; 0: not measured
  // The degrees of freedom a row with samples in every slice gives it
  // (DiffCompare::dispersion_test_df); +inf when not measured.
  double dispersion_df = std::numeric_limits<double>::infinity();
};
// Where the runs have time slices, each row's counts' dispersion is
// measured over both sides' slices and moderated across rows
// (stats/dispersion.h), and the sampling statistics (one run a side, and
// the pooled counts run-variance verdicts are held to) count samples over
// it; the spread's sampling term is binomial's times the rows' level.
SideLevels compare_side(std::vector<DiffRow>& rows, size_t s, NoiseMethod method,
                        const std::vector<std::vector<RunTotals>>& totals, double alpha,
                        bool with_work);

}  // namespace kprof::diff_detail
