#include "proglib.h"

#include <cstdint>
#include <ctime>

namespace {
volatile uint64_t g_sink;

double now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

extern "C" __attribute__((noinline)) long kprof_lib_spin(double seconds) {
  double end = now() + seconds;
  long total = 0;
  volatile uint64_t x = 0x9e3779b97f4a7c15ull;
  do {
    // ~0.2 ms of work between clock reads.
    for (int i = 0; i < 50000; ++i) x = x * 6364136223846793005ull + 1;
    total += 50000;
  } while (now() < end);
  g_sink = x;
  return total;
}
