// `kprof annotate FUNC [FILE]`: one function's samples per instruction
// (report/annotate.h), its code and source lines read as cli/annotate_input.h
// says, in address order or hottest first.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli/annotate_input.h"
#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "cli/terminal.h"
#include "core/error.h"

namespace kprof::cli {

int cmd_annotate(int argc, char** argv) {
  CLI::App app{
      "One function's samples per instruction, as `perf annotate` shows them: each\n"
      "instruction's share of the function's samples, its address, the instruction\n"
      "(x86-64, AT&T syntax) and, where debug information is found, its source line.\n"
      "User code is read from the binaries on this machine (a separate debug file by\n"
      "build-id or .gnu_debuglink for the lines); kernel code from /proc/kcore (root,\n"
      "the boot the profile was recorded on) or --vmlinux.",
      "kprof annotate"};
  std::string function, file = "kprof.data", order = "address";
  AnnotateSource source;
  SampleFilter filter;
  app.add_option("FUNC", function, "the function, as kprof report names it")->required();
  app.add_option("FILE", file,
                 "a .kprof recording (its records are read; a perf.data: kprof import it first)")
      ->capture_default_str();
  app.add_option("--order", order,
                 "address: every instruction in address order; hot: the sampled ones, most "
                 "samples first")
      ->check(CLI::IsMember({"address", "hot"}))
      ->capture_default_str();
  app.add_option("--vmlinux", source.vmlinux,
                 "the recorded kernel's unstripped image (e.g. from linux-image-*-dbg), for "
                 "kernel functions' code and source lines");
  add_event_option(app, source.event);
  add_filter_options(app, filter);
  bool no_pager = false;
  add_pager_option(app, no_pager);
  if (auto code = parse_args(app, argc, argv)) return *code;
  if (!filter.symbols.empty()) {
    throw Error("kprof annotate shows one function: give it as FUNC, not --symbol", 2);
  }
  const Annotation a = annotate_profile(file, function, filter, source);
  const Pager pager(no_pager);
  write_annotation(std::cout, a, order == "hot" ? AnnotateOrder::Hot : AnnotateOrder::Address);
  std::cout.flush();
  if (!std::cout && !pager.active()) throw Error("cannot write the listing to stdout");
  return 0;
}

}  // namespace kprof::cli
