// Which rows to test at all: rows too small to ever reach significance are
// left out of the family before the false-discovery correction, so a diff
// of 2,000 rows (most with a sample or two) is not corrected for rows that
// could never be found.
//
// The screen is a statistic of each row that is independent of its test
// under the null: its total count over both sides (independent filtering,
// Bourgon, Gentleman & Huber 2010, "Independent filtering increases
// detection power for high-throughput experiments", PNAS 107:9546-9551).
// Given the total, where the samples fall is the test; the total alone
// says the smallest p that test could give (all of them on one side: the
// minimum attainable p of a discrete test). The cut is Tarone's (1990, "A
// modified Bonferroni method for discrete data", Biometrics 46:515-522):
// the smallest K with at most K rows whose minimum attainable p is <= alpha
// / K; those rows are tested, with Benjamini–Hochberg over them only
// (Gilbert 2005, "A modified false discovery rate multiple-comparisons
// procedure for discrete data", Applied Statistics 54:143-158), and the
// rest are reported as untested. The rows left out could not have been
// selected at level alpha / K, so leaving them out keeps the false
// discovery rate (tests/stats and tests/diff check it by simulation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/change.h"

namespace kprof::stats {

// The smallest two-sided p the sampling test (Newcombe, stats/change.h) can
// give a row with `total` samples over both sides, whose sample totals are
// `n`: its samples all on one side (as far as that side's total allows).
double min_attainable_p(uint64_t total, const Sides<uint64_t>& n);

struct Screen {
  std::vector<bool> tested;  // per row, in the order given
  size_t rows_tested = 0;
  uint64_t min_total = 0;  // the fewest samples a tested row has (rows with fewer are untested)
};

// Screens rows by their totals (`totals[i]`: row i's samples over both
// sides) at false discovery rate alpha. Rows with a total of 0 are never
// tested.
Screen screen_rows(std::span<const uint64_t> totals, const Sides<uint64_t>& n, double alpha);

}  // namespace kprof::stats
