// BigBuffer (core/big_buffer.h): writable room of at least what was asked
// for, on a huge page boundary, reused while it is big enough.
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
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2u << 20), 0u) << "on a 2 MiB boundary";
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

// A hint on someone else's room: whatever the alignment and size, the room
// stays as it was and writable. (Whether the kernel gave huge pages is its
// choice: /proc/self/smaps would say, per mapping; not asserted.)
TEST(BigBuffer, HugePageAdviceLeavesTheRoomAsItWas) {
  for (const size_t n : {size_t{0}, size_t{4096}, size_t{(2u << 20) + 1}, size_t{5u << 20}}) {
    std::vector<uint8_t> room;
    room.reserve(n + 1);
    advise_huge_pages(room.data(), n);
    room.assign(n, 0x5a);
    advise_huge_pages(room.data() + 1, n == 0 ? 0 : n - 1);  // unaligned, written already
    EXPECT_EQ(std::count(room.begin(), room.end(), 0x5a), static_cast<std::ptrdiff_t>(n)) << n;
  }
}

}  // namespace
}  // namespace kprof
