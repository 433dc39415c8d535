// Built twice (tests/unwind/CMakeLists.txt), both without .eh_frame for this
// function: as unwind_nocfi_call with no CFI at all, and as
// unwind_debug_frame_call with -g, so its only CFI is the file's
// .debug_frame. It calls back into the test so the capture happens with
// this library's frame on the stack.
#include "tests/unwind/nocfi_lib.h"

#ifndef UNWIND_LIB_FN
#define UNWIND_LIB_FN unwind_nocfi_call
#endif

extern "C" __attribute__((noinline)) void UNWIND_LIB_FN(void (*fn)(void*), void* arg) {
  volatile char pad[48];  // a frame of its own, not a frame pointer chain
  pad[0] = 1;
  fn(arg);
  pad[1] = pad[0];
}
