// `kprof script [FILE]`: a recording's CPU samples one by one, as `perf
// script` prints them (export/script.h). Two reads of the records: the first
// gathers every distinct address to name each once (as kprof symbolize
// does: kernel functions from the profile's kallsyms, user functions from
// the binaries on this machine), the second prints each sample.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "cli/terminal.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "core/profile.h"
#include "export/script.h"
#include "importer/import.h"
#include "perfabi/load.h"
#include "symbolizer/elf_resolver.h"

namespace kprof::cli {

int cmd_script(int argc, char** argv) {
  CLI::App app{
      "A recording's CPU samples one by one, as `perf script` prints them: time, CPU,\n"
      "thread, process, period, event, address, function and image, and with call chains\n"
      "(-g, --call-graph dwarf) the stack, a frame a line, leaf first; what FlameGraph's\n"
      "stackcollapse-perf.pl and scripts written for perf's output read. Off-CPU samples\n"
      "(--off-cpu) are not printed.",
      "kprof script"};
  std::string file = "kprof.data";
  std::string fields;
  InputOptions input;  // a .kprof: of perf.data's options only --event applies
  SampleFilter filter;
  app.add_option("FILE", file,
                 "a .kprof recording (its records are read; a perf.data: kprof import it "
                 "first)")
      ->capture_default_str();
  app.add_option("--fields,-F", fields,
                 "the fields to print, as perf script -F: a list of comm, pid, tid, cpu, time, "
                 "period, event, ip, sym, dso (\"comm,tid,sym\"), or changes to the default "
                 "(\"+pid,-period\"); default comm,tid,cpu,time,period,event,ip,sym,dso");
  add_event_option(app, input.event);
  add_filter_options(app, filter);
  bool no_pager = false;
  add_pager_option(app, no_pager);
  if (auto code = parse_args(app, argc, argv)) return *code;
  const ScriptFields chosen = fields.empty() ? ScriptFields{} : parse_script_fields(fields);

  // The run information and, where a field or filter names addresses, the
  // kernel's symbols; the tables are not needed.
  const bool named =
      chosen.ip || chosen.sym || chosen.dso || !filter.dsos.empty() || !filter.symbols.empty();
  Profile p = file != "-" && importer::file_format(file) == importer::InputFormat::Kprof
                  ? perfabi::load_profile(file, {.tables = false, .kernel_symbols = named})
                  : load_input(file, input);  // refused with its reason below
  pick_event(p, file, input.event);
  const bool chains = p.run.event.callchains;
  // First read: every distinct address, to name each once (not when no
  // field or filter needs a name).
  AddressAggregator agg(chains);
  agg.leave_out(p.run.recorder_pid);
  agg.frames_only();
  if (named) read_records(file, p, filter, agg, "printing samples", true);
  const KernelSymbols kernel = KernelSymbols::parse(p.kallsyms, p.modules);
  ElfResolver resolver(resolver_options(input));
  const AddressNames names(agg.counts(), kernel, resolver);
  for (const std::string& w : resolver.warnings()) {
    std::fprintf(stderr, "kprof script: warning: %s\n", w.c_str());
  }
  // Second read: each sample, named.
  const Pager pager(no_pager);
  ScriptWriter writer(stdout, names,
                      {.fields = chosen,
                       .event = p.run.event.name,
                       .callchains = chains,
                       .leave_out_pid = p.run.recorder_pid,
                       .filter = &filter});
  try {
    read_records(file, p, filter, writer, "printing samples", true);
    writer.finish();
  } catch (const Error&) {
    if (pager.active()) return 0;  // the pager quit before the end: not a failure
    throw;
  }
  if (writer.seen() == 0) {
    throw Error(file + ": no CPU sample " +
                    (filter.records.empty() ? std::string("in its records")
                                            : "matches " + filter.records.describe()),
                1);
  }
  if (writer.printed() == 0) {
    throw Error(file + ": no sample matches " + filter.describe() + " (of " +
                    std::to_string(writer.seen()) + " CPU samples)",
                1);
  }
  return 0;
}

}  // namespace kprof::cli
