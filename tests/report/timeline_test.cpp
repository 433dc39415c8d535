// report --timeline (report/timeline.h): slice edges from the sample clock,
// each row's share per slice, and the cases it refuses.
#include "report/timeline.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace kprof {
namespace {

constexpr uint64_t kStart = 5'000'000'000;
constexpr uint64_t kMs = 1'000'000;

// Two functions over 4 slices of 4 samples: "steady" in every slice, "late"
// only in the last two (a phase change), "early" only in the first.
Histogram phased() {
  Histogram h;
  h.images = {{"/bin/app", ""}};
  h.rows = {{0, "steady", Mode::User, 8, 8, 0, 0, false, {2, 2, 2, 2}},
            {0, "late", Mode::User, 5, 5, 0, 0, false, {0, 0, 3, 2}},
            {0, "early", Mode::User, 1, 1, 0, 0, false, {1, 0, 0, 0}}};
  // Slice totals: 3, 2, 5, 4 (samples of other rows are not in this table).
  return h;
}

// 14 samples, 1 ms apart but for a pause after the 8th.
std::vector<uint64_t> clock_times() {
  std::vector<uint64_t> t;
  for (uint64_t i = 0; i < 14; ++i)
    t.push_back(kStart + 100 * kMs + i * kMs + (i >= 8 ? 50 * kMs : 0));
  return t;
}

TEST(Timeline, SharesPerSliceShowAPhaseChange) {
  std::string why;
  const auto t = build_timeline(phased(), clock_times(), kStart, 10, &why);
  ASSERT_TRUE(t) << why;
  ASSERT_EQ(t->slices(), 4u);
  EXPECT_EQ(t->in_slice, (std::vector<uint64_t>{4, 4, 4, 2}));
  ASSERT_EQ(t->edges.size(), 5u);
  EXPECT_EQ(t->edges[0], kStart + 100 * kMs);
  EXPECT_EQ(t->edges[2], kStart + 158 * kMs) << "the 9th sample, after the pause";
  EXPECT_EQ(t->edges[4], kStart + 163 * kMs) << "the last sample";
  EXPECT_NEAR(t->rate[0], 1000.0, 1e-6) << "4 samples in 4 ms";
  EXPECT_NEAR(t->rate[1], 4 / 0.054, 1e-6) << "the pause is in slice 1";
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_EQ(t->rows[0].function, "steady");
  EXPECT_EQ(t->rows[1].function, "late");
  EXPECT_EQ(t->rows[1].share, (std::vector<double>{0, 0, 3.0 / 5, 2.0 / 4}));
  EXPECT_EQ(t->total, 14u);

  std::ostringstream out;
  write_timeline(out, *t);
  const std::string text = out.str();
  EXPECT_NE(text.find("4 slices of 4 samples each, from 0.10 s to 0.16 s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("▁▁█▇"), std::string::npos) << "late: nothing, then most" << text;
  EXPECT_NE(text.find("█▁▁▁"), std::string::npos) << "early" << text;
  EXPECT_NE(text.find("highest at 0.16 s"), std::string::npos) << text;
}

TEST(Timeline, TopCutsTheRows) {
  std::string why;
  const auto t = build_timeline(phased(), clock_times(), kStart, 1, &why);
  ASSERT_TRUE(t) << why;
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(t->rows[0].function, "steady");
}

TEST(Timeline, RefusesRowsWithoutSlicesOrAClockThatDoesNotFit) {
  std::string why;
  Histogram flat = phased();
  for (FunctionCount& r : flat.rows) r.slices.clear();
  EXPECT_FALSE(build_timeline(flat, clock_times(), kStart, 10, &why));
  EXPECT_NE(why.find("no time slices"), std::string::npos) << why;
  // 4 slices cannot hold 40 samples (widths are powers of two: 16 would
  // leave 3 slices), nor 3.
  std::vector<uint64_t> many(40, kStart);
  EXPECT_FALSE(build_timeline(phased(), many, kStart, 10, &why));
  EXPECT_NE(why.find("do not fit"), std::string::npos) << why;
  EXPECT_FALSE(build_timeline(phased(), std::vector<uint64_t>(3, kStart), kStart, 10, &why));
  EXPECT_FALSE(build_timeline(phased(), {}, kStart, 10, &why));
}

}  // namespace
}  // namespace kprof
