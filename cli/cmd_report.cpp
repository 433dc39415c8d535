// `kprof report [FILE]`: the top-N table of a profile, and optionally every
// row as CSV. Reads the profile only.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/parse.h"
#include "core/error.h"
#include "core/format.h"
#include "report/report.h"
#include "report/summary.h"

namespace kprof::cli {

namespace {

void write_csv_file(const std::string& path, const Histogram& h, SortKey key) {
  if (path == "-") {
    write_report_csv(std::cout, h, key);
    return;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(errno_message("cannot write CSV to '" + path + "'", errno));
  write_report_csv(f, h, key);
  f.flush();
  if (!f) throw Error(errno_message("cannot write CSV to '" + path + "'", errno));
}

}  // namespace

int cmd_report(int argc, char** argv) {
  CLI::App app{"Top-N table of where the samples went (oprofile's opreport, perf report)",
               "kprof report"};
  std::string file = "kprof.data";
  std::string sort = "function";
  std::string csv;
  bool no_header = false;
  ReportOptions opts;
  app.add_option("FILE", file, "profile to read")->capture_default_str();
  app.add_option("--top,-n", opts.top, "rows to show in the table (0: all)")->capture_default_str();
  app.add_option("--sort,-s", sort, "one row per: function, image or mode")
      ->check(CLI::IsMember({"function", "image", "mode"}))
      ->capture_default_str();
  app.add_option("--percent-limit", opts.percent_limit,
                 "hide rows under this percent of all samples")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--csv", csv,
                 "also write every row as CSV to this file ('-': CSV on stdout, no table)");
  app.add_flag("--no-header", no_header, "leave out the run header above the table");
  if (auto code = parse_args(app, argc, argv)) return *code;
  opts.sort = parse_sort_key(sort);
  opts.header = !no_header;

  Profile profile = load_profile(file);
  ProfileHistogram hist = histogram_of(profile);
  if (!csv.empty()) write_csv_file(csv, hist.histogram, opts.sort);
  if (csv != "-") {
    write_report(std::cout, profile, hist, opts);
    std::cout.flush();
    if (!std::cout) throw Error("cannot write the report to stdout");
  }
  return 0;
}

}  // namespace kprof::cli
