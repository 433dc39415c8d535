// --sort tid and --sort cpu (issue 29): the samples per thread or per CPU,
// keys the stored tables do not keep, counted from the records in one read
// (cli/inputs.h read_records), as `perf report --sort tid` / `--sort cpu`.
//
// A RecordKeyCounter is given the records: it keeps each process's mappings
// (an AddressAggregator, leaves only) and counts every CPU sample by (thread
// or CPU, leaf address). record_key_histogram() then names each distinct
// address once and returns a Histogram whose "images" are the threads
// ("1234 postgres", the thread's name as perf keeps it: from its COMM, else
// its parent's at the fork) or CPUs ("cpu 3"), one row each, or with
// `functions` one row per (thread or CPU, leaf function): the report's table
// and CSV read it as they read --sort comm's.
//
// The filters a SampleFilter's table keys give apply as the samples are
// counted (--comm by the thread's name, --pid) and named (--dso, --symbol by
// the leaf); --tid, --cpu and --time select the records before (the caller).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/aggregate.h"
#include "core/dense_hash_map.h"
#include "core/kernel_symbols.h"
#include "core/model.h"
#include "core/sample_selection.h"
#include "core/thread_counts.h"
#include "core/thread_names.h"
#include "report/filter.h"

namespace kprof {

// Tid and Cpu: from the records (RecordKeyCounter) or the per-thread table;
// Pid and Comm: a flat profile's, from its per-thread table only.
enum class RecordKey { Tid, Cpu, Pid, Comm };

class RecordKeyCounter final : public RecordSink {
 public:
  // `filter` (may be null) must outlive the counter. `leaves`: count each
  // thread's or CPU's samples per leaf address, to name (a row per function,
  // or a --dso/--symbol filter); otherwise one count each.
  RecordKeyCounter(RecordKey key, uint32_t leave_out_pid, const SampleFilter* filter,
                   bool leaves = true);
  void on_sample(const Sample& s) override;
  void on_mmap(const Mmap& m) override { agg_.on_mmap(m); }
  void on_comm(const Comm& c) override;
  void on_fork(const Fork& f) override;
  void on_exit(const Fork& f) override { agg_.on_exit(f); }

  // The leaf addresses counted (empty without `leaves`).
  const AddressCounts& addresses() const { return agg_.counts(); }
  const std::vector<std::string>& labels() const { return labels_; }
  // f(label, leaf, counts) for each (thread or CPU, leaf address) counted:
  // `label` indexes labels(), `leaf` is null without `leaves`.
  template <class F>
  void for_each(F f) const;
  const SampleFilter* filter() const { return filter_; }
  uint64_t seen() const { return seen_; }        // CPU samples given (kprof's own aside)
  uint64_t counted() const { return counted_; }  // of them, those --comm and --pid kept

 private:
  uint32_t label_of(const Sample& s);
  // (label, entry of the leaf in addresses().counts) in one word.
  struct PairHash {
    size_t operator()(uint64_t k) const noexcept;
  };

  RecordKey key_;
  const SampleFilter* filter_;
  bool by_process_;  // the filter has --comm or --pid
  bool leaves_;
  AddressAggregator agg_;  // with leaves: their addresses, numbered as counted
  ThreadNames threads_;
  DenseHashMap<uint32_t, bool, IdHash> label_ids_;  // tid or cpu: entry number = index into labels_
  std::vector<std::string> labels_;
  std::vector<Counts> by_label_;                      // without leaves
  DenseHashMap<uint64_t, Counts, PairHash> by_leaf_;  // with leaves
  uint64_t seen_ = 0, counted_ = 0;
};

template <class F>
void RecordKeyCounter::for_each(F f) const {
  if (!leaves_) {
    for (uint32_t label = 0; label < by_label_.size(); ++label) {
      if (by_label_[label].samples != 0) f(label, nullptr, by_label_[label]);
    }
    return;
  }
  for (const auto& [k, c] : by_leaf_) {
    f(static_cast<uint32_t>(k), &agg_.counts().counts.entry(static_cast<uint32_t>(k >> 32)).first,
      c);
  }
}

// The counts as a Histogram (see above), every distinct address named once.
// Throws kprof::Error (exit 1) when no sample is left to count.
Histogram record_key_histogram(const RecordKeyCounter& counter, const KernelSymbols& kernel,
                               UserSymbolResolver& user, bool functions);

// The same Histogram from a profile's stored ThreadCounts (core/thread_counts.h),
// no record read, also per process (Pid: "1234 postgres", named as its main
// thread) or per thread name (Comm, as perf's --sort comm): `flat` is the flat table they count and
// `rows` its rows by leaf rank (ThreadCounts::rows_of), whose names the rows take. Every filter of
// `filter` applies
// (--tid and --cpu to the rows, --comm and --pid by each thread's name and process, --dso and
// --symbol by the leaf); *kept and *total get the samples kept and the
// profile's. Throws kprof::Error (exit 1) when no sample is left.
Histogram thread_table_histogram(const ThreadCounts& threads, const Histogram& flat,
                                 std::span<const uint32_t> rows, RecordKey key, bool functions,
                                 const SampleFilter& filter, uint64_t* kept, uint64_t* total);

// --tid and --cpu on a flat profile from its stored ThreadCounts: `flat`
// with each row's samples and period those of the threads and CPUs
// `selection` keeps (its --time must be empty), rows left with none
// dropped. The rows keep no time slices and no peak address (both need the
// samples' order: read the records for them). `seen` gets what the table
// holds, as a SelectingSink would have seen it, for the notice and the error
// that names what exists when nothing is kept. `left` (may be null) gets the
// table's rows kept, indexing the Histogram returned: for the filters after
// (--comm, --pid).
Histogram thread_table_selection(const ThreadCounts& threads, const Histogram& flat,
                                 std::span<const uint32_t> rows, const SampleSelection& selection,
                                 SelectingSink::Seen& seen, ThreadCounts* left = nullptr);

}  // namespace kprof
