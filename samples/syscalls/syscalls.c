/* Cycles (rdtsc) and nanoseconds per system call, after the third seed's
 * table: "The numbers below are clock cycles per system call (smaller is
 * better)". x86-64 only (rdtsc).
 *
 *   syscalls [--iterations N] [--seconds S] [--threads T]
 *
 * Default: measure each call N times (100000) and print one table row for
 * cycles, one for nanoseconds (wall) and one for the calling thread's CPU
 * nanoseconds. With --seconds S the rounds repeat, with a short compute loop
 * (crunch) between them, until S seconds have passed: the syscall-heavy +
 * compute workload the two-kernel demo profiles, and a line
 * `rounds_per_s=R` (its work score: kprof record --score-from). The table is
 * printed once at the end: each call's cost per call over every round (so a
 * profiler's cost per call over the same run can be checked against it:
 * kprof report --per-call; the CPU row is what a sampling profiler sees,
 * without the time the thread waited off CPU).
 *
 * With --threads T, T threads of one process run the rounds side by side
 * (the table is their mean): chdir() changes the process's one working
 * directory and open() takes its one file table, so the threads contend for
 * those locks: spinlocks that PREEMPT_RT turns into sleeping ones. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

struct result {
  const char* name;
  double cycles;
  double ns;
  double cpu_ns;
};

static double clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* One benchmark body per call; noinline so a profile names each one. */
typedef void (*body_fn)(void);
static const char* g_dir_a;
static const char* g_dir_b;

__attribute__((noinline)) static void call_gettimeofday_vdso(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
}
__attribute__((noinline)) static void call_gettimeofday_syscall(void) {
  struct timeval tv;
  syscall(SYS_gettimeofday, &tv, NULL);
}
__attribute__((noinline)) static void call_uname(void) {
  struct utsname u;
  uname(&u);
}
__attribute__((noinline)) static void call_chdir(void) {
  static int flip;
  if (chdir((flip ^= 1) ? g_dir_a : g_dir_b) != 0) {
    perror("chdir");
    exit(1);
  }
}
__attribute__((noinline)) static void call_open_close(void) {
  int fd = open("/proc/self/stat", O_RDONLY);
  if (fd < 0) {
    perror("open /proc/self/stat");
    exit(1);
  }
  close(fd);
}
__attribute__((noinline)) static void call_getpid(void) { syscall(SYS_getpid); }

static struct result measure(const char* name, body_fn fn, long iterations) {
  fn(); /* warm caches and the dentry before timing */
  double cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  double t0 = now_ns();
  uint64_t c0 = __rdtsc();
  for (long i = 0; i < iterations; i++) fn();
  uint64_t c1 = __rdtsc();
  double t1 = now_ns();
  double cpu1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  struct result r = {name, (double)(c1 - c0) / iterations, (t1 - t0) / iterations,
                     (cpu1 - cpu0) / iterations};
  return r;
}

/* User-side compute between rounds, so a profile of the demo has a named hot
 * user function next to the kernel's. */
__attribute__((noinline)) static uint64_t crunch(long n) {
  uint64_t h = 1469598103934665603ull;
  for (long i = 0; i < n; i++) h = (h ^ (uint64_t)i) * 1099511628211ull;
  return h;
}

enum { kCalls = 6 };

/* Adds one round's measurements to the totals (cycles and ns summed, so
 * dividing by `rounds` gives the mean per call over every round). */
static void round_of_calls(long iterations, struct result out[kCalls]) {
  struct result r[kCalls] = {
      measure("gettimeofday()", call_gettimeofday_vdso, iterations),
      measure("gettimeofday(SYS)", call_gettimeofday_syscall, iterations),
      measure("uname()", call_uname, iterations),
      measure("chdir()", call_chdir, iterations),
      measure("open()+close()", call_open_close, iterations),
      measure("getpid(SYS)", call_getpid, iterations)};
  for (int i = 0; i < kCalls; i++) {
    out[i].name = r[i].name;
    out[i].cycles += r[i].cycles;
    out[i].ns += r[i].ns;
    out[i].cpu_ns += r[i].cpu_ns;
  }
}

