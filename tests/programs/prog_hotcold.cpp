// kprof_prog_hotcold SECONDS [COLD_FACTOR]
// Each round: kprof_hot() does 3 units of work, kprof_cold() 1 x COLD_FACTOR
// units (default 1.0), so a profile shows kprof_hot ~75% / kprof_cold ~25%
// of the program's user samples. COLD_FACTOR 1.3 makes kprof_cold 30% slower
// (the A/B diff test). Work is a dependent multiply-add chain through a
// volatile, so it cannot be folded or vectorized and makes no syscalls.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "prog_common.h"

namespace {
// One unit is ~0.1-0.2 ms, so a round is well under a few ms and the clock is
// checked once per round, not per iteration.
constexpr long kUnitIterations = 50000;
volatile uint64_t g_sink;
}  // namespace

extern "C" __attribute__((noinline)) void kprof_hot(long units) {
  volatile uint64_t x = 0x9e3779b97f4a7c15ull;
  for (long i = 0; i < units * kUnitIterations; ++i) x = x * 6364136223846793005ull + 1;
  g_sink = x;
}

extern "C" __attribute__((noinline)) void kprof_cold(double units) {
  volatile uint64_t x = 0x9e3779b97f4a7c15ull;
  long n = static_cast<long>(units * kUnitIterations);
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1;
  g_sink = x;
}

int main(int argc, char** argv) {
  constexpr const char* kUsage = "SECONDS [COLD_FACTOR]";
  double seconds = kprof_prog_arg_seconds(argc, argv, 1, 0, kUsage);
  double cold = argc > 2 ? kprof_prog_arg_seconds(argc, argv, 2, 0, kUsage) : 1.0;
  double end = kprof_prog_now() + seconds;
  long rounds = 0;
  while (kprof_prog_now() < end) {
    kprof_hot(3);
    kprof_cold(cold);
    ++rounds;
  }
  std::printf("rounds %ld\n", rounds);
  return 0;
}
