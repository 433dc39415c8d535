// The Profile every view reads, loaded from a .kprof file in one walk.
//
// Core does not know perf's record layout, so loading a file that may hold
// PerfRecords chunks (a recording's, until it ends: perfabi/spool.h) takes
// their decoder as an argument that cannot be left out. What every caller
// outside core uses is perfabi/load.h, which passes perf's decoder; core's
// own read_profile() is the walk behind it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/environment.h"
#include "core/model.h"
#include "core/off_cpu.h"
#include "core/profile_reader.h"
#include "core/records_chunk.h"
#include "core/sample_selection.h"
#include "core/stacks.h"
#include "core/syscall_counts.h"
#include "core/thread_counts.h"
#include "core/unwind_stats.h"

namespace kprof {

struct AddressCounts;  // core/aggregate.h

// Decodes the payload of a PerfRecords chunk into a sink (perfabi::SpoolDecoder).
class PerfRecordsDecoder {
 public:
  virtual ~PerfRecordsDecoder() = default;
  virtual void decode(std::span<const uint8_t> payload, RecordSink& sink) const = 0;
};

struct LoadOptions {
  // Every Records and PerfRecords chunk is decoded into it, in order (a
  // chunk that fails to decode ends the walk as damage, after the records
  // before the damage were delivered).
  RecordSink* records = nullptr;
  // Fill `counted` even when the histogram is usable, with every user
  // address (to name them: kprof symbolize). Otherwise `counted` (cut short)
  // holds user samples by mapping, as a report names them: [unknown] per image.
  bool count_records = false;
  // false: the run information, kallsyms and modules only; the tables
  // (Histogram, Stacks, Summary's scores aside, Environment, SyscallCounts,
  // OffCpu, Unwind, ThreadCounts) are left undecoded and a file cut short is not counted:
  // for a reader of the records alone (kprof script).
  bool tables = true;
  // false: the kernel's symbols (Kallsyms, Modules) are not read either, for
  // a reader of records that names no address (kprof script without ip,
  // sym or dso fields).
  bool kernel_symbols = true;
  // Given with `records`: a reader of these times alone. The Records chunks
  // the file's RecordsIndex shows to hold samples outside them only (and
  // nothing else) are passed over unread (core/records_index.h), and what
  // they held is summed in Profile::records_passed_over. Not for a file cut
  // short, whose records are counted for its tables.
  std::optional<TimeRange> records_in;
};

struct Profile {
  std::string path;
  RunInfo run;
  std::optional<Summary> summary;
  std::string kallsyms;  // snapshot text
  std::string modules;
  std::optional<Histogram> histogram;      // absent when cut short, and for -g (see stacks)
  std::optional<Stacks> stacks;            // -g profiles; absent when cut short or without -g
  std::optional<Environment> environment;  // absent: not recorded (older files, imports)
  std::optional<SyscallCounts> syscalls;   // absent: not counted (record without --syscalls)
  std::optional<OffCpu> off_cpu;           // absent: not recorded (record without --off-cpu)
  std::optional<UnwindStats> unwind;       // absent: not unwound (no --call-graph dwarf)
  // The flat table's samples per thread and CPU (core/thread_counts.h);
  // absent in older files and imports, and when a flat table came after it.
  std::optional<ThreadCounts> threads;
  // Which of the run's events the tables count: 0 the first (what the file's
  // tables hold), k the run's more_events[k - 1] as the file has them, chosen
  // by --event and counted again from the records (cli/inputs.h). run.event
  // is then that event, swapped with its place in run.more_events.
  uint32_t event_shown = 0;
  ReadStatus status;
  // What the Records chunks passed over unread held (LoadOptions::records_in).
  RecordsSpan records_passed_over;
  // The records counted again by address (core/aggregate.h): memory grows
  // with distinct addresses and stacks, not samples. Set when the histogram
  // (or a -g file's stacks) is missing or unusable, or when asked for.
  std::shared_ptr<const AddressCounts> counted;
  // Whether the Histogram / Stacks the file holds are what a report shows: a
  // -g profile cut short keeps a Histogram of an older kprof only.
  bool histogram_usable() const;
};

// Everything report/diff need, in one walk of the file (and its header
// index, chunk_types()). Records chunks are not decoded when the file holds
// a usable Histogram or Stacks; otherwise (cut short) they are counted again
// into `counted`. Throws kprof::Error for header problems and when no Meta
// chunk could be read. When a file holds several Meta, Summary or Histogram
// chunks (appended later), the last one wins.
Profile read_profile(ProfileReader& reader, const PerfRecordsDecoder& perf_records,
                     const LoadOptions& options = {});

// The run information alone (the last Meta chunk), from a file whose
// records a caller then reads in a way that depends on it. Throws
// kprof::Error as read_profile does when there is none.
RunInfo read_run_info(const std::string& path);

}  // namespace kprof
