/* A context-switch storm for bench/off_cpu.sh: two threads pass a byte back
 * and forth over two pipes for SECONDS, each blocking in read() until the
 * other writes: every round trip is two switches out (one per thread).
 * Prints round trips, their rate and the process's own CPU time:
 *   pingpong round_trips=N per_s=R cpu_s=C */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static volatile int stop;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void* echo(void* arg) {
  (void)arg;
  char c;
  while (read(ab[0], &c, 1) == 1 && c) {
    if (write(ba[1], &c, 1) != 1) break;
  }
  return NULL;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 3;
  if (pipe(ab) || pipe(ba)) return 1;
  pthread_t t;
  pthread_create(&t, NULL, echo, NULL);
  const double start = now();
  long n = 0;
  char c = 1;
  while (now() - start < seconds) {
    for (int i = 0; i < 1000; ++i, ++n) {
      if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) return 1;
    }
  }
  const double took = now() - start;
  c = 0;
  if (write(ab[1], &c, 1) != 1) return 1;
  pthread_join(t, NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("pingpong round_trips=%ld per_s=%.0f cpu_s=%.3f\n", n, n / took,
         ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
             ru.ru_stime.tv_usec / 1e6);
  return 0;
}
