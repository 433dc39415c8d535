// TimeSlices (core/time_slices.h): counts over slices of equal sample
// count, doubling as the recording grows.
#include "core/time_slices.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace kprof {
namespace {

TEST(TimeSlices, FewSamplesAreOneSliceEach) {
  TimeSlices t;
  EXPECT_EQ(t.slices(), 0u);
  EXPECT_TRUE(t.of(0).empty());
  t.add(1);
  t.add(0);
  t.add(1);
  ASSERT_EQ(t.slices(), 3u);
  EXPECT_EQ(std::vector<uint32_t>(t.of(0).begin(), t.of(0).end()),
            (std::vector<uint32_t>{0, 1, 0}));
  EXPECT_EQ(std::vector<uint32_t>(t.of(1).begin(), t.of(1).end()),
            (std::vector<uint32_t>{1, 0, 1}));
  EXPECT_EQ(std::vector<uint32_t>(t.of(7).begin(), t.of(7).end()), (std::vector<uint32_t>{0, 0, 0}))
      << "an entry never added has no samples anywhere";
}

// Against a plain model: sample i (0-based) of N lies in slice i / w, w the
// smallest power of two with N <= kMax * w.
TEST(TimeSlices, MatchesEqualWidthSlicesOfTheWholeRun) {
  for (uint64_t n : {31ull, 32ull, 33ull, 64ull, 65ull, 1000ull, 4096ull, 12345ull}) {
    TimeSlices t;
    std::vector<uint32_t> entry_of(n);
    for (uint64_t i = 0; i < n; ++i) {
      entry_of[i] = static_cast<uint32_t>((i * 7 + i / 13) % 5);
      t.add(entry_of[i]);
    }
    uint64_t w = 1;
    while (n > TimeSlices::kMax * w) w *= 2;
    const uint64_t slices = (n + w - 1) / w;
    ASSERT_EQ(t.slices(), slices) << n;
    EXPECT_GE(t.slices(), n >= TimeSlices::kMax ? TimeSlices::kMax / 2 : n);
    uint64_t total = 0;
    for (uint32_t e = 0; e < 5; ++e) {
      std::vector<uint32_t> want(slices, 0);
      for (uint64_t i = 0; i < n; ++i) {
        if (entry_of[i] == e) ++want[i / w];
      }
      const auto got = t.of(e);
      EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.end()), want) << n << " entry " << e;
      total += std::accumulate(got.begin(), got.end(), uint64_t{0});
    }
    EXPECT_EQ(total, n);
  }
}

}  // namespace
}  // namespace kprof
