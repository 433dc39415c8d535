// kprof_prog_exit N: works ~0.3 s, then exits with status N (0-255).
#include <cstdio>
#include <cstdlib>

#include "prog_common.h"

int main(int argc, char** argv) {
  char* end = nullptr;
  long code = argc == 2 ? std::strtol(argv[1], &end, 10) : -1;
  if (argc != 2 || *end != '\0' || code < 0 || code > 255) {
    std::fprintf(stderr, "usage: %s N (exit status 0-255)\n", argv[0]);
    return 2;
  }
  kprof_prog_busy(0.3);
  return static_cast<int>(code);
}
