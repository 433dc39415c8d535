// The page exports: `kprof diff … --html OUT` and `kprof report FILE --html
// OUT` write one self-contained HTML file — no network, opens from file:// —
// made of a fixed skeleton, the page's CSS and JavaScript (export/page/,
// compiled in at build time) and a JSON data island (`#kprof-data`, schema in
// export/page/CONTRACT.md) made from the same DiffResult the text, CSV and
// JSON writers use. The script builds the page from the island with text
// nodes only, and the island escapes '<', '>' and '&', so no name (C++
// templates, `operator<<`, "</script>") can become markup.
#pragma once

#include <ostream>

#include "core/profile.h"
#include "report/diff.h"
#include "report/flame.h"
#include "report/report.h"
#include "report/summary.h"
#include "report/timeline.h"

namespace kprof {

// The diff page: header (per side: label, kernel, event, rate, samples, lost,
// duration; warnings first), run summary, delta chart, the matched table,
// side by side top-N (result.options.top), merged names, events per work, and
// the differential flame graph of `flame` (diff_flame(in)), and beside it
// that of off-CPU time when every run recorded it (`off_cpu`: diff_flame
// over the runs' off-CPU stacks, report/off_cpu.h off_cpu_profile).
void write_diff_html(std::ostream& out, const DiffInput& in, const DiffResult& result,
                     const FlameDiff& flame, const FlameDiff* off_cpu = nullptr);

// The report page: header and notices, every row of the flat table, the
// flame graph of the profile (its stacks, else image -> function), and,
// given the profile's `timeline` (report/timeline.h: its records read again),
// a chart of the sampling rate and the top functions' shares over the run.
void write_report_html(std::ostream& out, const Profile& profile, const ProfileHistogram& hist,
                       const Timeline* timeline = nullptr);

}  // namespace kprof
