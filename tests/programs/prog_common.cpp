#include "prog_common.h"

#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

extern "C" double kprof_prog_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

extern "C" double kprof_prog_arg_seconds(int argc, char** argv, int i, double fallback,
                                         const char* usage) {
  if (i >= argc) {
    if (fallback > 0) return fallback;
    std::fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    std::exit(2);
  }
  char* end = nullptr;
  double v = std::strtod(argv[i], &end);
  if (end == argv[i] || *end != '\0' || !(v > 0) || v > 1e6) {
    std::fprintf(stderr, "%s: '%s' is not a positive number (usage: %s %s)\n", argv[0], argv[i],
                 argv[0], usage);
    std::exit(2);
  }
  return v;
}

extern "C" void kprof_prog_no_core() {
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
}

extern "C" __attribute__((noinline)) void kprof_prog_busy(double seconds) {
  const double end = kprof_prog_now() + seconds;
  volatile uint64_t x = 1;
  do {
    for (int i = 0; i < 50000; ++i) x = x * 6364136223846793005ull + 1;
  } while (kprof_prog_now() < end);  // x is volatile: the loop is not optimized away
}
