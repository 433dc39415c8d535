// The one loader every view uses: a .kprof profile, a perf.data recording
// or a pasted listing, recognised by its first bytes, read into a Profile
// (core/profile.h) that report, diff, export and info take as they take a
// .kprof. The contract of the importer; where each part lives:
//   sniff.cpp              the format, from an input's first bytes
//   load_any.cpp           an input opened once, handed to the reader its format picks
//   import_perf_data.cpp   perf.data -> Profile, step by step, from:
//     perf_run_info.h        the event to show and the run facts (the header)
//     import_sink.h          the records' fan-out to the aggregator (and the writer)
//     perf_kernel_symbols.h  the kernel symbols: found, and moved by KASLR
//     import_writer.h        what kprof import writes into its .kprof
//   listing_profile.cpp    a parsed listing -> Profile (text_table.h parses it)
//   boot_kallsyms.cpp      a cut-short kprof profile named from this boot's cache
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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/profile.h"
#include "core/profile_writer.h"
#include "importer/text_table.h"

namespace kprof::importer {

enum class InputFormat { Kprof, PerfData, Listing, Unknown };
// How many first bytes tell an input's format: what load_any reads before
// it picks a reader, and all it reads of an input of no known format.
inline constexpr size_t kSniffBytes = 4096;
// From a file's first bytes (kSniffBytes of them, or all it has).
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
  // This boot's id (/proc/sys/kernel/random/boot_id) and the kallsyms
  // snapshot kprof record keeps for it (collector/kallsyms_cache.h): text ""
  // when there is none, path the cache file's ("" when there is no cache).
  struct BootKallsyms {
    std::string text, path;
  };
  std::string boot_id;
  std::function<BootKallsyms()> boot_kallsyms;
};

struct ImportOptions {
  std::string event;          // --event NAME; "" = the file's first event
  std::string kallsyms_file;  // --kallsyms FILE; "" = look for one (see above)
  RunningKernel running;      // release "" = never use this machine's kallsyms
  std::string buildid_dir;    // perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug); "" = none
  // Also count the per-thread table (Profile::threads) when not writing one
  // (kprof import always does): for a report by thread, CPU or process.
  bool per_thread = false;
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

// A kprof profile whose recording left its kallsyms snapshot in this boot's
// cache (RunInfo::kallsyms_digest) and was cut short before it wrote the
// lines its samples need holds no kallsyms. It gets this boot's cached
// snapshot when it was recorded on this boot (RunInfo::boot_id) and the
// snapshot is the one it started with (same digest), with a notice saying
// so (core/kallsyms_subset.h: kBootCacheKallsymsNotice); otherwise a notice
// says why its kernel functions stay unnamed. Any other profile is returned
// as it is.
Profile with_boot_kallsyms(Profile p, const RunningKernel& running);
// The decision itself, for a recording's run facts: text (this boot's
// cached snapshot) when it is the one the recording started with, else
// why_not ("it was recorded on another boot (boot id X)", ...). path: the
// cache file, when this boot has one.
struct BootKallsymsMatch {
  std::string text, path, why_not;
};
BootKallsymsMatch match_boot_kallsyms(const RunInfo& run, const RunningKernel& running);

// A listing is text, and no listing is larger than this: load_any refuses
// one that is, as soon as it has read that much (or, for a file, from its
// size), and one holding a NUL byte as soon as it reads it.
inline constexpr size_t kMaxListingBytes = 64 << 20;

// Loads `path` ("-": standard input, refused when it is a terminal) as what
// its first kSniffBytes say it is, opening it once: a kprof profile chunk by
// chunk, a perf.data file mapped (a stream read whole), a listing read whole
// up to kMaxListingBytes. Throws kprof::Error, one line naming the file, for
// a missing or unreadable file, an empty one, one of no known format (having
// read only its first bytes: "... is not a kprof profile, a perf.data file,
// or an opreport / perf report listing"), and a listing too large or holding
// a NUL byte.
Profile load_any(const std::string& path, const ImportOptions& options);
// The format of the file at `path` (Unknown when it cannot be read).
InputFormat file_format(const std::string& path);

}  // namespace kprof::importer
