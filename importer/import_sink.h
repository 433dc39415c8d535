// The fan-out of a perf.data's records (import_perf_data, import.h): the
// chosen event's decoded records go to the aggregator that counts them by
// address and, for kprof import, to the writer of the .kprof's Records
// (import_writer.h). The sink keeps what the summary and the kernel symbols
// need: samples, their first and last time, what perf lost and throttled,
// and where the recording's kernel text was. BuildIdFiller goes first: a
// mapping without a build-id gets the one the file lists for its file name,
// before the unwinder (a perf --call-graph dwarf file) or the aggregator
// read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/aggregate.h"
#include "core/model.h"

namespace kprof::importer {

// Every record to `next`, each mapping with its build-id filled in from
// `build_ids` (by file name: perf_run_info.h) when it has none. Both must
// outlive the filler.
class BuildIdFiller final : public ForwardingSink {
 public:
  BuildIdFiller(RecordSink& next, const std::unordered_map<std::string, std::string>& build_ids)
      : ForwardingSink(next), ids_(build_ids) {}
  void on_mmap(const Mmap& m) override;

 private:
  const std::unordered_map<std::string, std::string>& ids_;
};

class ImportSink final : public RecordSink {
 public:
  // `also`: a second sink for every record but throttles (nullptr: none).
  // Both must outlive the sink.
  ImportSink(AddressAggregator& agg, RecordSink* also) : agg_(agg), also_(also) {}

  void on_sample(const Sample& s) override;
  void on_mmap(const Mmap& m) override;
  void on_comm(const Comm& c) override;
  void on_fork(const Fork& f) override;
  void on_exit(const Fork& f) override;
  void on_lost(const Lost& l) override;
  void on_throttle(uint64_t) override { ++throttled; }

  uint64_t samples = 0, lost = 0, throttled = 0;
  uint64_t first_time = 0, last_time = 0;
  // _text as the recording saw it: the pgoff of perf's kernel mapping.
  std::optional<uint64_t> kernel_text;

 private:
  AddressAggregator& agg_;
  RecordSink* also_;
};

}  // namespace kprof::importer
