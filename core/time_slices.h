// Counts of many entries over consecutive slices of one recording, for
// batch means (stats/dispersion.h): how a function's samples spread over
// time within the run, which says how much its share would move from one
// recording to the next without a second recording.
//
// Slices are of equal sample count, in the order samples arrive (file
// order, close to time order): so every slice weighs the same, whatever the
// workload's pace. The count per slice is not known in advance, so slices
// start one sample wide and double: when kMax slices are full, neighbours
// are merged pairwise (kMax / 2 slices of twice the width) and counting goes
// on. A recording of N >= kMax samples ends with between kMax / 2 and kMax
// slices, all of the same width but the last (partial, never empty).
// Memory: kMax counters per entry; each sample costs one increment.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kprof {

class TimeSlices {
 public:
  static constexpr uint32_t kMax = 32;  // a power of two

  // One sample of `entry` (entries are small dense indices: 0, 1, 2, ...).
  void add(uint32_t entry) {
    uint64_t slice = samples_ >> width_log2_;
    if (slice == kMax) {
      halve();
      slice = samples_ >> width_log2_;
    }
    const size_t at = static_cast<size_t>(entry) * kMax;
    if (at >= counts_.size()) counts_.resize(at + kMax, 0);
    ++counts_[at + slice];
    ++samples_;
  }

  // Slices holding samples: 0 with no sample.
  uint32_t slices() const {
    if (samples_ == 0) return 0;
    return static_cast<uint32_t>(((samples_ - 1) >> width_log2_) + 1);
  }
  uint64_t samples() const { return samples_; }

  // The counts of `entry` in each of slices() slices (zeros for an entry
  // never added).
  std::span<const uint32_t> of(uint32_t entry) const {
    const size_t at = static_cast<size_t>(entry) * kMax;
    if (at >= counts_.size()) return std::span<const uint32_t>(kZeros, slices());
    return std::span<const uint32_t>(counts_).subspan(at, slices());
  }

 private:
  void halve();
  static constexpr uint32_t kZeros[kMax] = {};
  uint64_t samples_ = 0;
  uint32_t width_log2_ = 0;       // a slice is 2^width_log2_ samples wide
  std::vector<uint32_t> counts_;  // entry * kMax + slice
};

}  // namespace kprof
