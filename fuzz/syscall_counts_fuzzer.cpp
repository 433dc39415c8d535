// Fuzzes the SyscallCounts chunk's decoder (core/syscall_counts.h). Input:
// the chunk's bytes. What decodes must encode and decode again to the same.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/error.h"
#include "core/syscall_counts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kprof::SyscallCounts c = kprof::decode_syscall_counts(std::span(data, size));
    if (kprof::decode_syscall_counts(kprof::encode_syscall_counts(c)) != c) __builtin_trap();
  } catch (const kprof::Error&) {
  }
  return 0;
}
