// Built without .eh_frame (tests/unwind/CMakeLists.txt): code the unwinder
// has no CFI for. It calls back into the caller's function so the capture
// happens with this library's frame on the stack.
#include "tests/unwind/nocfi_lib.h"

extern "C" __attribute__((noinline)) void unwind_nocfi_call(void (*fn)(void*), void* arg) {
  volatile char pad[48];  // a frame of its own, not a frame pointer chain
  pad[0] = 1;
  fn(arg);
  pad[1] = pad[0];
}
