// One entry point per subcommand. Each parses its own options (CLI11), has
// --help, and returns the process exit code; failures throw kprof::Error,
// which main turns into one line on stderr.
#pragma once

namespace kprof::cli {

int cmd_record(int argc, char** argv);  // argv[0] == "record"
int cmd_report(int argc, char** argv);
int cmd_info(int argc, char** argv);
int cmd_events(int argc, char** argv);
int cmd_diff(int argc, char** argv);
int cmd_symbolize(int argc, char** argv);  // names a profile's samples again (symbolizer/finish.h)
int cmd_export(int argc, char** argv);     // folded stacks, pprof (export/export.h)
int cmd_import(int argc, char** argv);     // perf.data -> .kprof (importer/import.h)
int cmd_script(int argc, char** argv);    // each sample, as perf script prints it (export/script.h)
int cmd_annotate(int argc, char** argv);  // one function per instruction (report/annotate.h)

}  // namespace kprof::cli
