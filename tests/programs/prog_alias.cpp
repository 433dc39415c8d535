// kprof_prog_alias SECONDS [SHARE]
// A loop in step with the clock: every millisecond of CLOCK_MONOTONIC, the
// first SHARE of it (default 0.3) is spent in kprof_alias_a() and the rest
// in kprof_alias_b(). A timer of exactly 1 ms (-F 1000) on the same clock
// fires at the same point of every round, so a fixed period sees one
// function only (aliasing); a dithered period sees each at its share
// (collector/period_dither.h; the end-to-end test in tests/e2e).
#include <cstdint>
#include <cstdio>
#include <ctime>

#include "prog_common.h"

namespace {
constexpr int64_t kRoundNs = 1'000'000;
volatile uint64_t g_sink;

int64_t phase_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec) % kRoundNs;
}
}  // namespace

// Each does a few hundred ns of work of its own between looks at the clock,
// so most samples land in it rather than in the clock read.
extern "C" __attribute__((noinline)) void kprof_alias_a(int64_t until) {
  volatile uint64_t x = g_sink;
  while (phase_ns() < until) {
    for (int i = 0; i < 200; ++i) x = x * 6364136223846793005ull + 1;
  }
  g_sink = x;
}

extern "C" __attribute__((noinline)) void kprof_alias_b(int64_t from) {
  volatile uint64_t x = g_sink;
  while (phase_ns() >= from) {
    for (int i = 0; i < 200; ++i) x = x * 6364136223846793005ull + 1;
  }
  g_sink = x;
}

int main(int argc, char** argv) {
  constexpr const char* kUsage = "SECONDS [SHARE]";
  const double seconds = kprof_prog_arg_seconds(argc, argv, 1, 0, kUsage);
  const double share = argc > 2 ? kprof_prog_arg_seconds(argc, argv, 2, 0, kUsage) : 0.3;
  if (share >= 1) {
    std::fprintf(stderr, "usage: kprof_prog_alias %s (SHARE below 1)\n", kUsage);
    return 2;
  }
  const auto cut = static_cast<int64_t>(share * kRoundNs);
  const double end = kprof_prog_now() + seconds;
  while (kprof_prog_now() < end) {
    kprof_alias_a(cut);
    kprof_alias_b(cut);
  }
  return 0;
}
