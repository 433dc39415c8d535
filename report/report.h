// `kprof report`: an oprofile-style top-N table of where the samples went,
// grouped by function, image or mode, with a header saying what ran; and the
// same rows as CSV (export/tables.h). Works on a histogram (see summary.h for how one is
// obtained from any profile), so it costs nothing per sample.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/profile.h"
#include "core/stacks.h"
#include "report/summary.h"

namespace kprof {

enum class SortKey { Function, Image, Mode };
// "function" / "image" / "mode"; throws kprof::Error naming the choices.
SortKey parse_sort_key(const std::string& s);

// --sort comm / pid, alone or before function (issue 29: "--sort
// comm,function is a table per process name"): a -g profile's stacks keep
// each sample's process, so process_histogram() makes a histogram whose
// "images" are the processes (by name, or "pid name"), and the report shows
// it as usual, its image column headed "comm" or "pid".
struct ProcessSort {
  // Comm, Pid: from a -g profile's stacks (process_histogram); Tid, Cpu:
  // from the records (report/record_keys.h).
  enum class By { None, Comm, Pid, Tid, Cpu } by = By::None;
  bool functions = false;  // comm,function: one row per (process, function)
};
// "comm", "pid", "tid", "cpu", each alone or followed by ",function"; None
// for the other keys. Throws kprof::Error (exit 2) for any other list.
ProcessSort parse_process_sort(const std::string& s);
// The stacks' samples per process (and leaf function), as a Histogram.
Histogram process_histogram(const Stacks& stacks, const ProcessSort& sort);

struct ReportOptions {
  size_t top = 30;  // rows shown in the table; 0 = all
  SortKey sort = SortKey::Function;
  double percent_limit = 0;  // rows under this percent of all samples are not shown
  bool header = true;        // print the run header before the table
  size_t name_width = 120;   // function names longer than this are cut with "…" (table only)
  bool counts = true;        // show the samples column (false: a listing of shares only)
  bool color = false;        // terminal colours in the header (report/table.h Style)
  size_t line_width = 0;     // tables fit in this many columns (a terminal's); 0: no limit
  std::string image_header = "image";  // "comm" / "pid" for a process_histogram()
};

// One row of the report: a function, an image, or a mode.
struct ReportRow {
  uint64_t samples = 0;
  uint64_t period = 0;
  std::string image;     // full image name ("" when grouping by mode)
  std::string function;  // "" unless grouping by function
  std::string mode;      // "kernel", "user", ...; "kernel+user" when mixed
  auto operator<=>(const ReportRow&) const = default;
};

// Every row for `key`, most samples first; ties by image, then function, then
// mode, so the output is stable. `partial`: only the first `partial` rows are
// sorted (the rest follow in unspecified order); 0 sorts all.
std::vector<ReportRow> report_rows(const Histogram& h, SortKey key, size_t partial = 0);

// The run header: event, kernel, host, command, duration, samples, lost, the
// workload's end, notices, and `hist.notice` when the histogram was recovered.
// `color`: the notices (fallback, cut short, lost or throttled samples) stand
// out on a terminal.
void write_report_header(std::ostream& out, const Profile& profile, const ProfileHistogram& hist,
                         bool color = false);

// The table (and its footer saying what was cut), without the run header.
void write_report_table(std::ostream& out, const Histogram& h, const ReportOptions& opts);

// Header (when opts.header) + table.
void write_report(std::ostream& out, const Profile& profile, const ProfileHistogram& hist,
                  const ReportOptions& opts);

}  // namespace kprof
