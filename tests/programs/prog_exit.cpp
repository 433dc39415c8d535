// kprof_prog_exit N: works ~0.3 s, then exits with status N (0-255).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "prog_common.h"

namespace {
volatile uint64_t g_sink;
}

extern "C" __attribute__((noinline)) void kprof_exit_work(double seconds) {
  double end = kprof_prog_now() + seconds;
  volatile uint64_t x = 1;
  do {
    for (int i = 0; i < 50000; ++i) x = x * 6364136223846793005ull + 1;
  } while (kprof_prog_now() < end);
  g_sink = x;
}

int main(int argc, char** argv) {
  char* end = nullptr;
  long code = argc == 2 ? std::strtol(argv[1], &end, 10) : -1;
  if (argc != 2 || *end != '\0' || code < 0 || code > 255) {
    std::fprintf(stderr, "usage: %s N (exit status 0-255)\n", argv[0]);
    return 2;
  }
  kprof_exit_work(0.3);
  return static_cast<int>(code);
}
