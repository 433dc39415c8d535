#include "core/time_slices.h"

namespace kprof {

void TimeSlices::halve() {
  for (size_t at = 0; at < counts_.size(); at += kMax) {
    for (size_t j = 0; j < kMax / 2; ++j) {
      counts_[at + j] = counts_[at + 2 * j] + counts_[at + 2 * j + 1];
    }
    for (size_t j = kMax / 2; j < kMax; ++j) counts_[at + j] = 0;
  }
  ++width_log2_;
}

}  // namespace kprof