/* One thread's share of the run: rounds until `end`, its totals in r. */
struct worker {
  pthread_t thread;
  long iterations;
  double seconds, end;
  long rounds;
  double first_ns, last_ns; /* when its first round began and its last ended */
  uint64_t sink;
  struct result r[kCalls];
};

static void* work(void* arg) {
  struct worker* w = arg;
  w->first_ns = now_ns();
  do {
    round_of_calls(w->seconds > 0 ? w->iterations / 10 + 1 : w->iterations, w->r);
    if (w->seconds > 0) w->sink += crunch(w->iterations * 200);
    w->rounds++;
  } while ((w->last_ns = now_ns()) < w->end);
  return NULL;
}

static void usage(void) {
  fprintf(stderr, "usage: syscalls [--iterations N] [--seconds S] [--threads T]\n");
  exit(2);
}

int main(int argc, char** argv) {
  long iterations = 100000;
  double seconds = 0;
  long threads = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = atol(argv[++i]);
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atof(argv[++i]);
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = atol(argv[++i]);
    } else {
      usage();
    }
  }
  if (iterations <= 0 || seconds < 0 || threads < 1 || threads > 64) usage();

  char tmpl[] = "/tmp/kprof-syscalls-XXXXXX";
  if (!mkdtemp(tmpl)) {
    perror("mkdtemp in /tmp");
    return 1;
  }
  g_dir_a = tmpl;
  g_dir_b = "/";

  static struct worker workers[64];
  double start = now_ns();
  for (long t = 0; t < threads; t++) {
    workers[t].iterations = iterations;
    workers[t].seconds = seconds;
    workers[t].end = start + seconds * 1e9;
    if (t > 0 && pthread_create(&workers[t].thread, NULL, work, &workers[t]) != 0) {
      perror("pthread_create");
      return 1;
    }
  }
  work(&workers[0]);
  struct result r[kCalls] = {{0}};
  long rounds = 0;
  uint64_t sink = 0;
  for (long t = 0; t < threads; t++) {
    if (t > 0) pthread_join(workers[t].thread, NULL);
    for (int i = 0; i < kCalls; i++) {
      r[i].name = workers[t].r[i].name;
      r[i].cycles += workers[t].r[i].cycles;
      r[i].ns += workers[t].r[i].ns;
      r[i].cpu_ns += workers[t].r[i].cpu_ns;
    }
    rounds += workers[t].rounds;
    sink += workers[t].sink;
  }
  double elapsed = (now_ns() - start) / 1e9;
  if (chdir("/") == 0) rmdir(tmpl);

  struct utsname u;
  uname(&u);
  printf("Kernel");
  for (int i = 0; i < kCalls; i++) printf("\t%s", r[i].name);
  printf("\n%s (cycles)", u.release);
  for (int i = 0; i < kCalls; i++) printf("\t%.0f", r[i].cycles / rounds);
  printf("\n%s (ns)", u.release);
  for (int i = 0; i < kCalls; i++) printf("\t%.1f", r[i].ns / rounds);
  printf("\n%s (cpu ns)", u.release);
  for (int i = 0; i < kCalls; i++) printf("\t%.1f", r[i].cpu_ns / rounds);
  printf("\n");
  if (seconds > 0) {
    printf("rounds_per_s=%.2f\n", rounds / elapsed);
    fprintf(stderr, "syscalls: %ld rounds in %.1f s, %ld thread%s (%llx)\n", rounds, elapsed,
            threads, threads == 1 ? "" : "s", (unsigned long long)(sink & 0xff));
    for (long t = 0; t < threads && threads > 1; t++) {
      fprintf(stderr, "syscalls: thread %ld: %ld rounds from %.2f s to %.2f s\n", t,
              workers[t].rounds, (workers[t].first_ns - start) / 1e9,
              (workers[t].last_ns - start) / 1e9);
    }
  }
  return 0;
}
