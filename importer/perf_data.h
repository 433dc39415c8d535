// perf.data files, read natively: the file header (or a pipe-mode stream's
// header records), the attribute section, the feature sections kprof uses,
// and the data section's records in perf's time order. Pure parsing over
// bytes the caller owns (kprof_perfabi + kprof_core only): naming the
// samples is import.h's job.
//
// Layout (perf's tools/perf/Documentation/perf.data-file-format.txt):
//   header:   "PERFILE2", header size, attr entry size, sections
//             {attrs, data, event_types} as (offset, size), 256 feature bits
//   attrs:    one perf_event_attr + (offset, size) of its u64 ids per entry
//   data:     perf records; perf's own user records (type >= 64) among them
//             (FINISHED_ROUND, HEADER_* in pipe mode, ...)
//   features: after the data section, one (offset, size) per set feature
//             bit, in bit order
// A file perf never finished (killed, disk full) has data size 0 and no
// features: its data runs to the end of the file and is read to the damage.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "perfabi/perf_record.h"

namespace kprof::importer {

// One event (attr) of a recording.
struct PerfEvent {
  std::string name;  // from the EVENT_DESC feature ("cpu-clock", "cycles:u"), else made from
                     // type and config ("cycles", "cpu-clock", "raw 0x1c2", "type 9 config 3")
  uint32_t type = 0;
  uint64_t config = 0;
  bool freq = false;         // attr.freq: `sample` is a frequency in Hz, else a period
  uint64_t sample = 0;       // attr.sample_period / sample_freq
  uint64_t sample_type = 0;  // PERF_SAMPLE_*
  uint64_t read_format = 0;  // PERF_FORMAT_*
  bool sample_id_all = false;
  bool exclude_kernel = false, exclude_user = false;
  uint64_t regs_user = 0;     // attr.sample_regs_user (--call-graph dwarf)
  uint32_t stack_user = 0;    // attr.sample_stack_user (--call-graph dwarf)
  std::vector<uint64_t> ids;  // the sample ids of this event's fds
  perfabi::SampleLayout layout() const {
    perfabi::SampleLayout l{sample_type, sample_id_all, read_format};
    l.regs_user = regs_user;
    return l;
  }
};

// One entry of the BUILD_ID feature (or a pipe-mode HEADER_BUILD_ID record).
struct PerfBuildId {
  std::string filename;  // "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]", "[ext4]"
  std::string build_id;  // hex
  bool kernel = false;   // cpumode kernel (the kernel and its modules)
};

struct PerfDataHeader {
  bool pipe = false;  // a `perf record -o -` stream
  std::vector<PerfEvent> events;
  // Feature sections; empty or 0 when the file has none.
  std::string hostname, os_release, perf_version, arch, cpu_desc, cpuid;
  uint32_t nr_cpus_online = 0, nr_cpus_available = 0;
  std::vector<std::string> cmdline;  // argv of the perf command
  std::vector<PerfBuildId> build_ids;
  // data_size as the header says (0: cut short). A pipe-mode stream has no
  // data section: its records start after the 16-byte header and run to the
  // end (data_offset 16, data_size the bytes after it).
  uint64_t data_offset = 0, data_size = 0;
  // One line each for what was read past: an unknown feature bit, a feature
  // section that did not decode (its fields stay empty). Never fatal.
  std::vector<std::string> notices;
};

// How a walk over the data section ended.
struct PerfDataStatus {
  bool cut_short = false;  // the header's data size is 0 (perf did not finish): read to EOF
  std::string problem;     // "" when every byte of the data read; else where and why it stopped
  uint64_t records = 0;    // records delivered
  uint64_t bytes_read = 0, data_bytes = 0;  // of the data section
};

class PerfDataReader {
 public:
  // Parses the header, attributes and features of `bytes` (which must
  // outlive the reader). Throws kprof::Error, one line naming the problem
  // ("not a perf.data file (magic ...)", "attribute section at 1234+5678
  // runs past the end of the file (4000 bytes)", "compressed (perf record
  // -z) ... not supported"), for anything that makes the records unreadable.
  // Error messages start with "<name>: "; notices and PerfDataStatus::problem
  // do not (the caller says which file they are about).
  explicit PerfDataReader(std::span<const uint8_t> bytes, std::string name = "<memory>");

