// Inside unwind/: what the Unwinder (unwinder.h) keeps of each sample it
// unwound, and the decoder that gives compaction's second pass over the
// same PerfRecords those stacks instead of unwinding them again.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "core/model.h"
#include "core/profile.h"

namespace kprof::unwind {

// The user frames one sample got, with what identifies the sample.
struct UnwoundStack {
  uint64_t time = 0;
  uint32_t tid = 0;
  std::vector<uint64_t> frames;
};

// `s` without its stack copy and registers (what leaves the unwinder).
Sample without_copy(const Sample& s);
// Replaces the user part of `s`'s callchain (after its kernel frames).
void set_user_frames(Sample& s, const std::vector<uint64_t>& frames);

// PerfRecords decoded as perfabi/spool.h does, each sample with a stack
// copy taking the next of `unwound` (popped; the same time and thread, or
// it keeps its decoded chain) and losing its copy.
class Replay : public PerfRecordsDecoder {
 public:
  explicit Replay(std::deque<UnwoundStack>& unwound) : unwound_(unwound) {}
  void decode(std::span<const uint8_t> payload, RecordSink& sink) const override;

 private:
  std::deque<UnwoundStack>& unwound_;
};

}  // namespace kprof::unwind
