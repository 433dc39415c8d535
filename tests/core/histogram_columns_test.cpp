// The Histogram chunk's column layout (format_codec.cpp): what kprof writes.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "tests/core/test_util.h"
#include "tests/support/histogram_rows.h"

namespace kprof {
namespace {

// Rows come back sorted by image and peak address: compare as sets.
Histogram sorted(Histogram h) {
  std::sort(h.rows.begin(), h.rows.end());
  return h;
}

TEST(HistogramColumns, RoundTrip) {
  const Histogram h = testing::sample_histogram();
  EXPECT_EQ(sorted(decode_histogram_columns(encode_histogram_columns(h))), sorted(h));
  EXPECT_EQ(decode_histogram_columns(encode_histogram_columns(Histogram{})), Histogram{});
  // Periods that are no multiple of a typical one, wrapping sums, peak ips
  // out of order, every mode.
  Histogram odd;
  odd.images = {{"[kernel]", ""}, {"a", ""}, {"b", "00"}};
  for (uint32_t i = 0; i < 50; ++i) {
    odd.rows.push_back({i % 3, "f" + std::to_string(i), static_cast<Mode>(i % 4), i * 7 + 1,
                        i % 5 == 0 ? UINT64_MAX - i : i * 1'000'003, i % 2 ? i : 0,
                        i % 7 == 0 ? UINT64_MAX - i * 64 : 0x400000 + (49 - i) * 64, i % 2 == 1});
  }
  EXPECT_EQ(sorted(decode_histogram_columns(encode_histogram_columns(odd))), sorted(odd));
}

TEST(HistogramColumns, SmallerThanTheRowLayoutOnceCompressed) {
  // A timer's histogram: every period a multiple of one, names that share
  // prefixes, peak ips near each other.
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "ab12"}};
  for (uint32_t i = 0; i < 2000; ++i) {
    const uint64_t samples = 1 + (i * 37) % 90;
    h.rows.push_back({1,
                      "std::vector<tree_node*, va_gc>::operator[](unsigned long) #" +
                          std::to_string(i * 7919 % 2000),
                      Mode::User, samples, samples * 1'001'001, samples / 2 + 1,
                      0x555555554000ULL + i * 0x1f3ULL, false});
  }
  const size_t rows = pack_chunk(ChunkType::Histogram, encode_histogram_rows(h)).bytes.size();
  const size_t columns =
      pack_chunk(ChunkType::HistogramColumns, encode_histogram_columns(h)).bytes.size();
  EXPECT_LT(columns * 4, rows * 3) << "rows " << rows << " columns " << columns;
}

TEST(HistogramColumns, DamageIsAnError) {
  const auto bytes = encode_histogram_columns(testing::sample_histogram());
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + cut);
    EXPECT_THROW(decode_histogram_columns(part), Error) << "cut at " << cut;
  }
  Histogram bad = testing::sample_histogram();
  bad.rows[0].image = 9;  // no such image
  EXPECT_THROW(decode_histogram_columns(encode_histogram_columns(bad)), Error);
  bad = testing::sample_histogram();
  bad.rows[1].peak_samples = bad.rows[1].samples + 1;
  EXPECT_THROW(decode_histogram_columns(encode_histogram_columns(bad)), Error);
  // Bytes left over in the last column (slices: its length 1, then a slice
  // count of 0), and an unknown flag (the flags column ends just before).
  ASSERT_EQ(bytes[bytes.size() - 2], 1);
  ASSERT_EQ(bytes.back(), 0);
  std::vector<uint8_t> more = bytes;
  more[more.size() - 2] += 1;
  more.push_back(0);
  EXPECT_THROW(decode_histogram_columns(more), Error);
  std::vector<uint8_t> flag = bytes;
  flag[flag.size() - 3] = 7;
  EXPECT_THROW(decode_histogram_columns(flag), Error);
}

// Time slices: every row has as many (or none), they add up to its samples.
TEST(HistogramColumns, SlicesRoundTripAndAreChecked) {
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/bin/app", ""}};
  h.rows.push_back({0, "a", Mode::Kernel, 6, 600, 6, 0xffffffff81000000, false, {1, 0, 5, 0}});
  h.rows.push_back({1, "b", Mode::User, 3, 300, 3, 0x400000, false, {0, 0, 0, 3}});
  h.rows.push_back({1, "c", Mode::User, 4, 400, 4, 0x400100, false, {1, 1, 1, 1}});
  EXPECT_EQ(sorted(decode_histogram_columns(encode_histogram_columns(h))), sorted(h));
  EXPECT_EQ(h.slice_totals(), (std::vector<uint64_t>{2, 1, 6, 4}));
  // Rows that disagree on how many slices: none are written.
  Histogram mixed = h;
  mixed.rows[1].slices = {3};
  const Histogram back = decode_histogram_columns(encode_histogram_columns(mixed));
  EXPECT_TRUE(mixed.slice_totals().empty());
  for (const FunctionCount& row : back.rows) EXPECT_TRUE(row.slices.empty());
  // Slices that do not add up to the row's samples are damage.
  Histogram bad = h;
  bad.rows[2].slices = {1, 1, 1, 2};
  EXPECT_THROW(decode_histogram_columns(encode_histogram_columns(bad)), Error);
  const auto bytes = encode_histogram_columns(h);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + cut);
    EXPECT_THROW(decode_histogram_columns(part), Error) << "cut at " << cut;
  }
}

// A file written before the 'slices' column (8 columns) still reads: its
// rows have no slices.
TEST(HistogramColumns, EightColumnsFromOlderWritersStillRead) {
  Histogram h = testing::sample_histogram();
  std::vector<uint8_t> bytes = encode_histogram_columns(h);
  // The chunk ends with the columns field: the column count (9), then each
  // column, the last 'slices' with a count of 0 (2 bytes: length 1, 0).
  // Drop that column and say 8: the count is a byte 9 somewhere before.
  ASSERT_EQ(bytes[bytes.size() - 2], 1);
  bytes.resize(bytes.size() - 2);
  const Histogram want = decode_histogram_columns(encode_histogram_columns(h));
  bool rewritten = false;
  for (size_t i = 0; i + 1 < bytes.size() && !rewritten; ++i) {
    if (bytes[i] != 9) continue;
    std::vector<uint8_t> old = bytes;
    old[i] = 8;
    try {
      EXPECT_EQ(sorted(decode_histogram_columns(old)), sorted(want));
      rewritten = true;
    } catch (const Error&) {
    }
  }
  EXPECT_TRUE(rewritten) << "no 8-column form of the chunk decoded";
}

// A complete file with the column layout uses its histogram: it reads
// back, and the records are not counted again (the chunk headers say a
// histogram is there).
TEST(HistogramColumns, ACompleteFileUsesIt) {
  testing::TempDir dir;
  const std::string path = dir.file("c.kprof");
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(testing::sample_run_info()));
    w.write_chunk(ChunkType::Summary, encode_summary(testing::sample_summary()));
    w.write_chunk(ChunkType::HistogramColumns,
                  encode_histogram_columns(testing::sample_histogram()));
    w.write_end();
  }
  const Profile p = perfabi::load_profile(path);
  EXPECT_TRUE(p.status.complete) << p.status.problem;
  ASSERT_TRUE(p.histogram);
  EXPECT_TRUE(p.histogram_usable());
  EXPECT_FALSE(p.counted);
  EXPECT_EQ(sorted(*p.histogram), sorted(testing::sample_histogram()));
  EXPECT_EQ(p.status.chunks.at(static_cast<uint16_t>(ChunkType::HistogramColumns)), 1u);
}

}  // namespace
}  // namespace kprof
