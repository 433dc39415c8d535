#include "core/stacks.h"

namespace kprof {

uint64_t Stacks::total_samples() const {
  uint64_t n = 0;
  for (const Stack& s : stacks) n += s.samples;
  return n;
}

}  // namespace kprof
