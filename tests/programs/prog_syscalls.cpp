// kprof_prog_syscalls SECONDS: hammers cheap real syscalls (getppid, getpid
// through syscall(2), so libc cannot cache them) so most samples land in the
// kernel's syscall entry and exit paths.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

#include "prog_common.h"

extern "C" __attribute__((noinline)) long kprof_syscall_loop(long calls) {
  long sum = 0;
  for (long i = 0; i < calls; ++i) {
    sum += syscall(SYS_getppid);
    sum += syscall(SYS_getpid);
  }
  return sum;
}

int main(int argc, char** argv) {
  double seconds = kprof_prog_arg_seconds(argc, argv, 1, 0, "SECONDS");
  double end = kprof_prog_now() + seconds;
  long rounds = 0, sum = 0;
  while (kprof_prog_now() < end) {
    sum += kprof_syscall_loop(1000);
    ++rounds;
  }
  std::printf("syscalls %ld (checksum %ld)\n", rounds * 2000, sum);
  return 0;
}
