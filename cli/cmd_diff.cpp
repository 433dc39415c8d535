// `kprof diff BASE NEW [NEW2 ...]` and `kprof diff A1 A2 -- B1 B2 [-- C1 C2 ...]`:
// parses options, loads the profiles and prints the diff (report/diff.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/annotate_input.h"
#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "cli/terminal.h"
#include "core/error.h"
#include "export/environment_export.h"
#include "export/export.h"
#include "export/html.h"
#include "export/tables.h"
#include "report/detect.h"
#include "report/diff.h"
#include "report/flame.h"
#include "report/off_cpu.h"
#include "report/per_call.h"

namespace kprof::cli {

namespace {

// CLI11 reads the first "--" as "end of options"; a diff's "--" separates
// sides, so each is swapped for this token (not an option, not a path anyone
// types) before parsing.
constexpr const char* kSeparator = "\x1f--";

bool all_off_cpu_runs(const std::vector<std::vector<std::optional<OffCpu>>>& sides) {
  return std::all_of(sides.begin(), sides.end(), [](const auto& side) {
    return std::all_of(side.begin(), side.end(), [](const auto& o) { return o.has_value(); });
  });
}

// kprof diff --sections: which parts of the text diff to print.
struct Sections {
  DiffSections text;
  bool off_cpu = true, floor = true;
};

Sections parse_sections(const std::string& list) {
  Sections s;
  if (list.empty()) return s;
  s.text = {false, false, false, false};
  s.off_cpu = s.floor = false;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    start = comma + 1;
    bool* flag = name == "env"       ? &s.text.env
                 : name == "summary" ? &s.text.summary
                 : name == "top"     ? &s.text.top
                 : name == "matched" ? &s.text.matched
                 : name == "off-cpu" ? &s.off_cpu
                 : name == "floor"   ? &s.floor
                                     : nullptr;
    if (flag == nullptr) {
      throw Error("--sections: no part '" + name +
                      "' (env, summary, top, matched, off-cpu, floor, comma-separated)",
                  2);
    }
    *flag = true;
  }
  return s;
}

std::vector<DiffSide> split_sides(const std::vector<std::string>& args) {
  std::vector<std::vector<std::string>> groups(1);
  for (const std::string& a : args) {
    if (a == kSeparator) {
      groups.emplace_back();
    } else {
      groups.back().push_back(a);
    }
  }
  std::vector<DiffSide> sides;
  if (groups.size() == 1) {
    // No "--": one profile per side.
    for (const std::string& path : groups[0]) sides.push_back({"", {DiffRun{path}}});
  } else {
    for (const auto& g : groups) {
      if (g.empty()) throw Error("empty side between '--' separators: give each side a profile", 2);
      DiffSide side;
      for (const std::string& path : g) side.runs.push_back(DiffRun{path});
      sides.push_back(std::move(side));
    }
  }
  if (sides.size() < 2) {
    throw Error("diff needs at least two profiles: kprof diff BASE.kprof NEW.kprof", 2);
  }
  return sides;
}

double parse_score(const std::string& text, const std::string& spec) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno || !(v > 0)) {
    throw Error("bad --score '" + spec + "': give LABEL=VALUE with a positive number", 2);
  }
  return v;
}

// --score LABEL=VALUE (every run of that side) or LABEL=V1,V2,... (one per run).
void apply_scores(std::vector<DiffSide>& sides, const std::vector<std::string>& specs) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("bad --score '" + spec + "': give LABEL=VALUE (a label shown by kprof diff)", 2);
    }
    const std::string label = spec.substr(0, eq);
    std::vector<double> values;
    std::string rest = spec.substr(eq + 1);
    for (size_t start = 0;;) {
      const size_t comma = rest.find(',', start);
      values.push_back(parse_score(rest.substr(start, comma - start), spec));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    DiffSide* side = nullptr;
    std::string known;
    for (DiffSide& s : sides) {
      known += (known.empty() ? "" : ", ") + s.label;
      if (s.label == label) side = &s;
      for (const DiffRun& r : s.runs) {
        if (r.source == label && s.runs.size() == 1) side = &s;
      }
    }
    if (!side)
      throw Error("no profile labelled '" + label + "' for --score (labels: " + known + ")", 2);
    if (values.size() != 1 && values.size() != side->runs.size()) {
      throw Error("--score '" + spec + "' gives " + std::to_string(values.size()) + " values for " +
                      std::to_string(side->runs.size()) + " runs: give one or one per run",
                  2);
    }
    for (size_t r = 0; r < side->runs.size(); ++r) {
      side->runs[r].score = values.size() == 1 ? values[0] : values[r];
    }
  }
}

