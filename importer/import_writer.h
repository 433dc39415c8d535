// What `kprof import` writes: import_perf_data (import.h) given a
// ProfileWriter makes the recording a self-contained .kprof, in this order:
//   Meta      the run facts from perf.data's header, before any record;
//   Records   every record as read (ImportSink's second sink), in chunks of
//             kRecordsChunkBytes (core/file_layout.h), as kprof record cuts its own;
//   RecordsIndex  each Records chunk's time span (core/records_index.h);
//   Meta      the run facts again, with what reading found (a reader takes
//             the last Meta chunk): notices, start time;
//   Kallsyms, Modules   the kernel symbols that named the samples (moved by
//             the KASLR offset when they were of another boot);
//   Summary, then the named Histogram or (-g) Stacks, End
//             (write_profile_symbols, symbolizer/profile_symbols.h).
#pragma once

#include "core/profile.h"
#include "core/profile_writer.h"
#include "core/records_chunk.h"
#include "core/records_index.h"

namespace kprof::importer {

class ImportWriter final : public RecordSink {
 public:
  explicit ImportWriter(ProfileWriter& out) : out_(out) {}

  // The first Meta chunk.
  void begin(const RunInfo& run);
  // The records, encoded into Records chunks as they come.
  void on_sample(const Sample& s) override;
  void on_mmap(const Mmap& m) override { encoder_.add(m); }
  void on_comm(const Comm& c) override { encoder_.add(c); }
  void on_fork(const Fork& f) override { encoder_.add_fork(f); }
  void on_exit(const Fork& f) override { encoder_.add_exit(f); }
  void on_lost(const Lost& l) override { encoder_.add(l); }
  // The last Records chunk, then everything after the records, from the
  // Profile import_perf_data made (its summary must be set).
  void finish(const Profile& p);

 private:
  void flush(bool force);
  ProfileWriter& out_;
  RecordEncoder encoder_;
  RecordsIndex index_;
};

}  // namespace kprof::importer
