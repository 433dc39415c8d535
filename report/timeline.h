// kprof report --timeline (issue 29): how the sampling rate and each top
// function's share of the samples move over the recording, one text
// sparkline each, so a phase change (a warm-up, a burst of page faults, a
// lock convoy halfway through) is visible without slicing by --time.
//
// No second naming pass: every row of a kprof histogram already counts its
// samples in each time slice (FunctionCount::slices, core/time_slices.h:
// up to 32 consecutive slices of equal sample count). What the rows do not
// know is when each slice began; a SampleClock, fed the profile's records,
// takes each counted sample's time, counting as AddressAggregator does (CPU
// samples, not kprof's own), so slice j starts at the time of sample
// j * width. The axis is therefore in samples, not seconds: each slice is
// labelled with its time span, and its sampling rate says how busy it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/model.h"

namespace kprof {

// The time of every sample AddressAggregator would count, in file order.
class SampleClock final : public RecordSink {
 public:
  explicit SampleClock(uint32_t left_out_pid) : left_out_pid_(left_out_pid) {}
  void on_sample(const Sample& s) override {
    if (s.kind != SampleKind::Cpu || (left_out_pid_ != 0 && s.pid == left_out_pid_)) return;
    times_.push_back(s.time);
  }
  const std::vector<uint64_t>& times() const { return times_; }

 private:
  uint32_t left_out_pid_;
  std::vector<uint64_t> times_;
};

struct TimelineRow {
  std::string image, function;
  uint64_t samples = 0;
  std::vector<double> share;  // per slice: its samples / the slice's samples (0..1)
};

struct Timeline {
  uint64_t start_ns = 0;           // the recording's start (perf time)
  std::vector<uint64_t> edges;     // slices + 1: each slice's first sample time, then the last's
  std::vector<uint64_t> in_slice;  // samples per slice (the clock's: before table filters)
  std::vector<double> rate;        // samples per second in each slice
  std::vector<TimelineRow> rows;   // the heaviest rows, heaviest first
  uint64_t total = 0;              // the rows' samples, all of them (after table filters)
  size_t slices() const { return in_slice.size(); }
};

// The timeline of `h`'s `top` heaviest rows, given the clock's sample times.
// nullopt, with *why set, when the rows keep no slices (older files,
// imports of listings) or the slices do not fit the clock's count.
std::optional<Timeline> build_timeline(const Histogram& h, const std::vector<uint64_t>& times,
                                       uint64_t start_ns, size_t top, std::string* why);

// The sparklines, with each line's range and the slices' time spans.
void write_timeline(std::ostream& out, const Timeline& t);

}  // namespace kprof
