// From records to a symbolized histogram, in two steps:
//
// 1. AddressAggregator (a RecordSink) replays side-band records to know each
//    process's mappings at each sample's time (FORK copies the parent's maps,
//    COMM with exec clears them, EXIT drops them) and counts samples per
//    unique address in context: kernel ips, and user ips per mapping.
//    Memory grows with distinct addresses, not with samples. With -g it also
//    counts distinct call stacks per process (memory: distinct stacks).
//    Only SampleKind::Cpu samples count (--off-cpu's others: off_cpu_builder.h).
// 2. symbolize_counts() (build_histogram(): its histogram alone) names each
//    unique address once: kernel ips through KernelSymbols, user ips through
//    a UserSymbolResolver (the symbolizer's ELF resolver while recording;
//    NullUserResolver for a cut-short file read elsewhere, which keeps user
//    samples by image as "[unknown]").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/container/flat_map.hpp>
#include <boost/container/small_vector.hpp>

#include "core/cpu_time_weights.h"
#include "core/dense_hash_map.h"
#include "core/kernel_symbols.h"
#include "core/model.h"
#include "core/stacks.h"
#include "core/thread_counts.h"
#include "core/time_slices.h"

namespace kprof {

// A callchain entry that joins two tasks' stacks into one: the entries after
// it are another task's (the off-CPU builder's waker, after its wakee's
// stack: core/off_cpu_builder.h), in a chain classified by address
// (kernel_frames_known = false; only there is it looked for). Counted as a frame
// of its own, named kStackJointFrame in image kStackJointImage, mode Unknown.
inline constexpr uint64_t kStackJoint = ~0ULL;
inline constexpr std::string_view kStackJointFrame = "[woken by]";
inline constexpr std::string_view kStackJointImage = "[off-cpu]";

struct Counts {
  uint64_t samples = 0;
  uint64_t period = 0;
};

struct AddressCounts {
  static constexpr uint32_t kNoMapping = UINT32_MAX;
  struct Key {
    uint32_t mapping;  // index into mappings, or kNoMapping (kernel / unmapped)
    Mode mode;
    uint64_t ip;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };
  // -g: one distinct call stack of one process, as ids into `frames`, leaf
  // first. Most stacks are short, so their ids live inline.
  struct StackKey {
    uint32_t pid = 0;
    boost::container::small_vector<uint32_t, 24> frames;
    bool operator==(const StackKey&) const = default;
  };
  struct StackKeyHash {
    size_t operator()(const StackKey& k) const noexcept;
  };
  std::vector<Mmap> mappings;  // each distinct mapping that user samples fell in
  DenseHashMap<Key, Counts, KeyHash> counts;
  // Each entry of `counts` (by its entry number) over the recording's time
  // slices: the histogram's rows get theirs from it (FunctionCount::slices).
  TimeSlices slices;
  uint64_t samples = 0, lost = 0;
  uint64_t left_out = 0;  // samples of the excluded process (not in `samples`)
  // -g only. frames: each distinct frame of any stack; a caller's frame holds
  // its return address less 1, so it names the call site, not what follows.
  bool with_stacks = false;  // -g: every sample is in `stacks` too
  std::vector<Key> frames;
  std::unordered_map<StackKey, Counts, StackKeyHash> stacks;
  boost::container::flat_map<uint32_t, std::string> comms;  // pid -> its name, as last seen
  // count_threads(): the samples per thread and CPU, each leaf an entry
  // number of `counts` (symbolize_counts makes them flat rows).
  std::optional<ThreadTally> threads;
};

class AddressAggregator : public RecordSink {
 public:
  // `stacks` (a -g recording): also count each sample's call stack, its leaf
  // alone when it has no chain, so the stacks hold every sample.
  // `user_by_mapping`: count user addresses per mapping (each at the
  // mapping's start), for when they will not be named (a cut-short profile
  // read elsewhere, NullUserResolver): the table then holds kernel addresses
  // and mappings only, so it stays small and in cache.
  explicit AddressAggregator(bool stacks = false, bool user_by_mapping = false)
      : user_by_mapping_(user_by_mapping) {
    counts_.with_stacks = stacks;
  }
  // recent_, last_ and the stack cache point into this object's maps: a
  // copy or move starts with them empty, its settings (frames_only,
  // cache_stacks) kept.
  AddressAggregator(const AddressAggregator& o)
      : left_out_pid_(o.left_out_pid_),
        user_by_mapping_(o.user_by_mapping_),
        weigh_(o.weigh_),
        weights_(o.weights_),
        maps_(o.maps_),
        counts_(o.counts_),
        frame_ids_(o.frame_ids_),
        cache_stacks_(o.cache_stacks_),
        frames_only_(o.frames_only_) {}
  AddressAggregator(AddressAggregator&& o) noexcept
      : left_out_pid_(o.left_out_pid_),
        user_by_mapping_(o.user_by_mapping_),
        weigh_(o.weigh_),
        weights_(std::move(o.weights_)),
        maps_(std::move(o.maps_)),
        counts_(std::move(o.counts_)),
        frame_ids_(std::move(o.frame_ids_)),
        cache_stacks_(o.cache_stacks_),
        frames_only_(o.frames_only_) {
    o.forget_recent();
  }
  AddressAggregator& operator=(const AddressAggregator&) = delete;
  AddressAggregator& operator=(AddressAggregator&&) = delete;
  // Samples of `pid` (kprof's own, RunInfo::recorder_pid) are counted in
  // `left_out` only; 0: none are left out.
  void leave_out(uint32_t pid) { left_out_pid_ = pid; }
  // For a clock event (its period counts ns) whose records hold the context
  // switches (--off-cpu): each sample's period becomes its thread's on-CPU
  // time since its previous sample (core/cpu_time_weights.h), so periods add
  // up to the CPU time used even where the timer's samples came late. From
  // the first switch on: records without any cost nothing.
  void weigh_by_cpu_time() { weigh_ = true; }
  // Also count the samples per thread and CPU (counts().threads), for the
  // profile's ThreadCounts table (core/thread_counts.h).
  void count_threads() { counts_.threads.emplace(); }
  void on_sample(const Sample& s) override { count(s); }
  // on_sample's work; returns the entry of counts().counts the sample's leaf
  // was counted in, or kNotCounted (not a CPU sample, or left out).
  static constexpr uint32_t kNotCounted = UINT32_MAX;
  uint32_t count(const Sample& s);
  // Whether count() counts `s` (a CPU sample, not left out).
  bool counted(const Sample& s) const {
    return s.kind == SampleKind::Cpu && (left_out_pid_ == 0 || s.pid != left_out_pid_);
  }
  void on_mmap(const Mmap&) override;
  void on_comm(const Comm&) override;
  void on_fork(const Fork&) override;
  void on_exit(const Fork&) override;
  void on_lost(const Lost&) override;
  void on_switch(const Switch& w) override;
  // Samples whose period came from the switches (weigh_by_cpu_time), not the event.
  uint64_t weighted() const { return weights_ ? weights_->weighted() : 0; }
  // With stacks: collect each distinct frame (counts().frames) but not the
  // stacks (counts().stacks stays empty): what naming the addresses needs.
  void frames_only() { frames_only_ = true; }
  // With stacks: remember the last 64 stacks by their raw chains, so one
  // counted again skips naming its frames and hashing their ids. For
  // samples that come back to a few stacks over and over (off-CPU
  // intervals: core/off_cpu_builder.h); where most stacks differ (a
  // compile's -g samples) the misses cost ~6% more than they save.
  void cache_stacks() { cache_stacks_ = true; }
  // The keys `s` is counted under, leaf first: with stacks every frame (a
  // caller's at its call site, its return address less 1), else the leaf
  // alone; none for a sample on_sample() does not count (not a CPU sample,
  // or left out). Counts nothing: for a second pass over the same records
  // given here instead of to on_sample (kprof script), whose mappings are
  // then numbered as the first pass's were, so AddressNames of that pass
  // names them.
  void keys_of(const Sample& s, std::vector<AddressCounts::Key>& out);

