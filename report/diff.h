// `kprof diff`: where the cycles went in two or more profiles, and what changed.
//
// The diff is a pure function over in-memory profiles:
//   DiffInput (sides of one or more runs, options) -> diff_profiles() -> DiffResult
//   DiffResult -> write_diff_text (here); CSV and JSON: export/tables.h.
// Only histograms and run facts are read (never Records), so the cost is the
// number of distinct functions, not samples; nothing here touches files.
//
// Semantics (the README's "Reading a diff"):
// - Side 0 is the base; every other side is compared against it (N-way).
// - A side holds one or more runs of the same kernel. A side's share of a row
//   is the mean of its runs' shares.
// - Row identity: (image, canonical name) with --by function (image compared
//   by name: "[kernel]", "[ext4]", or the user binary's path); the image with
//   --by image; the mode ("kernel", "user") with --by mode. Raw names merged
//   into a canonical one are kept per row.
// - Noise: per comparison, run-to-run variance when both sides have >= 2
//   runs (moderated t over the rows' fitted spread, report/diff_rows.h),
//   else sampling statistics, on counts over their dispersion across the
//   runs' time slices where the runs have them; rows too small to ever be found are screened
//   out ("untested"), then Benjamini–Hochberg across the rest. Listings of
//   shares only get no verdict.
// - A row missing from a cut top-N listing is below that list's last share,
//   not 0: its change is a bound (DiffCompare::bounded), never +++ / ---.
// - Speedup: from work scores (higher is better) when every run has one, else
//   from the workload's wall time (base_time / new_time).
// - Cycles per unit of work (events / (score x recording seconds), i.e. the
//   score is read as work per second) when every run has a score.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/environment.h"
#include "core/model.h"
#include "core/profile.h"
#include "core/stacks.h"
#include "report/cost_moves.h"
#include "report/environment_diff.h"
#include "stats/change.h"
#include "stats/dispersion.h"
#include "stats/power.h"

