// BigBuffer (core/big_buffer.h): writable room of at least what was asked
// for, on a page boundary, reused while it is big enough.
#include "core/big_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kprof {
namespace {

TEST(BigBuffer, GivesWritableRoomAndKeepsItWhileItIsBigEnough) {
  BigBuffer b;
  EXPECT_EQ(b.capacity(), 0u);
  uint8_t* p = b.reserve(100000);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(b.capacity(), 100000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u) << "on a page boundary";
  std::memset(p, 0xab, 100000);
  EXPECT_EQ(b.reserve(5000), p) << "smaller: the same room";
  EXPECT_EQ(p[99999], 0xab);
  const size_t big = b.capacity() + 1;
  uint8_t* q = b.reserve(big);
  EXPECT_GE(b.capacity(), big);
  std::memset(q, 1, big);  // all of it writable
  BigBuffer moved(std::move(b));
  EXPECT_GE(moved.capacity(), big);
  EXPECT_EQ(b.capacity(), 0u) << "moved from: holds nothing";  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.reserve(big), q);
}

}  // namespace
}  // namespace kprof
