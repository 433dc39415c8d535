// The one loader every view uses: a .kprof profile, a perf.data recording
// or a pasted listing, recognised by its first bytes, read into a Profile
// (core/format.h) that report, diff, export and info take as they take a
// .kprof.
//
// perf.data (perf_data.h): the samples of one event (the first, or
// ImportOptions::event) are aggregated and named as kprof record names its
// own: user addresses through the ELF symbolizer, each file checked against
// the recording's build-id (a mismatch warns, naming the file, and leaves its
// functions "[unknown]"); kernel addresses from the first of
//   1. --kallsyms FILE (ImportOptions::kallsyms_file);
//   2. this machine's /proc/kallsyms (and /proc/modules), when the file's os
//      release and kernel build-id match the running kernel;
//   3. perf's build-id cache: BUILDID_DIR/[kernel.kallsyms]/<build-id>/kallsyms
//      (what perf record keeps and perf archive packs);
//   4. none: kernel samples stay "[unknown]" in "[kernel]", and a notice says
//      how to supply the symbols.
// A kallsyms of another boot is moved by the KASLR offset (the recording's
// "[kernel.kallsyms]_text" mapping against the file's _text). The Profile
// says what was read: event, period or frequency, perf's lost and throttle
// counts, the machine's features; a file perf did not finish (data size 0)
// is read to its damage and its status says so.
//
// Listings (text_table.h): rows as listed, no run facts;
// RunInfo::source_format names the listing and sample_counts says whether
// its rows are counts or shares.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/format.h"
#include "importer/text_table.h"

namespace kprof::importer {

enum class InputFormat { Kprof, PerfData, Listing, Unknown };
// From a file's first bytes (up to 4 KiB is enough).
InputFormat sniff_format(std::span<const uint8_t> head);
const char* input_format_name(InputFormat f);  // "kprof profile", "perf.data", "listing"

// The kernel this machine runs, for naming the kernel samples of a recording
// made here. The readers are called only when the recording matches.
struct RunningKernel {
  std::string release;   // uname -r
  std::string build_id;  // hex, from /sys/kernel/notes; "" when unknown
  // kallsyms: this boot's snapshot, maybe kept from earlier (cheap);
  // kallsyms_now: /proc/kallsyms read now, for kernel samples in text that
  // comes and goes within a boot (BPF programs, trampolines), which an
  // earlier snapshot may not know (KernelSymbols::in_boot_static_text).
  std::function<std::string()> kallsyms, kallsyms_now, modules;
};

struct ImportOptions {
  std::string event;          // --event NAME; "" = the file's first event
  std::string kallsyms_file;  // --kallsyms FILE; "" = look for one (see above)
  RunningKernel running;      // release "" = never use this machine's kallsyms
  std::string buildid_dir;    // perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug); "" = none
};

// perf.data bytes -> a complete Profile (histogram, or stacks for -g). With
// `writer`, also writes it as a self-contained .kprof (run facts, records,
// the kallsyms used, summary, symbols, end) for `kprof import`. Throws
// kprof::Error for a file whose records cannot be read at all, an unknown
// --event, or an unreadable --kallsyms file.
Profile import_perf_data(std::span<const uint8_t> bytes, const std::string& name,
                         const ImportOptions& options, ProfileWriter* writer = nullptr);

// A parsed listing as a Profile named `name`.
Profile listing_profile(TableListing listing, const std::string& name);

// Reads `path` and loads it as what it is. Throws kprof::Error naming the
// file for a missing or unreadable file, and for one of no known format.
Profile load_any(const std::string& path, const ImportOptions& options);
// The format of the file at `path` (Unknown when it cannot be read).
InputFormat file_format(const std::string& path);

}  // namespace kprof::importer