  const PerfDataHeader& header() const { return header_; }
  const std::string& name() const { return name_; }
  // header().events[event].layout(), made once (a record walk needs one per record).
  const perfabi::SampleLayout& layout(size_t event) const { return layouts_[event]; }

  // Calls `fn` for each record of the data section (perf's user records
  // such as FINISHED_ROUND are consumed here, not delivered) with the index
  // into header().events of the event it belongs to (found by its id as perf
  // does; 0 when the file has one event; SIZE_MAX when its id matches none).
  // Records are delivered in timestamp order as perf orders them (sorted
  // within FINISHED_ROUND rounds), or in file order when the events carry no
  // time. Damage (a record header with an impossible size) ends the walk;
  // everything before it is delivered and the status says where it stopped.
  // A kprof::Error thrown by `fn` propagates. `fn` runs on the calling
  // thread; from 8 MiB of records a second thread scans and orders them
  // meanwhile (joined before this returns or throws).
  PerfDataStatus for_each_record(
      const std::function<void(std::span<const uint8_t> record, size_t event)>& fn) const;

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
  PerfDataHeader header_;
  // Private members beyond these are the implementation's.

  // A name perf gave to the events with these ids (EVENT_DESC, or a
  // pipe-mode EVENT_UPDATE record), applied once every attr is known.
  struct PendingName {
    std::vector<uint64_t> ids;
    std::string name;
    size_t index = SIZE_MAX;  // position in EVENT_DESC, matched when no id does
  };

  // perf_data.cpp: header, attributes, records and their order.
  void read_file_header();
  void read_pipe_header();
  void add_event(std::span<const uint8_t> attr, std::vector<uint64_t> ids);
  size_t event_of(std::span<const uint8_t> rec) const;
  // A record to deliver: where it is, its event, its time (0: none).
  struct Queued {
    uint64_t time, offset;
    size_t size, event;
    bool operator<(const Queued& o) const {
      return time != o.time ? time < o.time : offset < o.offset;
    }
  };
  struct ScanEnd {
    uint64_t pos = 0;     // where the walk stopped
    std::string problem;  // why, when not at the end of the data
  };
  // The records in delivery order, in batches (for_each_record): `emit`
  // takes a batch's records and leaves the vector empty, its room kept where
  // it can be (batches are recycled, not allocated per round).
  // `at`, when given, follows where the scan is (for the page toucher).
  void scan_records(const std::function<void(std::vector<Queued>&)>& emit, ScanEnd& out,
                    std::atomic<uint64_t>* at = nullptr) const;
  [[noreturn]] void fail(const std::string& what) const;
  // perf_data_features.cpp: feature sections and event names.
  void read_features(const uint64_t (&bits)[4], uint64_t table);
  void read_feature(uint64_t feat, std::span<const uint8_t> payload, uint64_t offset);
  void name_events();

  uint64_t data_begin_ = 0, data_end_ = 0;  // the data records' bytes, within bytes_
  bool cut_short_ = false;
  std::string data_problem_;  // the data section runs past the end of the file
  std::vector<std::pair<uint64_t, size_t>> event_by_id_;  // (id, event), sorted
  std::vector<PendingName> pending_names_;
  std::vector<perfabi::SampleLayout> layouts_;  // per event, as layout(event)
  // Where each event's records carry their time (the scan reads it for every record).
  std::vector<perfabi::TimePosition> time_at_;
};

// Whether `head` (a file's first bytes) starts with perf.data's magic.
bool is_perf_data(std::span<const uint8_t> head);

}  // namespace kprof::importer
