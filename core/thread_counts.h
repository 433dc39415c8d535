// Samples per thread and CPU, stored (issue 29): what `--sort tid|cpu`,
// `--tid` and `--cpu` read, so they need not read the records again, and a
// profile breaks down by thread and CPU wherever it is reported (no binary
// of the recording machine needed). Stored as one chunk (core/file_layout.h
// ChunkType::ThreadCounts) right after the flat table it indexes
// (symbolizer/profile_symbols.h write_profile_symbols); a reader drops one
// that a later flat table follows (core/profile.cpp).
//
// A row counts the CPU samples of one thread on one CPU whose leaf is one
// row of the profile's flat table (Histogram::rows, or a -g profile's
// leaf_histogram(stacks).rows), named by its rank in (image name, function,
// mode) order: any order the rows are stored or rebuilt in gives the same
// ranks (flat_order). Every counted sample is in exactly one row, so a
// leaf's rows add up to its flat row (rows_of checks it). Memory and bytes:
// distinct (thread, CPU, leaf function) triples, not samples.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/dense_hash_map.h"
#include "core/model.h"
#include "core/thread_names.h"

namespace kprof {

// A thread under one name: one that renames itself or execs is counted
// under each name it had at its samples, as perf names a sample's thread
// (core/thread_names.h; "" when never named).
struct CountedThread {
  uint32_t tid = 0, pid = 0;
  std::string name;
  auto operator<=>(const CountedThread&) const = default;
};

struct ThreadCpuRow {
  uint32_t thread = 0;  // index into ThreadCounts::threads
  uint32_t cpu = 0;
  uint32_t leaf = 0;  // the flat row's rank in flat_order
  uint64_t samples = 0;
  uint64_t period = 0;
  auto operator<=>(const ThreadCpuRow&) const = default;
};

struct ThreadCounts {
  std::vector<CountedThread> threads;
  std::vector<ThreadCpuRow> rows;  // each (thread, cpu, leaf) once, any order
  // For each leaf rank, its row of `flat` (the profile's flat table); none
  // when this table does not count `flat`: an index out of range, or a flat
  // row's samples not the sum of its rows'.
  std::optional<std::vector<uint32_t>> rows_of(const Histogram& flat) const;
  auto operator<=>(const ThreadCounts&) const = default;
};

// The indices of `flat`'s rows in (image name, function, mode) order: a
// leaf's rank is its position here.
std::vector<uint32_t> flat_order(const Histogram& flat);

// Counting the table while the records are aggregated (AddressAggregator::
// count_threads, core/aggregate.h): `leaf` is then the aggregation's entry
// number, which naming turns into a flat row (symbolize_counts).
class ThreadTally {
 public:
  void on_comm(const Comm& c) {
    names_.on_comm(c);
    current_[c.tid] = {};
  }
  void on_fork(const Fork& f) {
    names_.on_fork(f);
    current_[f.tid] = {};
  }
  void add(const Sample& s, uint32_t leaf, uint64_t period);
  const ThreadCounts& counts() const { return counts_; }

 private:
  struct Key {
    uint32_t thread, cpu, leaf;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };
  uint32_t thread_of(const Sample& s);
  struct Current {
    uint32_t index = UINT32_MAX;  // none yet: look it up
  };
  ThreadNames names_;
  DenseHashMap<uint32_t, Current, IdHash> current_;  // tid -> its entry in threads, as named now
  std::map<std::tuple<uint32_t, uint32_t, std::string>, uint32_t> thread_ids_;
  DenseHashMap<Key, bool, KeyHash> row_ids_;  // -> index into rows
  ThreadCounts counts_;
};

// The chunk's payload; decode throws kprof::Error on damage (bounds-checked,
// indices into `threads` checked; fuzzed: fuzz/thread_counts_fuzzer.cpp).
std::vector<uint8_t> encode_thread_counts(const ThreadCounts&);
ThreadCounts decode_thread_counts(std::span<const uint8_t>);

}  // namespace kprof