namespace kprof {

// The verdicts' vocabulary, from the statistics (stats/change.h).
using stats::Change;
using stats::noise_method_name;
using stats::NoiseMethod;

enum class DiffBy { Function, Image, Mode };
// "function" / "image" / "mode"; throws kprof::Error naming the choices.
DiffBy parse_diff_by(const std::string& s);
const char* diff_by_name(DiffBy by);

// One profile as the diff sees it.
struct DiffRun {
  std::string source;  // file path, or a name for profiles made in code
  RunInfo run;
  std::optional<Summary> summary;
  Histogram histogram;
  std::optional<Stacks> stacks;            // -g profiles: their call stacks (for the folded diff)
  std::optional<Environment> environment;  // the machine's fingerprint, when recorded
  std::optional<SyscallCounts> syscalls;   // kprof record --syscalls, when counted
  std::optional<double> score;             // --score override; else taken from run.scores
  // What shares are of: unset, the histogram's rows summed; with --children
  // the rows are inclusive and overlap, so the stacks' own totals are given.
  std::optional<uint64_t> total_samples, total_period;
  uint64_t samples() const;  // total_samples, else the rows' sum
};

struct DiffSide {
  std::string label;          // "" = default (the kernel release)
  std::vector<DiffRun> runs;  // at least one
};

struct DiffOptions {
  DiffBy by = DiffBy::Function;
  size_t top = 30;           // text tables: rows shown; 0 = all (CSV/JSON: always all)
  double percent_limit = 0;  // text tables: hide rows under this share on every side
  double alpha = 0.05;       // interval level (1 - alpha) and BH false discovery rate
  size_t name_width = 60;    // text tables: names cut with "…" beyond this
  bool color = false;        // text: terminal colours (Δ of changed rows, noise dimmed)
  // Text: the per-work table by overweight (how much more a row grew than
  // the whole did), largest first, instead of changed rows and |change|.
  bool sort_overweight = false;
  size_t line_width = 0;  // text tables fit in this many columns (a terminal's); 0: no limit
  std::string view;       // what the rows are, for the page: "", "children", "callers FUNC"
};

// What the rows are, for titles: "by function", or for a call-graph view
// "callers of FUNC" / "functions by total samples (self and children)".
std::string diff_rows_title(const DiffOptions& o);

struct DiffInput {
  std::vector<DiffSide> sides;        // at least two
  std::vector<std::string> warnings;  // from loading (cut-short files), shown first
  DiffOptions options;
};

// ---------------------------------------------------------------- result

struct SideSummary {
  std::string label;
  size_t runs = 0;
  std::optional<double> speedup, speedup_sd;  // sd only with >= 2 runs
  std::optional<ProcStatRates> rates;         // mean over runs that have both snapshots
  uint64_t samples = 0, lost = 0;             // summed over runs
  std::optional<double> score;                // mean over runs, when all have one
  std::optional<double> real_s;               // mean workload wall time
  std::string source_format;                  // the first run's RunInfo::source_format
  // false when some run lists shares only (a listing without counts): its
  // `samples` are not counts, so none are shown or exported.
  bool counts = true;
  bool listing = false;  // some run is a pasted listing: lost samples unknown
};

// Whether a RunInfo::source_format is a pasted listing ("opreport", "perf report").
bool listing_format(const std::string& source_format);

struct DiffCell {        // one row on one side
  double pct = 0;        // mean over runs of the row's share of samples, in %
  uint64_t samples = 0;  // summed over runs
  uint64_t period = 0;   // summed over runs (events)
  std::vector<double> run_pct;
  std::optional<double> events_per_work;    // mean over runs; with scores only
  std::vector<double> run_events_per_work;  // per run; with scores only
  // Absent from a run that is a cut top-N listing: the row's share there is
  // not 0 but somewhere below the list's last share. `pct`, `samples` and
  // `run_pct` count such a run as 0; these count it at that last share, so
  // the row's share lies in [pct, pct_max].
  bool unlisted = false;
  double pct_max = 0;
  uint64_t samples_max = 0;
  std::vector<double> run_pct_max;
  // Per run: how the row's samples scatter over the run's time slices
  // (stats/dispersion.h; df 0 where the run has no slices).
  std::vector<stats::SliceScatter> run_scatter;
};

enum class Sidedness { Both, OnlyBase, OnlyNew, Neither };
// How `ratio` bounds new / base: exactly, or only from one side (a row not
// in a cut listing, DiffCell::unlisted).
enum class RatioBound { Exact, AtLeast, AtMost, Unknown };
const char* ratio_bound_name(RatioBound b);  // "", "at least", "at most", "unknown"
const char* sidedness_mark(Sidedness s);     // "", "---", "+++", ""

struct DiffCompare {  // one row, one non-base side against the base
  Change change;      // delta, interval, p
  double q = 1;       // BH-adjusted p across this comparison's rows
  bool within_noise = true;
  // Samples on a side, but too few over both to ever reach significance in
  // this comparison (stats/screen.h): left out of the false-discovery
  // family, verdict "untested", no p, q or interval.
  bool untested = false;
  std::optional<double> ratio;  // new / base; none when base is 0
  RatioBound ratio_bound = RatioBound::Exact;
  // A side's cell is unlisted: the change lies in [bounds_lo, bounds_hi] pp
  // whatever the unlisted share was; delta_pp is the end nearest 0 (0 when
  // the bounds hold 0), and a test, where there is one, is of that end.
  bool bounded = false;
  double bounds_lo = 0, bounds_hi = 0;
  Sidedness sided = Sidedness::Both;
  std::optional<double> work_change_pct;  // events per work, new vs base, in %
  // Events per work judged like the share (with scores, base events > 0):
  // the change in % of the base's events per work (delta_pp holds %), its
  // interval and p; q and the verdict from BH across the rows so tested.
  bool work_tested = false;
  Change work;
  double work_q = 1;
  bool work_within_noise = true;
  // How much more (+) or less (-) the row's events per work grew than the
  // whole's did, in %: 0 for a row that grew exactly as the workload did
  // (it kept its share), so a uniform slowdown of the machine leaves every
  // row near 0. With scores, when the base has events.
  std::optional<double> overweight_pct;
  // The row's counts' variance against binomial in this comparison, from
  // both sides' time slices, moderated across rows (stats/dispersion.h): the
  // sampling statistics count samples over it. 1 when not measured
  // (`dispersion_df` 0). `dispersion_test_df`: the degrees of freedom the
  // verdict gives it (its own and the rows' prior's; +inf where it is held
  // at binomial's, or not measured): the statistic is referred to Student's
  // t with them (stats/change.h dispersed_change).
  double dispersion = 1;
  double dispersion_df = 0;
  double dispersion_test_df = std::numeric_limits<double>::infinity();
};

// "changed", "noise", "untested" (too few samples), or "no verdict"
// (NoiseMethod::None).
const char* verdict_name(const DiffCompare& c, NoiseMethod method);
// The same for events per work; "" when the row was not tested for it.
const char* work_verdict_name(const DiffCompare& c, NoiseMethod method);

struct DiffRow {
  std::string image;                   // "" with --by mode
  std::string name;                    // canonical function, image, or mode name
  std::vector<std::string> raw_names;  // distinct raw function names merged here (sorted)
  std::vector<DiffCell> cells;         // per side
  std::vector<DiffCompare> vs_base;    // per side; [0] is the base against itself
  double max_abs_delta = 0;
  // A kernel function at an interrupt-enable point in a timer-sampled
  // (cpu-clock) diff: its change may be a move of interrupt-disabled time
  // (report/skid.h).
  bool irq_skid = false;
  // A kernel function that is the own code of a configuration option that
  // differs between the sides ("PREEMPT_RT" for rt_spin_unlock; only where
  // that is certain: report/environment_diff.h owning_option); "" otherwise.
  std::string config_option;
  bool merged() const {
    return raw_names.size() > 1 || (raw_names.size() == 1 && raw_names[0] != name);
  }
};

struct DiffResult {
  DiffOptions options;
  std::vector<std::string> labels;  // per side, unique
  std::vector<std::string> warnings;
  std::vector<SideSummary> summary;
  std::string speedup_source;      // "score 'tps'", "wall time", or "" (none)
  std::vector<NoiseMethod> noise;  // per side ([0] unused)
  // Per side ([0] unused): the intervals are at level 1 - this, the false
  // coverage-rate level (report/diff_rows.h), for shares and per work.
  std::vector<double> interval_alpha, work_interval_alpha;
  // Per side ([0] unused): how many rows with samples were tested, and the
  // fewest samples (over both sides) a tested row has (stats/screen.h).
  struct Screened {
    size_t rows_with_samples = 0, rows_tested = 0;
    uint64_t min_total = 0;
  };
  std::vector<Screened> screened;
  // Per side ([0] unused), RunVariance only: how one run's share spreads,
  // fitted over the rows (stats/power.h), which the verdicts and the floor use.
  std::vector<stats::RunSpread> spread;
  // Per side ([0] unused): the typical variance of the counts against
  // binomial in its comparison, measured over the runs' time slices (the
  // rows' moderated level, stats/dispersion.h); 0 when no run has slices.
  std::vector<double> slice_dispersion;
  // Per side, the degrees of freedom a row with samples in every slice gives
  // that level in its verdict (DiffCompare::dispersion_test_df; +inf: none).
  std::vector<double> slice_dispersion_df;
  std::string share_title;      // "Cycles%" / "Samples%"
  bool has_work = false;        // every run has a score: events per work shown
  bool work_in_ns = false;      // every run sampled a timer (cpu-clock): events are ns of CPU
  std::vector<DiffRow> rows;    // every row, by max |delta| then share
  EnvironmentDiff environment;  // what differs besides the workload (first run of each side)
  std::vector<CostMove> moves;  // -g: a drop and a rise under one caller that cancel (cost_moves.h)
};

// The labels diff_profiles() will use: each side's label, else its first
// run's kernel release, else the file name; a repeated label gets "#2", "#3".
std::vector<std::string> diff_labels(const std::vector<DiffSide>& sides);

// Throws kprof::Error when there are fewer than two sides or a side has no run.
DiffResult diff_profiles(const DiffInput& input);

// Which parts of the text report to write (kprof diff --sections): what
// differs besides the workload, the run summary, the side-by-side top N, the
// matched diff (with its cost moves, events per unit of work and merged
// names). The title and the warnings are always written.
struct DiffSections {
  bool env = true, summary = true, top = true, matched = true;
};

// The text report: warnings, run summary, side by side, matched diff,
// cycles per work, merged names. Honors top / percent_limit / name_width.
void write_diff_text(std::ostream& out, const DiffResult& result, const DiffSections& parts = {});

// The line saying how side `side` (>= 1) was judged against the base: the
// noise method, the interval level, and BH's rate over how many rows.
std::string diff_noise_line(const DiffResult& result, size_t side);

// Which rows a run is diffed on: its flat histogram, its inclusive one
// (--children), or the paths into one function (--callers FUNC), both from
// its stacks (report/callgraph.h).
struct DiffView {
  bool children = false;
  std::string callers;  // FUNC, or ""
};

// A loaded profile (a .kprof, or one importer/import.h read from a
// perf.data or a listing) as a diff run. With a call-graph view a profile
// without call chains throws kprof::Error.
DiffRun diff_run_of(Profile profile, std::vector<std::string>& warnings, const DiffView& view = {});

}  // namespace kprof