void write_file(const std::string& path, const DiffResult& result, bool json) {
  Output out = open_output(path);
  json ? write_diff_json(out.stream(), result) : write_diff_csv(out.stream(), result);
  out.close();
}

}  // namespace

// kprof diff --per-call: the sides' costs per system call (report/per_call.h).
int diff_per_call(const DiffInput& in, const std::string& csv_path, const std::string& json_path,
                  bool no_pager, size_t top) {
  if (csv_path == "-" && json_path == "-") {
    throw Error("only one of --csv and --json can be '-' (stdout)", 2);
  }
  const PerCallDiff d = per_call_diff(per_call_sides(in), in.options.alpha);
  for (const auto& [path, json] : {std::pair{csv_path, false}, std::pair{json_path, true}}) {
    if (path.empty()) continue;
    Output out = open_output(path);
    if (json) {
      write_per_call_diff_json(out.stream(), d);
    } else {
      write_per_call_diff_csv(out.stream(), d);
    }
    out.close();
  }
  if (csv_path == "-" || json_path == "-") return 0;
  const Pager pager(no_pager);
  for (const std::string& w : in.warnings) std::cout << "warning: " << w << "\n";
  write_per_call_diff(std::cout, d, top == 0 ? 0 : std::min<size_t>(top, 8));
  std::cout.flush();
  if (!std::cout && !pager.active()) throw Error("cannot write the diff to stdout");
  return 0;
}

// kprof diff --annotate FUNC: the function per instruction on each side
// (report/annotate.h), the runs of a kernel added up.
int diff_annotate(const DiffInput& in, const std::string& function, const SampleFilter& filter,
                  const std::string& event, const std::vector<std::string>& vmlinux,
                  const std::vector<std::string>& labels, size_t top, bool no_pager) {
  if (!vmlinux.empty() && vmlinux.size() != in.sides.size()) {
    throw Error("got " + std::to_string(vmlinux.size()) + " --vmlinux for " +
                    std::to_string(in.sides.size()) + " kernels: give one per kernel, in order",
                2);
  }
  std::vector<Annotation> sides;
  std::vector<std::string> names;
  for (size_t s = 0; s < in.sides.size(); ++s) {
    std::vector<Annotation> runs;
    for (const DiffRun& run : in.sides[s].runs) {
      runs.push_back(
          annotate_profile(run.source, function, filter,
                           {.vmlinux = vmlinux.empty() ? "" : vmlinux[s], .event = event}));
    }
    sides.push_back(merge_annotations(std::move(runs)));
    names.push_back(s < labels.size() ? labels[s]
                    : in.sides[s].runs.size() == 1
                        ? std::filesystem::path(in.sides[s].runs[0].source).filename().string()
                        : "kernel " + std::to_string(s + 1));
  }
  const Pager pager(no_pager);
  write_annotation_diff(std::cout, sides, names, top);
  std::cout.flush();
  if (!std::cout && !pager.active()) throw Error("cannot write the diff to stdout");
  return 0;
}

