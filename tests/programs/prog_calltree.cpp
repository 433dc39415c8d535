// kprof_prog_calltree SECONDS [B_FACTOR]
// A known call tree for the call-graph tests, built with frame pointers in
// every function (leaf included) so frame-pointer unwinding sees each caller:
//
//   main -> kprof_ct_a -> kprof_ct_leaf          2 units a round
//   main -> kprof_ct_b -> kprof_ct_leaf          1 unit x B_FACTOR
//           kprof_ct_b's own loop                1 unit
//
// So with B_FACTOR 1 (the default): kprof_ct_leaf is 3/4 of the program's
// self samples and kprof_ct_b 1/4; the leaf's callers split 2:1 (a:b); totals
// (inclusive) are a 1/2, b 1/2, leaf 3/4, main ~1. B_FACTOR 2 makes b's call
// of the leaf twice as long (the diff test's slower path).
#include <cstdint>
#include <cstdio>

#include "prog_common.h"

namespace {
constexpr long kUnitIterations = 50000;
volatile uint64_t g_sink;
}  // namespace

extern "C" __attribute__((noinline)) void kprof_ct_leaf(double units) {
  volatile uint64_t x = 0x9e3779b97f4a7c15ull;
  const long n = static_cast<long>(units * kUnitIterations);
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1;
  g_sink = x;
}

extern "C" __attribute__((noinline)) void kprof_ct_a() {
  kprof_ct_leaf(2);
}

extern "C" __attribute__((noinline)) void kprof_ct_b(double factor) {
  volatile uint64_t x = 0x9e3779b97f4a7c15ull;
  for (long i = 0; i < kUnitIterations; ++i) x = x * 6364136223846793005ull + 1;
  g_sink = x;
  kprof_ct_leaf(factor);
}

int main(int argc, char** argv) {
  constexpr const char* kUsage = "SECONDS [B_FACTOR]";
  const double seconds = kprof_prog_arg_seconds(argc, argv, 1, 0, kUsage);
  const double factor = argc > 2 ? kprof_prog_arg_seconds(argc, argv, 2, 0, kUsage) : 1.0;
  const double end = kprof_prog_now() + seconds;
  long rounds = 0;
  while (kprof_prog_now() < end) {
    kprof_ct_a();
    kprof_ct_b(factor);
    ++rounds;
  }
  std::printf("rounds %ld\n", rounds);
  return 0;
}