  const AddressCounts& counts() const { return counts_; }
  // The counts, moved out; the aggregator is left empty.
  AddressCounts take_counts() && {
    forget_recent();
    return std::move(counts_);
  }

 private:
  // The mapping index of a user ip of `pid`, or kNoMapping.
  uint32_t mapping_of(uint32_t pid, uint64_t ip);
  uint32_t frame_id(const AddressCounts::Key& key);
  void add_stack(const Sample& s, uint32_t leaf_mapping, uint64_t period);
  // The chain's keys after the leaf (appended to `out`).
  void caller_keys(const Sample& s, std::vector<AddressCounts::Key>& out);
  struct Map {
    uint64_t start, end;
    uint32_t mapping;  // index into counts_.mappings, assigned lazily
    Mmap mmap;
  };
  uint32_t mapping_index(Map& m);
  void forget_recent() {
    recent_ = {};
    last_ = {};
    recent_stacks_ = {};
  }
  // Maps changed (or may move): what mapping_of and count() remember is stale.
  void maps_changed() {
    last_ = {};
    if (++recent_gen_ == 0) {  // wrapped: entries of an old generation could match
      recent_ = {};
      recent_stacks_ = {};
      recent_gen_ = 1;
    }
  }
  // The key of a user ip in `mapping` (kNoMapping: unmapped).
  AddressCounts::Key user_key(uint32_t mapping, uint64_t ip) const {
    if (!user_by_mapping_) return {mapping, Mode::User, ip};
    return {mapping, Mode::User,
            mapping == AddressCounts::kNoMapping ? 0 : counts_.mappings[mapping].start};
  }
  uint32_t left_out_pid_ = 0;
  bool user_by_mapping_ = false;
  bool weigh_ = false;
  std::optional<CpuTimeWeights> weights_;                // made at the first switch when weigh_
  std::unordered_map<uint32_t, std::vector<Map>> maps_;  // pid -> maps sorted by start
  struct LastMap {  // where mapping_of() last found an ip; cleared when maps change
    uint32_t pid = 0;
    std::vector<Map>* maps = nullptr;
    size_t index = 0;
  };
  std::array<LastMap, 2> last_{};  // the latest first
  AddressCounts counts_;
  // A small direct-mapped cache in front of mapping_of and the map, by the
  // sample's own fields: most samples fall on a few hot addresses, and a hit
  // is one probe in a small array. Entries of an older generation than
  // recent_gen_ (maps_changed) are stale.
  static constexpr size_t kRecentLog2 = 10;
  struct Recent {
    uint64_t ip = 0;
    uint32_t pid = 0;                 // the sample's for a user ip, else 0
    uint32_t gen = 0;                 // never 0 when filled
    uint32_t mapping = 0, entry = 0;  // its key's, and counts_.counts.slot(key)
    Mode mode = Mode::Unknown;
  };
  std::array<Recent, size_t{1} << kRecentLog2> recent_{};
  uint32_t recent_gen_ = 1;
  DenseHashMap<AddressCounts::Key, uint32_t, AddressCounts::KeyHash> frame_ids_;
  AddressCounts::StackKey scratch_;  // reused per sample: no allocation for known stacks
  // cache_stacks(): the same for stacks, by the sample's raw chain. `counts`
  // points into counts_.stacks, whose entries stay put.
  static constexpr size_t kRecentStacksLog2 = 6;
  struct ChainOf {  // what of a sample, besides its chain, decides its stack's frames
    uint32_t pid = 0;
    uint64_t ip = 0;
    Mode mode = Mode::Unknown;
    bool kernel_frames_known = true;
    uint32_t kernel_frames = 0;
    bool operator==(const ChainOf&) const = default;
  };
  struct RecentStack {
    uint32_t gen = 0;  // recent_gen_ when filled; never 0 then
    ChainOf of;
    std::vector<uint64_t> chain;
    Counts* counts = nullptr;  // null under frames_only
  };
  std::array<RecentStack, size_t{1} << kRecentStacksLog2> recent_stacks_{};
  bool cache_stacks_ = false;
  RecentStack& recent_stack(const Sample& s);  // its slot
  bool frames_only_ = false;
  std::vector<AddressCounts::Key> keys_;  // reused per sample by add_stack
};

// Whether every kernel address in `counts` lies in text whose names cannot
// change within a boot (KernelSymbols::in_boot_static_text).
bool kernel_ips_in_boot_static_text(const AddressCounts& counts, const KernelSymbols& kernel);

// Names user addresses inside one mapping.
class UserSymbolResolver {
 public:
  virtual ~UserSymbolResolver() = default;
  // One name per ip ("" when unknown). May set *build_id (hex) for the image.
  virtual std::vector<std::string> resolve(const Mmap& mapping, std::span<const uint64_t> ips,
                                           std::string* build_id) = 0;
};

class NullUserResolver : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap&, std::span<const uint64_t> ips,
                                   std::string*) override {
    return std::vector<std::string>(ips.size());
  }
};