int cmd_diff(int argc, char** argv) {
  CLI::App app{
      "Compare profiles of the same workload under two or more kernels.\n"
      "  kprof diff BASE NEW [NEW2 ...]            one profile per kernel\n"
      "  kprof diff A1 A2 A3 -- B1 B2 B3 [-- ...]  several runs per kernel\n"
      "  kprof diff --plan PILOT_A PILOT_B         only what such a diff could detect\n"
      "Each profile is a .kprof, a perf.data, or a pasted opreport -l / perf report --stdio "
      "listing.",
      "kprof diff"};
  InputOptions input;
  std::vector<std::string> profiles, labels, scores;
  std::string by = "function", csv_path, json_path, env_csv_path;
  DiffOptions opts;
  app.add_option("profiles", profiles,
                 "profiles ('-': one read from standard input); '--' separates kernels when each "
                 "has several runs")
      ->required();
  add_input_options(app, input);
  SampleFilter filter;
  add_filter_options(app, filter);
  std::string color = "auto";
  add_color_option(app, color);
  bool no_pager = false;
  add_pager_option(app, no_pager);
  app.add_option("--label", labels, "label per kernel, in order (default: its kernel release)")
      ->allow_extra_args(false);
  app.add_option("--score", scores,
                 "LABEL=VALUE work score, higher is better (or LABEL=V1,V2,... per run); "
                 "overrides kprof record --score")
      ->allow_extra_args(false);
  app.add_option("--top", opts.top, "rows in the text tables; 0 = all")
      ->check(whole_number(0))
      ->capture_default_str();
  app.add_flag("--sort-overweight", opts.sort_overweight,
               "with work scores: order the per-work table by overweight (how much more a "
               "function grew than the whole workload did), largest first");
  app.add_option("--percent-limit", opts.percent_limit,
                 "hide rows under this share (in %) in every profile (text only)")
      ->capture_default_str();
  app.add_option("--by", by, "function, image or mode")->capture_default_str();
  app.add_option("--csv", csv_path, "also write every row as CSV (RFC 4180) to FILE ('-': stdout)");
  app.add_option("--json", json_path, "also write every row as JSON to FILE ('-': stdout)");
  app.add_option("--env-csv", env_csv_path,
                 "also write what differs besides the workload (every differing fact and kernel "
                 "option) as CSV to FILE ('-': stdout)");
  std::string folded_path;
  app.add_option("--folded", folded_path,
                 "also write 'stack base_count new_count' lines (FlameGraph's difffolded format, "
                 "for flamegraph.pl) to FILE ('-': stdout); two kernels only");
  std::string html_path;
  app.add_option("--html", html_path,
                 "also write the diff as one self-contained page (delta chart, sortable table, "
                 "differential flame graph) to FILE ('-': stdout)");
  bool plan = false;
  app.add_flag("--plan", plan,
               "print only the detectability floor (a change 1.25x the floor is found at least "
               "80% of the time, half of it at most 20%; and the samples or runs that would "
               "halve it), to size an experiment from pilot profiles; no tables");
  std::vector<double> floor_at(std::begin(kFloorShares), std::end(kFloorShares));
  app.add_option("--floor-at", floor_at,
                 "the shares (in %) of the rows the detectability floor is printed for, e.g. "
                 "--floor-at 12 for a function holding 12% (default 1,5,20)")
      ->delimiter(',')
      ->check(CLI::Range(0.001, 99.999))
      ->allow_extra_args(false);
  DiffView view;
  app.add_flag("--children", view.children,
               "compare inclusive shares (a function's samples with everything it called; "
               "needs kprof record -g)");
  app.add_option("--callers", view.callers,
                 "compare the paths into FUNC: its samples per direct caller (needs -g)");
  bool per_call = false;
  app.add_flag("--per-call", per_call,
               "cost per system call on each side (a row per kernel, a column per call), its "
               "change and the functions under each changed call (needs kprof record -g "
               "--syscalls); --csv/--json write these rows");

  bool off_cpu = false;
  app.add_flag("--off-cpu", off_cpu,
               "compare time off CPU (blocked, waiting on the run queue) per function and stack, "
               "with the same statistics (needs kprof record --off-cpu); with --children, "
               "--callers, --csv, --json, --html, --folded");

  std::string annotate_function;
  std::vector<std::string> vmlinux;
  app.add_option("--annotate", annotate_function,
                 "compare FUNC's samples per instruction (or per source line where the code "
                 "differs) side by side; .kprof recordings only");
  app.add_option("--vmlinux", vmlinux,
                 "with --annotate: each kernel's unstripped image, in order, for kernel "
                 "functions' code")
      ->allow_extra_args(false);

  std::string sections_list;
  app.add_option("--sections", sections_list,
                 "the parts of the text diff to print, comma-separated (default all): env (what "
                 "differs besides the workload), summary, top (side by side), matched (with cost "
                 "moves, per-work and merged names), off-cpu, floor");

  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    args.emplace_back(std::string(argv[i]) == "--" ? kSeparator : argv[i]);
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  if (auto code = parse_args(app, args)) return *code;
  opts.by = parse_diff_by(by);
  opts.color = use_color(color);
  opts.line_width = terminal_columns();
  opts.view = view.children ? "children" : view.callers.empty() ? "" : "callers " + view.callers;
  const Sections sections = parse_sections(sections_list);
  if (per_call && !filter.empty()) {
    throw Error(
        "--per-call divides by every call the recording counted: it takes no " + filter.describe(),
        2);
  }
  check_off_cpu_filter(off_cpu, filter);
  if (opts.percent_limit < 0 || opts.percent_limit > 100) {
    throw Error("--percent-limit must be between 0 and 100");
  }

  DiffInput in;
  in.options = opts;
  in.sides = split_sides(profiles);
  if (!labels.empty() && labels.size() != in.sides.size()) {
    throw Error("got " + std::to_string(labels.size()) + " --label for " +
                std::to_string(in.sides.size()) + " kernels: give one per kernel, in order");
  }
  if (!annotate_function.empty()) {
    return diff_annotate(in, annotate_function, filter, input.event, vmlinux, labels, opts.top,
                         no_pager);
  }
  if (!vmlinux.empty()) throw Error("--vmlinux goes with --annotate", 2);
  // Each run's off-CPU time, per side, for the default diff's short section.
  std::vector<std::vector<std::optional<OffCpu>>> off_cpu_runs(in.sides.size());
  std::vector<DiffSide> off_cpu_sides(in.sides.size());  // --html: the runs' off-CPU time
  for (size_t s = 0; s < in.sides.size(); ++s) {
    DiffSide& side = in.sides[s];
    for (DiffRun& run : side.runs) {
      std::vector<std::string> notes;
      Profile p = load_filtered(run.source, input, filter, &notes);
      for (const std::string& n : notes) in.warnings.push_back(run.source + ": " + n);
      off_cpu_runs[s].push_back(p.off_cpu);
      // The page's off-CPU flame graph: the same run as --off-cpu reads it.
      if (!off_cpu && !html_path.empty() && p.off_cpu) {
        std::vector<std::string> ignored;
        off_cpu_sides[s].runs.push_back(
            diff_run_of(off_cpu_profile(Profile(p), run.source), ignored, view));
      }
      if (off_cpu) p = off_cpu_profile(std::move(p), run.source);
      run = diff_run_of(std::move(p), in.warnings, view);
    }
  }
  for (size_t i = 0; i < labels.size(); ++i) in.sides[i].label = labels[i];
  const std::vector<std::string> resolved = diff_labels(in.sides);
  for (size_t i = 0; i < in.sides.size(); ++i) in.sides[i].label = resolved[i];
  apply_scores(in.sides, scores);
  if (per_call) {
    if (plan || !folded_path.empty() || !html_path.empty() || !env_csv_path.empty()) {
      throw Error(
          "--per-call writes its table, --csv and --json only: drop --plan, --folded, "
          "--html, --env-csv",
          2);
    }
    return diff_per_call(in, csv_path, json_path, no_pager || csv_path == "-" || json_path == "-",
                         opts.top);
  }

  if (!folded_path.empty() && in.sides.size() != 2) {
    throw Error("--folded compares two kernels; got " + std::to_string(in.sides.size()), 2);
  }
  // An export on stdout replaces the text diff there, as report's --csv - does.
  const int on_stdout = (csv_path == "-") + (json_path == "-") + (folded_path == "-") +
                        (html_path == "-") + (env_csv_path == "-");
  if (on_stdout > 1) {
    throw Error("only one of --csv, --json, --env-csv, --folded and --html can be '-' (stdout)", 2);
  }
  const bool exports = !csv_path.empty() || !json_path.empty() || !folded_path.empty() ||
                       !html_path.empty() || !env_csv_path.empty();
  if (plan && exports) {
    throw Error(
        "--plan prints only the detectability floor: drop --csv, --json, --env-csv, --folded, "
        "--html",
        2);
  }
  const DiffResult result = diff_profiles(in);
  // The text on a terminal is paged; an export on stdout is not.
  const Pager pager(no_pager || on_stdout > 0);
  const LineWrapper wrap(on_stdout > 0 ? 0 : opts.line_width);
  if (plan) {
    for (const std::string& w : result.warnings) std::cout << "warning: " << w << "\n";
    if (!result.warnings.empty()) std::cout << "\n";
    write_detectability(std::cout, detectability(in, result, floor_at));
    std::cout.flush();
    if (!std::cout && !pager.active()) throw Error("cannot write the diff to stdout");
    return 0;
  }
  if (on_stdout == 0) {
    write_diff_text(std::cout, result, sections.text);
    std::cout << "\n";
    if (sections.off_cpu && !off_cpu && all_off_cpu_runs(off_cpu_runs)) {
      std::vector<OffCpuSide> sides;
      sides.reserve(off_cpu_runs.size());
      for (size_t s = 0; s < off_cpu_runs.size(); ++s) {
        OffCpuSide side{result.labels[s], {}};
        for (const std::optional<OffCpu>& o : off_cpu_runs[s]) side.runs.push_back(&*o);
        sides.push_back(std::move(side));
      }
      write_off_cpu_comparison(std::cout, sides);
    }
    if (sections.floor) write_detectability(std::cout, detectability(in, result, floor_at));
    std::cout.flush();
    if (!std::cout && !pager.active()) throw Error("cannot write the diff to stdout");
  }
  if (!csv_path.empty()) write_file(csv_path, result, false);
  if (!json_path.empty()) write_file(json_path, result, true);
  if (!env_csv_path.empty()) {
    Output out = open_output(env_csv_path);
    write_environment_csv(out.stream(), result.environment, result.labels);
    out.close();
  }
  if (!html_path.empty()) {
    Output out = open_output(html_path);
    // Every run recorded off-CPU time: its differential flame graph too,
    // over the runs read again as off-CPU profiles (as --off-cpu reads them).
    std::optional<FlameDiff> off_flame;
    if (!off_cpu && all_off_cpu_runs(off_cpu_runs)) {
      DiffInput off_in;
      off_in.options = in.options;
      for (size_t i = 0; i < in.sides.size(); ++i) off_cpu_sides[i].label = in.sides[i].label;
      off_in.sides = std::move(off_cpu_sides);
      off_flame = diff_flame(off_in);
    }
    write_diff_html(out.stream(), in, result, diff_flame(in), off_flame ? &*off_flame : nullptr);
    out.close();
  }
  if (!folded_path.empty()) {
    std::vector<Stacks> side_stacks[2];
    for (size_t s = 0; s < 2; ++s) {
      for (const DiffRun& run : in.sides[s].runs) {
        side_stacks[s].push_back(stacks_or_flat(run.histogram, run.stacks));
      }
    }
    Output out = open_output(folded_path);
    write_diff_folded(out.stream(), side_stacks[0], side_stacks[1]);
    out.close();
  }
  return 0;
}

}  // namespace kprof::cli
