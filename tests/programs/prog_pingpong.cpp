// A context-switch storm for `kprof record --off-cpu --off-cpu-freq` (issue
// 26): two threads on one CPU pass a byte back and forth over two pipes for
// SECONDS, each blocking in read until the other writes, so each round trip
// is two switches. It prints
//   pingpong round_trips=N
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

#include "prog_common.h"

namespace {
int ping[2], pong[2];
}  // namespace

extern "C" {
void* partner(void*) {
  char c;
  while (read(ping[0], &c, 1) == 1 && c != 0) {
    if (write(pong[1], &c, 1) != 1) _exit(3);
  }
  return nullptr;
}

unsigned long round_trip(unsigned long n) {
  char c = 1;
  if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) _exit(3);
  return n + 1;
}
}

int main(int argc, char** argv) {
  const double seconds =
      kprof_prog_arg_seconds(argc, argv, 1, 1.0, "usage: prog_pingpong [SECONDS]");
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return 3;  // the partner inherits it
  if (pipe(ping) != 0 || pipe(pong) != 0) return 3;
  pthread_t t;
  if (pthread_create(&t, nullptr, partner, nullptr) != 0) return 3;
  const double end = kprof_prog_now() + seconds;
  unsigned long n = 0;
  while (kprof_prog_now() < end) {
    for (int i = 0; i < 100; ++i) n = round_trip(n);
  }
  char zero = 0;
  if (write(ping[1], &zero, 1) != 1) return 3;
  pthread_join(t, nullptr);
  std::printf("pingpong round_trips=%lu\n", n);
  return 0;
}
