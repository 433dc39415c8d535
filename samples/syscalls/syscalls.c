/* Cycles (rdtsc) and nanoseconds per system call, after the third seed's
 * table: "The numbers below are clock cycles per system call (smaller is
 * better)". x86-64 only (rdtsc).
 *
 *   syscalls [--iterations N] [--seconds S]
 *
 * Default: measure each call N times (100000) and print one table row for
 * cycles and one for nanoseconds. With --seconds S the rounds repeat, with a
 * short compute loop (crunch) between them, until S seconds have passed: the
 * syscall-heavy + compute workload the two-kernel demo profiles. The table is
 * printed once at the end: each call's cycles and ns per call over every
 * round (so a profiler's cost per call over the same run can be checked
 * against it: kprof report --per-call). */
#define _GNU_SOURCE
#include <fcntl.h>
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
};

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

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
  double t0 = now_ns();
  uint64_t c0 = __rdtsc();
  for (long i = 0; i < iterations; i++) fn();
  uint64_t c1 = __rdtsc();
  double t1 = now_ns();
  struct result r = {name, (double)(c1 - c0) / iterations, (t1 - t0) / iterations};
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
  }
}

static void usage(void) {
  fprintf(stderr, "usage: syscalls [--iterations N] [--seconds S]\n");
  exit(2);
}

int main(int argc, char** argv) {
  long iterations = 100000;
  double seconds = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = atol(argv[++i]);
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atof(argv[++i]);
    } else {
      usage();
    }
  }
  if (iterations <= 0 || seconds < 0) usage();

  char tmpl[] = "/tmp/kprof-syscalls-XXXXXX";
  if (!mkdtemp(tmpl)) {
    perror("mkdtemp in /tmp");
    return 1;
  }
  g_dir_a = tmpl;
  g_dir_b = "/";

  struct result r[kCalls] = {{0}};
  double end = now_ns() + seconds * 1e9;
  long rounds = 0;
  uint64_t sink = 0;
  do {
    round_of_calls(seconds > 0 ? iterations / 10 + 1 : iterations, r);
    if (seconds > 0) sink += crunch(iterations * 200);
    rounds++;
  } while (now_ns() < end);
  if (chdir("/") == 0) rmdir(tmpl);

  struct utsname u;
  uname(&u);
  printf("Kernel");
  for (int i = 0; i < kCalls; i++) printf("\t%s", r[i].name);
  printf("\n%s (cycles)", u.release);
  for (int i = 0; i < kCalls; i++) printf("\t%.0f", r[i].cycles / rounds);
  printf("\n%s (ns)", u.release);
  for (int i = 0; i < kCalls; i++) printf("\t%.1f", r[i].ns / rounds);
  printf("\n");
  if (seconds > 0) fprintf(stderr, "syscalls: %ld rounds in %.1f s (%llx)\n", rounds, seconds,
                           (unsigned long long)(sink & 0xff));
  return 0;
}
