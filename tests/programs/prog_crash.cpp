// kprof_prog_crash: works ~0.5 s, then dies of SIGSEGV (no core file).
#include <csignal>
#include <cstdint>

#include "prog_common.h"

namespace {
volatile uint64_t g_sink;
}

extern "C" __attribute__((noinline)) void kprof_crash_work(double seconds) {
  double end = kprof_prog_now() + seconds;
  volatile uint64_t x = 1;
  do {
    for (int i = 0; i < 50000; ++i) x = x * 6364136223846793005ull + 1;
  } while (kprof_prog_now() < end);
  g_sink = x;
}

int main() {
  kprof_prog_no_core();
  kprof_crash_work(0.5);
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  return 0;  // not reached
}
