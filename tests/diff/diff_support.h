// Helpers for the diff tests: profiles made in code, the seed's OLTP top-30
// lists, and golden-file comparison.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/diff.h"
#include "tests/support/text_files.h"

namespace kprof::difftest {

// One histogram row: image, function, mode, samples (period = samples x 100000).
struct Entry {
  std::string image, function;
  Mode mode = Mode::Kernel;
  uint64_t samples = 0;
};

Histogram make_histogram(const std::vector<Entry>& entries, uint64_t period_per_sample = 100000);

// A run of `release` sampling cycles (CPU_CLK_UNHALTED:100000), 100 s long.
DiffRun make_run(const std::string& release, const std::vector<Entry>& entries);

// The seed's two top-30 lists (LKML, "Mainline kernel OLTP performance
// update", 2010) as 1,000,000-sample profiles: each listed percentage becomes
// pct x 10,000 samples; the rest of each profile is spread over filler
// functions present on both sides, each well under the lists' smallest share.
// Side 0: 2.6.18-164.el5, score 1.000; side 1: 2.6.33-rc4, score 0.992.
DiffInput seed_oltp_input();

// Whether side 1 of `r` flagged any row it tested (not noise, not untested).
bool any_flagged(const DiffResult& r);

// Compares `actual` with tests/diff/golden/<name>. KPROF_UPDATE_GOLDEN=1
// rewrites the golden file. On mismatch writes <test build dir>/<name>.actual
// and returns `diff -u golden actual`; "" when equal.
std::string golden_mismatch(const std::string& name, const std::string& actual);

using test::read_text;
using test::write_text;

}  // namespace kprof::difftest
