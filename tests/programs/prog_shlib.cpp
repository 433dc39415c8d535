// kprof_prog_shlib SECONDS: burns CPU in kprof_lib_spin() of
// libkprof_proglib.so (linked normally, found through the build rpath).
#include <cstdio>

#include "prog_common.h"
#include "proglib.h"

int main(int argc, char** argv) {
  double seconds = kprof_prog_arg_seconds(argc, argv, 1, 0, "SECONDS");
  std::printf("iterations %ld\n", kprof_lib_spin(seconds));
  return 0;
}
