// perf's everyday filters over a loaded profile (issue 29): --comm, --pid,
// --dso and --symbol restrict what report, diff and export count, as
// `perf report --comm/--pid/--dso/--symbols` do. Shares are then of what
// remains, and the profile's notices say what was kept and what share of
// the samples that is.
//
// What each profile can be filtered by:
// - a -g profile (Stacks): every key. --comm and --pid keep the stacks of
//   the processes named; --dso and --symbol keep the stacks whose leaf (the
//   function a sample hit) lies in the image / is the function. Its off-CPU
//   stacks are filtered alike.
// - a flat profile (Histogram rows carry image and function, not the
//   process): --dso and --symbol by its rows; --comm (the thread's name, as
//   perf's) and --pid through its per-thread table (core/thread_counts.h),
//   which leaves the rows without time slices or peaks; a profile without
//   one (older files, listings) refuses them (exit 2).
// - a profile cut short (its records counted again when read): refused
//   (exit 2): `kprof symbolize` it first.
// Values: --comm a process name (comm), --pid a number, --dso an image's
// path, its file name ("libc.so.6") or "[kernel.kallsyms]" / "[kernel]",
// --symbol a function as --callers takes it (full, canonical, short name).
// Several values of one key: any of them; several keys: all of them.
// Nothing matching is an error (exit 1) naming what exists.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/profile.h"
#include "core/sample_selection.h"

namespace kprof {

struct SampleFilter {
  std::vector<std::string> comms;
  std::vector<uint32_t> pids;
  std::vector<std::string> dsos;
  std::vector<std::string> symbols;
  // --tid, --cpu, --time: keys the tables do not keep, applied before the
  // others by counting the records again (core/sample_selection.h; the
  // caller does it: cli/inputs.h load_filtered). apply_filter ignores them.
  SampleSelection records;
  bool table_keys_empty() const {
    return comms.empty() && pids.empty() && dsos.empty() && symbols.empty();
  }
  bool empty() const { return table_keys_empty() && records.empty(); }
  // "--comm postgres --dso libc.so.6 --tid 12", as typed.
  std::string describe() const;
};

// Filters `p` in place by the table keys (see above); adds the notice
// "filtered (…): N of M samples (X%) kept; shares are of what remains" to
// p.run.notices. Throws
// kprof::Error: exit 2 when `p` cannot be filtered by a key asked for, exit
// 1 when no sample matches.
void apply_filter(Profile& p, const SampleFilter& f);

// Whether image `name` ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel]")
// is the one `query` names.
bool names_image(const std::string& name, const std::string& query);

// For the views that filter sample by sample (kprof script, --sort tid and
// cpu): whether a sample of process `pid`, its thread named `comm`, passes
// --pid and --comm; and whether its leaf, `function` in `image`, passes
// --dso and --symbol.
bool keeps_process(const SampleFilter& f, uint32_t pid, std::string_view comm);
bool keeps_leaf(const SampleFilter& f, std::string_view image, std::string_view function);

}  // namespace kprof
