// kprof_prog_stripped SECONDS (and kprof_prog_stripped_full, the same file
// before `strip --strip-all`)
// Each round: stripped_first() does 2 units of work, stripped_second() 1, so
// a profile shows them ~2:1 and nearly all of the program's user samples.
// Both are static (internal linkage): once .symtab is stripped, only their
// .eh_frame FDEs still bound them, and the symbolizer names them
// "kprof_prog_stripped+0x<start>". main is exported (.dynsym), so it keeps
// its name. kprof_stripped_nocfi is a few bytes of code with neither an FDE
// nor a symbol that survives strip: the symbolizer's "[unknown]" case.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "prog_common.h"

namespace {
// One unit is ~0.1-0.2 ms, so a round is well under a few ms and the clock is
// checked once per round, not per iteration.
constexpr long kUnitIterations = 50000;
volatile uint64_t g_sink;
}  // namespace

// C language linkage keeps the .symtab names plain; `static` keeps them out
// of .dynsym.
extern "C" {

static __attribute__((noinline)) void stripped_first(long units) {
  volatile uint64_t x = 0x9e3779b97f4a7c15ull;
  for (long i = 0; i < units * kUnitIterations; ++i) x = x * 6364136223846793005ull + 1;
  g_sink = x;
}

static __attribute__((noinline)) void stripped_second(long units) {
  volatile uint64_t x = 0x2545f4914f6cdd1dull;
  for (long i = 0; i < units * kUnitIterations; ++i) x = x * 3935559000370003845ull + 7;
  g_sink = x;
}

}  // extern "C"

// Never called: code without .cfi directives, so no FDE covers it, and a
// local symbol that strip removes.
asm(R"(
  .pushsection .text
  .p2align 4
  .type kprof_stripped_nocfi, @function
kprof_stripped_nocfi:
  .fill 64, 1, 0x90
  ret
  .size kprof_stripped_nocfi, . - kprof_stripped_nocfi
  .popsection
)");

int main(int argc, char** argv) {
  double seconds = kprof_prog_arg_seconds(argc, argv, 1, 0, "SECONDS");
  double end = kprof_prog_now() + seconds;
  long rounds = 0;
  while (kprof_prog_now() < end) {
    stripped_first(2);
    stripped_second(1);
    ++rounds;
  }
  std::printf("rounds %ld\n", rounds);
  return 0;
}
