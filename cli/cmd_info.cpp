// `kprof info FILE`: everything a profile knows about its run.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "cli/terminal.h"
#include "core/error.h"
#include "core/profile.h"
#include "report/info.h"
#include "report/summary.h"

namespace kprof::cli {

int cmd_info(int argc, char** argv) {
  CLI::App app{"Everything a profile knows: run, machine, event, summary, chunks", "kprof info"};
  std::string file = "kprof.data";
  InputOptions input;
  app.add_option("FILE", file,
                 "profile to read: .kprof, perf.data, or a listing ('-': standard input)")
      ->capture_default_str();
  add_input_options(app, input);
  bool no_pager = false;
  add_pager_option(app, no_pager);
  if (auto code = parse_args(app, argc, argv)) return *code;
  Profile profile = load_input(file, input);
  ProfileHistogram hist = histogram_of(profile);
  const size_t columns = terminal_columns();  // before the pager takes stdout
  const Pager pager(no_pager);
  const LineWrapper wrap(columns);
  write_info(std::cout, profile, hist, chunk_counts(profile.status));
  std::cout.flush();
  if (!std::cout && !pager.active()) throw Error("cannot write to stdout");
  return 0;
}

}  // namespace kprof::cli
