// What every reading command (report, diff, export, info, import) shares:
// the options that say how to read a perf.data (--event, --kallsyms) and the
// one call that loads a .kprof, a perf.data or a listing (importer/import.h),
// with this machine's kernel as the fallback for a perf.data's kernel names.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/profile.h"
#include "importer/import.h"
#include "report/filter.h"

namespace kprof::cli {

struct InputOptions {
  std::string event;     // --event NAME
  std::string kallsyms;  // --kallsyms FILE
};

void add_input_options(CLI::App& app, InputOptions& options);
// The importer's options: the running kernel (uname, /sys/kernel/notes,
// /proc/kallsyms, /proc/modules) and perf's build-id cache
// ($PERF_BUILDID_DIR, else $HOME/.debug).
importer::ImportOptions import_options(const InputOptions& options);
Profile load_input(const std::string& path, const InputOptions& options);

// --comm, --pid, --dso, --symbol (report/filter.h), for the commands that
// count samples: report, diff, export.
void add_filter_options(CLI::App& app, SampleFilter& filter);

}  // namespace kprof::cli
