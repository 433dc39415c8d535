// The SyscallCounts chunk (core/syscall_counts.h): round trip, and damage
// is one clear error naming the chunk, never a crash or a wrong count.
#include "core/syscall_counts.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace kprof {
namespace {

SyscallCounts sample() {
  SyscallCounts c;
  c.calls = {{"chdir", 100002}, {"newuname", 7}, {"openat", uint64_t{1} << 40}};
  c.source = "syscalls:sys_enter_* tracepoints (360 of 360 counted)";
  return c;
}

TEST(SyscallCounts, RoundTripAndTotal) {
  EXPECT_EQ(decode_syscall_counts(encode_syscall_counts(sample())), sample());
  EXPECT_EQ(sample().total(), 100009 + (uint64_t{1} << 40));
  EXPECT_EQ(decode_syscall_counts(encode_syscall_counts({})), SyscallCounts{});
}

TEST(SyscallCounts, TruncationIsAClearError) {
  const std::vector<uint8_t> bytes = encode_syscall_counts(sample());
  size_t errors = 0;
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    try {
      const SyscallCounts got = decode_syscall_counts(std::span<const uint8_t>(bytes.data(), cut));
      // A cut after the calls list may drop the source, never a count.
      EXPECT_EQ(got.calls, sample().calls) << "cut at " << cut;
    } catch (const Error& e) {
      ++errors;
      EXPECT_NE(std::string(e.what()).find("syscall counts"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(errors, 0u);
}

TEST(SyscallCounts, ACallTwiceIsDamage) {
  // Hand-built: one field, a list of two entries with the same name.
  const std::vector<uint8_t> twice = {1, 2, 5,   'c', 'h', 'd', 'i', 'r',
                                      1, 5, 'c', 'h', 'd', 'i', 'r', 2};
  try {
    (void)decode_syscall_counts(twice);
    FAIL() << "a call listed twice was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a system call twice"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kprof
