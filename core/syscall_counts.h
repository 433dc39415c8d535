// How many times the profiled work made each system call, counted exactly
// while it was sampled (kprof record --syscalls: collector/syscall_counter.h).
// Per-call views (report/per_call.h) divide the samples under each call's
// kernel entry by these counts. Stored as one chunk (core/file_layout.h
// ChunkType::SyscallCounts), written when recording ends.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace kprof {

struct SyscallCounts {
  // Per system call, by its kernel name (the SYSCALL_DEFINE name, as in
  // __x64_sys_NAME and the syscalls:sys_enter_NAME tracepoint: "chdir",
  // "newuname", "openat"), the calls counted; calls never made are absent.
  std::map<std::string, uint64_t> calls;
  // How they were counted: "syscalls:sys_enter_* tracepoints (361 counted)".
  std::string source;
  uint64_t total() const;
  auto operator<=>(const SyscallCounts&) const = default;
};

// The chunk's payload; decode throws kprof::Error on damage (bounds-checked;
// fuzzed: fuzz/syscall_counts_fuzzer.cpp).
std::vector<uint8_t> encode_syscall_counts(const SyscallCounts&);
SyscallCounts decode_syscall_counts(std::span<const uint8_t>);

}  // namespace kprof