// "[anon]", "[heap]", "[stack]", "[vdso]", "[jit]" or the path itself.
std::string image_name_for(const Mmap& m);

// Names every distinct address of `counts` once, user ips of leaves and of
// callers together: one resolve() call per mapping. Then any key of those
// counts (or of a second aggregation of the same records: the mappings are
// numbered alike) is named by a lookup.
class AddressNames {
 public:
  struct Name {  // views into the KernelSymbols or this AddressNames
    std::string_view image, build_id, function;
  };
  // `kernel` must outlive this object.
  AddressNames(const AddressCounts& counts, const KernelSymbols& kernel, UserSymbolResolver& user);
  // "[unknown]" for an address the counts did not hold.
  Name operator()(const AddressCounts::Key& key) const;

 private:
  static constexpr std::string_view kUnknown = "[unknown]";
  const KernelSymbols& kernel_;
  std::vector<std::vector<uint64_t>> ips_;  // per mapping, sorted, distinct
  std::vector<std::vector<std::string>> names_;
  std::vector<std::string> images_, build_ids_;
};

// The histogram and, for counts with_stacks, the stacks, every distinct
// address named once: one resolve() call per mapping for leaf and caller ips
// together. With stacks the histogram is their leaf_histogram().
// With counts.threads, their table with each leaf made the histogram's row
// it is named in.
struct SymbolizedCounts {
  Histogram histogram;
  std::optional<Stacks> stacks;
  std::optional<ThreadCounts> threads;
};
SymbolizedCounts symbolize_counts(const AddressCounts& counts, const KernelSymbols& kernel,
                                  UserSymbolResolver& user);

Histogram build_histogram(const AddressCounts& counts, const KernelSymbols& kernel,
                          UserSymbolResolver& user);

}  // namespace kprof
