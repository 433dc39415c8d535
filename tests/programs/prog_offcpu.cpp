// A known split of wall time for `kprof record --off-cpu` (issue 26): in
// rounds of 100 ms the main thread computes 50 ms (compute), sleeps 30 ms in
// nanosleep (sleep_part) and blocks 20 ms reading a pipe that a second
// thread fills after its own 20 ms sleep (wait_for_pipe). It prints what
// it measured itself, so tests compare kprof's figures with the program's
// own clock, not with constants:
//   offcpu compute_ms=X sleep_ms=Y pipe_ms=Z wall_ms=W main_tid=T start_ns=S end_ns=E
// S and E are CLOCK_MONOTONIC (the clock kprof's records carry) when the
// timed loop began and after the second thread was joined.
//
// With a second argument HOLD (seconds), the two threads share one CPU and
// the filler, after each write, keeps that CPU for HOLD (hold_cpu) as
// SCHED_FIFO where allowed: the main thread, woken by the write, waits on
// the run queue for HOLD each round, woken by the filler's pipe write
// (kprof record --off-cpu --wakers). It then also prints
//   offcpu_hold fifo=1|0
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "prog_common.h"

namespace {
int go_pipe[2], done_pipe[2];
volatile unsigned long sink;

unsigned long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull +
         static_cast<unsigned long long>(ts.tv_nsec);
}
}  // namespace

extern "C" {

void compute(double seconds) {
  const double end = kprof_prog_now() + seconds;
  unsigned long x = 1;
  while (kprof_prog_now() < end) {
    for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  }
  sink = x;
}

void sleep_part(double seconds) {
  timespec ts{0, static_cast<long>(seconds * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

void wait_for_pipe() {
  char c = 1;
  if (write(go_pipe[1], &c, 1) != 1 || read(done_pipe[0], &c, 1) != 1) _exit(3);
}

void hold_cpu(double seconds) {
  const double end = kprof_prog_now() + seconds;
  while (kprof_prog_now() < end) {
  }
}

struct FillerArgs {
  double fill = 0.020, hold = 0;
  int fifo = 0;  // set by the filler: 1 when it runs SCHED_FIFO
};

void* filler(void* arg) {
  auto* a = static_cast<FillerArgs*>(arg);
  if (a->hold > 0) {
    sched_param param{};
    param.sched_priority = 1;
    a->fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0 ? 1 : 0;
  }
  char c;
  while (read(go_pipe[0], &c, 1) == 1) {
    if (c == 0) break;
    sleep_part(a->fill);
    if (write(done_pipe[1], &c, 1) != 1) _exit(3);
    if (a->hold > 0) hold_cpu(a->hold);
  }
  return nullptr;
}
}

int main(int argc, char** argv) {
  const char* usage = "usage: prog_offcpu [SECONDS [HOLD]]";
  const double total = kprof_prog_arg_seconds(argc, argv, 1, 1.0, usage);
  FillerArgs args;
  if (argc > 2) {
    args.hold = kprof_prog_arg_seconds(argc, argv, 2, 0, usage);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return 3;  // the thread inherits it
  }
  if (pipe(go_pipe) != 0 || pipe(done_pipe) != 0) return 3;
  pthread_t t;
  if (pthread_create(&t, nullptr, filler, &args) != 0) return 3;
  const double start = kprof_prog_now();
  const unsigned long long start_ns = monotonic_ns();
  double compute_s = 0, sleep_s = 0, pipe_s = 0;
  const int rounds = total < 0.1 ? 1 : static_cast<int>(total / 0.1 + 0.5);
  for (int i = 0; i < rounds; ++i) {
    double t0 = kprof_prog_now();
    compute(0.050);
    double t1 = kprof_prog_now();
    sleep_part(0.030);
    double t2 = kprof_prog_now();
    wait_for_pipe();
    double t3 = kprof_prog_now();
    compute_s += t1 - t0;
    sleep_s += t2 - t1;
    pipe_s += t3 - t2;
  }
  const double wall = kprof_prog_now() - start;
  char stop = 0;
  if (write(go_pipe[1], &stop, 1) != 1) return 3;
  pthread_join(t, nullptr);
  const unsigned long long end_ns = monotonic_ns();
  std::printf(
      "offcpu compute_ms=%.3f sleep_ms=%.3f pipe_ms=%.3f wall_ms=%.3f main_tid=%ld start_ns=%llu "
      "end_ns=%llu\n",
      compute_s * 1e3, sleep_s * 1e3, pipe_s * 1e3, wall * 1e3,
      static_cast<long>(syscall(SYS_gettid)), start_ns, end_ns);
  if (args.hold > 0) std::printf("offcpu_hold fifo=%d\n", args.fifo);
  return 0;
}
