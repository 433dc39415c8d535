// What every reading command (report, diff, export, info, import) shares:
// the options that say how to read a perf.data (--event, --kallsyms) and the
// one call that loads a .kprof, a perf.data or a listing (importer/import.h),
// with this machine's kernel as the fallback for a perf.data's kernel names.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/profile.h"
#include "importer/import.h"
#include "report/filter.h"
#include "report/record_keys.h"
#include "symbolizer/elf_resolver.h"

namespace kprof::cli {

struct InputOptions {
  std::string event;        // --event NAME
  std::string kallsyms;     // --kallsyms FILE
  bool per_thread = false;  // a perf.data's per-thread table counted too (ImportOptions)
};

void add_input_options(CLI::App& app, InputOptions& options);
// The importer's options: the running kernel (uname, /sys/kernel/notes,
// /proc/kallsyms, /proc/modules) and perf's build-id cache
// ($PERF_BUILDID_DIR, else $HOME/.debug).
importer::ImportOptions import_options(const InputOptions& options);
// A .kprof recording of several events (kprof record -e A,B) with --event
// naming one but the first: its tables are counted again from that event's
// records (pick_event).
Profile load_input(const std::string& path, const InputOptions& options);

// --event `wanted` of a .kprof recording of several events: run.event
// becomes that event (swapped with its place among run.more_events) and
// p.event_shown its number, which the readers of records below count (a
// perf.data's --event is the importer's). false when there is nothing to
// change (no --event, the first event, not a kprof recording); throws
// kprof::Error (exit 1) naming the events there are when it has no such one.
bool pick_event(Profile& p, const std::string& path, const std::string& wanted);
// --event alone, for the readers of a .kprof's records (script, annotate).
void add_event_option(CLI::App& app, std::string& event);

// --comm, --pid, --dso, --symbol (report/filter.h) and --tid, --cpu, --time
// (core/sample_selection.h), for the commands that count samples: report,
// diff, export.
void add_filter_options(CLI::App& app, SampleFilter& filter);

// load_input, then `filter`: first --tid, --cpu and --time, by counting the
// profile's records again through a SelectingSink and naming what it keeps
// (kernel functions from the profile's kallsyms, user functions from the
// binaries on this machine, as kprof symbolize does; a .kprof file only, not
// cut short), then the table keys (apply_filter). Each "filtered (…)"
// notice is added to p.run.notices and, when given, to *notes. Throws
// kprof::Error: exit 2 for a filter this input cannot take, 1 when nothing
// matches (naming what exists).
// The records of `path` (a .kprof file, loaded as `p`) into `sink`, only the
// CPU samples `filter.records` keeps (every sample when it is empty), with
// `unwind_stacks` the stack copies still in it unwound as kprof record does
// (--call-graph dwarf --keep-stacks, or cut short). For a second look at the
// records a filtered profile was counted from (report --timeline) and for
// kprof script. Throws kprof::Error (exit 2) naming `what` needs them when the
// input keeps no records to read again (standard input, a perf.data, a
// listing).
void read_records(const std::string& path, const Profile& p, const SampleFilter& filter,
                  RecordSink& sink, const std::string& what, bool unwind_stacks = false);

// How the readers of records name user functions from this machine's
// binaries: perf's build-id cache first, as the importer does.
ElfResolverOptions resolver_options(const InputOptions& options);

// --sort tid|cpu[,function] (report/record_keys.h): the samples of `path`
// (a .kprof file, loaded as `p`) per thread or CPU, counted from its records
// (only those `filter.records` keeps) and named as read_records's callers
// name them: kernel functions from the profile's kallsyms, user functions
// from the binaries on this machine (warnings to stderr). Every filter
// applies as the samples are counted (`p` is loaded unfiltered: load_input);
// a notice in p.run.notices says what they kept. Throws kprof::Error as
// read_records does, and exit 1 when nothing is left.
Histogram record_key_table(const std::string& path, Profile& p, const SampleFilter& filter,
                           const InputOptions& options, RecordKey key, bool functions);

// --off-cpu views with --tid, --cpu or --time: refused (exit 2), the recorded
// time off CPU is not sliced by them.
void check_off_cpu_filter(bool off_cpu, const SampleFilter& filter);
// `slices_needed` false (a report's table): --tid and --cpu of a flat
// profile that stores its ThreadCounts are counted from them, without
// reading the records, and its rows then keep no time slices or peaks.
Profile load_filtered(const std::string& path, const InputOptions& options,
                      const SampleFilter& filter, std::vector<std::string>* notes = nullptr,
                      bool slices_needed = true);

}  // namespace kprof::cli
