// kprof_prog_crash: works ~0.5 s, then dies of SIGSEGV (no core file).
#include <csignal>

#include "prog_common.h"

int main() {
  kprof_prog_no_core();
  kprof_prog_busy(0.5);
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  return 0;  // not reached
}
