// `kprof report [FILE]`: the top-N table of a profile, and optionally every
// row as CSV; for a -g profile also the call-graph views (--children,
// --callers FUNC, --callees FUNC; report/callgraph.h). Reads the profile only.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "cli/terminal.h"
#include "core/error.h"
#include "core/profile.h"
#include "export/export.h"
#include "export/html.h"
#include "export/tables.h"
#include "importer/import.h"
#include "report/callgraph.h"
#include "report/off_cpu.h"
#include "report/per_call.h"
#include "report/report.h"
#include "report/summary.h"
#include "report/timeline.h"

namespace kprof::cli {

namespace {

// Every table export goes through the export layer's one Output (a path or
// "-"), which reports a failed or short write as one line.
void write_csv_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  Output out = open_output(path);
  write(out.stream());
  out.close();
}

}  // namespace

int cmd_report(int argc, char** argv) {
  CLI::App app{
      "Top-N table of where the samples went (oprofile's opreport, perf report); for a -g "
      "profile also its call graph (--children, --callers, --callees)",
      "kprof report"};
  std::string file = "kprof.data";
  std::string sort = "function";
  std::string csv;
  std::string callers, callees;
  bool no_header = false;
  bool children = false;
  size_t depth = 3;
  ReportOptions opts;
  InputOptions input;
  app.add_option("FILE", file,
                 "profile to read: .kprof, perf.data, or an opreport / perf report listing "
                 "('-': standard input, e.g. ssh host cat x.kprof | kprof report -)")
      ->capture_default_str();
  add_input_options(app, input);
  SampleFilter filter;
  add_filter_options(app, filter);
  std::string color = "auto";
  add_color_option(app, color);
  app.add_option("--top,-n", opts.top,
                 "rows to show in the table, or children per node in a --callers/--callees "
                 "tree (0: all)")
      ->check(whole_number(0))
      ->capture_default_str();
  app.add_option("--sort,-s", sort,
                 "one row per: function, image or mode; or per process, comm or pid, alone or "
                 "as comm,function / pid,function (-g profiles); or per thread or CPU, tid or "
                 "cpu, alone or as tid,function / cpu,function (from the profile's per-thread "
                 "table; older profiles and --time read the records again) (flat table only)")
      ->capture_default_str();
  app.add_option("--percent-limit", opts.percent_limit,
                 "hide rows under this percent of all samples (--children: of total samples; "
                 "--callers/--callees: of FUNC's samples)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--csv", csv,
                 "also write every row as CSV to this file ('-': CSV on stdout, no table)");
  std::string html;
  app.add_option("--html", html,
                 "also write the profile as one self-contained page (table and flame graph) to "
                 "FILE ('-': stdout, no table)");
  app.add_flag("--no-header", no_header, "leave out the run header above the table");
  bool no_pager = false;
  add_pager_option(app, no_pager);
  auto* children_opt = app.add_flag(
      "--children", children,
      "-g profiles: per function its self samples (stacks it is the leaf of) and total "
      "samples (stacks it is in, once per stack), most total first");
  auto* callers_opt =
      app.add_option("--callers", callers,
                     "-g profiles: the tree of who calls FUNC (its name, or its name without clone "
                     "suffixes such as .isra.0 or .cold), --depth levels up");
  callers_opt->type_name("FUNC");
  auto* callees_opt = app.add_option(
      "--callees", callees, "-g profiles: the tree of what FUNC calls, --depth levels down");
  callees_opt->type_name("FUNC");
  app.add_option("--depth", depth, "levels of the --callers / --callees tree")
      ->check(CLI::Range(size_t{1}, size_t{1000}))
      ->capture_default_str();
  bool per_call = false;
  auto* per_call_opt = app.add_flag(
      "--per-call", per_call,
      "profiles recorded with -g --syscalls: per system call, its calls, calls/s and CPU time "
      "per call under its kernel entry");
  bool off_cpu = false;
  auto* off_cpu_opt = app.add_flag(
      "--off-cpu", off_cpu,
      "profiles recorded with --off-cpu: time off CPU (blocked, waiting on the run queue) per "
      "function and stack, in samples of the sampling period, with each thread's on-CPU + "
      "blocked + run queue = wall time; with --children, --callers, --callees, --csv, --html");
  bool timeline = false;
  auto* timeline_opt =
      app.add_flag("--timeline", timeline,
                   "how the sampling rate and the top functions' shares move over the recording: a "
                   "sparkline each over its time slices (reads the records again; a .kprof file); "
                   "with --html, the page's chart only");
  timeline_opt->excludes(per_call_opt)->excludes(off_cpu_opt)->excludes(children_opt);
  timeline_opt->excludes(callers_opt)->excludes(callees_opt);
  off_cpu_opt->excludes(per_call_opt);
  callers_opt->excludes(callees_opt);
  children_opt->excludes(callers_opt)->excludes(callees_opt);
  per_call_opt->excludes(children_opt)->excludes(callers_opt)->excludes(callees_opt);
  if (auto code = parse_args(app, argc, argv)) return *code;
  opts.color = use_color(color);
  opts.line_width = terminal_columns();
  const ProcessSort by_process = parse_process_sort(sort);
  if (by_process.by == ProcessSort::By::None) {
    opts.sort = parse_sort_key(sort);
  } else {
    opts.sort = by_process.functions ? SortKey::Function : SortKey::Image;
    opts.image_header = by_process.by == ProcessSort::By::Comm  ? "comm"
                        : by_process.by == ProcessSort::By::Pid ? "pid"
                        : by_process.by == ProcessSort::By::Tid ? "tid"
                                                                : "cpu";
  }
  opts.header = !no_header;

  if (per_call && !filter.empty()) {
    throw Error(
        "--per-call divides by every call the recording counted: it takes no " + filter.describe(),
        2);
  }
  check_off_cpu_filter(off_cpu, filter);
  if (off_cpu && (by_process.by == ProcessSort::By::Tid || by_process.by == ProcessSort::By::Cpu)) {
    throw Error("--sort " + sort +
                    " counts CPU samples; the time off CPU per thread is in kprof report "
                    "--off-cpu's header",
                2);
  }
  // A perf.data read here counts its per-thread table for the views it answers.
  input.per_thread = by_process.by != ProcessSort::By::None || !filter.records.tids.empty() ||
                     !filter.records.cpus.empty() || !filter.comms.empty() || !filter.pids.empty();
  // --sort tid / cpu filter as they count the records (record_key_table).
  const bool by_records =
      by_process.by == ProcessSort::By::Tid || by_process.by == ProcessSort::By::Cpu;
  if (by_records && (per_call || timeline || !html.empty() || app.count("--children") ||
                     app.count("--callers") || app.count("--callees"))) {
    throw Error("--sort " + sort +
                    " is a flat table of its own: without --per-call, --timeline, --html, "
                    "--children, --callers or --callees",
                2);
  }
  Profile profile =
      by_records ? load_input(file, input) : load_filtered(file, input, filter, nullptr, false);
  if (off_cpu) profile = off_cpu_profile(std::move(profile), file);
  ProfileHistogram hist = histogram_of(profile);
  // The off-CPU header: what a sample is, and each thread's time on one scale.
  auto write_header = [&](std::ostream& out) {
    write_report_header(out, profile, hist, opts.color);
    if (off_cpu) write_off_cpu_summary(out, *profile.off_cpu, opts.top == 0 ? 0 : 10);
  };
  require_recovered_samples(profile, hist);
  const bool by_callers = callers_opt->count() > 0, by_callees = callees_opt->count() > 0;
  const bool graph = children || by_callers || by_callees;
  if (per_call) {
    const PerCallProfile p = per_call_profile(
        hist.stacks, profile.syscalls, profile.run.event,
        profile.summary ? static_cast<double>(profile.summary->duration_ns) / 1e9 : 0, file);
    if (!csv.empty()) write_csv_file(csv, [&](std::ostream& o) { write_per_call_csv(o, p); });
    if (csv == "-") return 0;
    const Pager pager(no_pager);
    const LineWrapper wrap(opts.line_width);
    if (opts.header) write_report_header(std::cout, profile, hist, opts.color);
    write_per_call(std::cout, p, opts.top);
    std::cout.flush();
    if (!std::cout && !pager.active()) throw Error("cannot write the report to stdout");
    return 0;
  }
  // The samples over time (report/timeline.h): the records read again.
  const size_t timeline_rows = opts.top == 0 ? hist.histogram.rows.size()
                               : app.count("--top") + app.count("-n")
                                   ? opts.top
                                   : std::min<size_t>(opts.top, 10);
  auto timeline_of = [&](std::string* why) {
    SampleClock clock(profile.run.recorder_pid);
    read_records(file, profile, filter, clock, "--timeline");
    return build_timeline(hist.histogram, clock.times(), profile.run.start_monotonic_ns,
                          timeline_rows, why);
  };
  if (timeline && html.empty()) {
    std::string why;
    const std::optional<Timeline> t = timeline_of(&why);
    if (!t) throw Error("--timeline: " + file + ": " + why, 1);
    const Pager pager(no_pager);
    const LineWrapper wrap(opts.line_width);
    if (opts.header) write_report_header(std::cout, profile, hist, opts.color);
    write_timeline(std::cout, *t);
    std::cout.flush();
    if (!std::cout && !pager.active()) throw Error("cannot write the report to stdout");
    return 0;
  }
  if (csv == "-" && html == "-") throw Error("only one of --csv and --html can be '-' (stdout)", 2);
  if (!html.empty()) {
    // The page charts the run over time where the records can be read
    // again (a .kprof file that keeps them); --timeline insists on it.
    std::optional<Timeline> t;
    std::string why = "the page's timeline reads a .kprof file's records";
    if (!off_cpu && file != "-" && importer::file_format(file) == importer::InputFormat::Kprof) {
      try {
        t = timeline_of(&why);
      } catch (const Error& e) {
        why = e.what();
      }
    }
    if (!t && timeline) throw Error("--timeline: " + file + ": " + why, 1);
    Output out = open_output(html);
    write_report_html(out.stream(), profile, hist, t ? &*t : nullptr);
    out.close();
    if (html == "-" || timeline) return 0;
  }
  // The text on a terminal is paged; an export on stdout is not.
  const Pager pager(no_pager || csv == "-");
  const LineWrapper wrap(csv == "-" ? 0 : opts.line_width);
  if (!graph) {
    if (by_records) {
      hist.histogram =
          record_key_table(file, profile, filter, input,
                           by_process.by == ProcessSort::By::Tid ? RecordKey::Tid : RecordKey::Cpu,
                           by_process.functions);
    } else if (by_process.by != ProcessSort::By::None) {
      if (hist.stacks) {
        hist.histogram = process_histogram(*hist.stacks, by_process);
      } else {
        // A flat profile keeps its processes in its per-thread table, which
        // takes every filter itself: the profile as read from the file
        // (read once more only when filters changed it).
        Profile reread;
        Profile& whole = filter.empty() ? profile : (reread = load_input(file, input));
        hist.histogram = record_key_table(
            file, whole, filter, input,
            by_process.by == ProcessSort::By::Pid ? RecordKey::Pid : RecordKey::Comm,
            by_process.functions);
      }
    }
    if (!csv.empty()) {
      write_csv_file(csv, [&](std::ostream& o) {
        write_report_csv(o, hist.histogram, opts.sort, opts.image_header);
      });
    }
    if (csv != "-") {
      if (opts.header) write_header(std::cout);
      ReportOptions table = opts;
      table.header = false;
      write_report(std::cout, profile, hist, table);
    }
  } else {
    if (!hist.stacks) {
      throw Error(profile.run.event.callchains
                      ? file +
                            " was recorded with -g by a kprof that kept no stacks: run kprof "
                            "symbolize " +
                            file + " where it was recorded"
                      : file + " has no call chains: record with kprof record -g");
    }
    const Stacks& stacks = *hist.stacks;
    if (children) {
      if (!csv.empty())
        write_csv_file(csv, [&](std::ostream& o) { write_children_csv(o, stacks); });
      if (csv != "-") {
        if (opts.header) write_header(std::cout);
        write_children_table(std::cout, stacks, opts);
      }
    } else {
      CallTree tree = by_callees ? call_tree(stacks, callees, CallDirection::Callees, depth, file)
                                 : call_tree(stacks, callers, CallDirection::Callers, depth, file);
      if (!csv.empty()) write_csv_file(csv, [&](std::ostream& o) { write_call_tree_csv(o, tree); });
      if (csv != "-") {
        if (opts.header) write_header(std::cout);
        write_call_tree(std::cout, tree, opts);
      }
    }
    if (csv != "-") {
      // A DWARF-unwound profile knows why each stack ended; others guess.
      std::string notice =
          profile.unwind ? unwind_notice(*profile.unwind) : truncation_notice(stacks);
      if (!notice.empty()) std::cout << notice << "\n";
    }
  }
  std::cout.flush();
  if (!std::cout && !pager.active()) throw Error("cannot write the report to stdout");
  return 0;
}

}  // namespace kprof::cli
