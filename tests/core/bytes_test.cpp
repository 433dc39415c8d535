#include "core/bytes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "core/error.h"

namespace kprof {
namespace {

TEST(Bytes, FixedWidthRoundTripLittleEndian) {
  ByteWriter w;
  w.u8(0xab);
  w.u16(0x1234);
  w.u32(0xdeadbeef);
  w.u64(0x0102030405060708ULL);
  ASSERT_EQ(w.size(), 15u);
  EXPECT_EQ(w.bytes()[1], 0x34);  // little-endian
  EXPECT_EQ(w.bytes()[2], 0x12);
  ByteReader r(w.bytes(), "test");
  EXPECT_EQ(r.u8(), 0xab);
  EXPECT_EQ(r.u16(), 0x1234);
  EXPECT_EQ(r.u32(), 0xdeadbeefu);
  EXPECT_EQ(r.u64(), 0x0102030405060708ULL);
  EXPECT_TRUE(r.done());
}

TEST(Bytes, VarintRoundTripAndSizes) {
  const uint64_t values[] = {
      0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, std::numeric_limits<uint64_t>::max()};
  for (uint64_t v : values) {
    ByteWriter w;
    w.varint(v);
    ByteReader r(w.bytes(), "test");
    EXPECT_EQ(r.varint(), v);
    EXPECT_TRUE(r.done());
  }
  ByteWriter w;
  w.varint(127);
  EXPECT_EQ(w.size(), 1u);
  w.clear();
  w.varint(128);
  EXPECT_EQ(w.size(), 2u);
  w.clear();
  w.varint(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(w.size(), 10u);
}

TEST(Bytes, ZigzagSmallForSmallMagnitudes) {
  const int64_t values[] = {0,
                            -1,
                            1,
                            -64,
                            63,
                            -65,
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max()};
  for (int64_t v : values) {
    ByteWriter w;
    w.svarint(v);
    ByteReader r(w.bytes(), "test");
    EXPECT_EQ(r.svarint(), v);
  }
  ByteWriter w;
  w.svarint(-1);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w.bytes()[0], 1);
  w.clear();
  w.svarint(-64);
  EXPECT_EQ(w.size(), 1u);
}

TEST(Bytes, VarintTooLongOrOverflowingIsAnError) {
  std::vector<uint8_t> eleven(11, 0x80);
  eleven.back() = 0;
  ByteReader r1(eleven, "test");
  EXPECT_THROW(r1.varint(), Error);
  std::vector<uint8_t> overflow(9, 0xff);
  overflow.push_back(0x02);  // bit 64
  ByteReader r2(overflow, "test");
  EXPECT_THROW(r2.varint(), Error);
  std::vector<uint8_t> cut = {0x80, 0x80};
  ByteReader r3(cut, "test");
  EXPECT_THROW(r3.varint(), Error);
}

TEST(Bytes, TruncationMessageNamesContextFieldOffsetAndBytesLeft) {
  std::vector<uint8_t> data = {1, 2, 3};
  ByteReader r(data, "profile chunk 'records'");
  r.u8();
  try {
    r.u32();
    FAIL() << "expected kprof::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("profile chunk 'records'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("u32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("offset 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2 bytes left"), std::string::npos) << msg;
  }
  EXPECT_EQ(r.offset(), 1u);  // a failed read consumes nothing
}

TEST(Bytes, StringsAndRaw) {
  ByteWriter w;
  w.str("hello");
  w.str("");
  const uint8_t raw[] = {9, 8, 7};
  w.raw(raw);
  ByteReader r(w.bytes(), "test");
  EXPECT_EQ(r.str(), "hello");
  EXPECT_EQ(r.str(), "");
  auto got = r.raw(3);
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), std::vector<uint8_t>({9, 8, 7}));
  EXPECT_THROW(r.raw(1), Error);
}

TEST(Bytes, StringLongerThanDataIsAnError) {
  ByteWriter w;
  w.varint(1000);
  w.raw(bytes_of("abc"));
  ByteReader r(w.bytes(), "test");
  EXPECT_THROW(r.str(), Error);
}

TEST(Bytes, CountCheckedAgainstBytesLeft) {
  ByteWriter w;
  w.varint(4);
  w.raw(bytes_of("abcdefgh"));
  {
    ByteReader r(w.bytes(), "test");
    EXPECT_EQ(r.count(2), 4u);
  }
  {
    ByteReader r(w.bytes(), "test");
    EXPECT_THROW(r.count(3), Error);  // 4 * 3 > 8
  }
  ByteWriter huge;
  huge.varint(std::numeric_limits<uint64_t>::max());
  ByteReader r(huge.bytes(), "test");
  EXPECT_THROW(r.count(8), Error);
}

TEST(Bytes, Crc32KnownVectors) {
  EXPECT_EQ(crc32(bytes_of("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32(bytes_of("")), 0u);
  EXPECT_EQ(crc32(bytes_of("The quick brown fox jumps over the lazy dog")), 0x414FA339u);
  // Chaining with a seed equals one pass.
  EXPECT_EQ(crc32(bytes_of("6789"), crc32(bytes_of("12345"))), 0xCBF43926u);
}

TEST(Bytes, ErrnoMessage) {
  EXPECT_EQ(errno_message("cannot open x", ENOENT),
            "cannot open x: " + std::string(std::strerror(ENOENT)));
}

}  // namespace
}  // namespace kprof

namespace kprof {
namespace {

TEST(Bytes, ColumnsAreReadByNameAndCheckedForDamage) {
  static constexpr const char* kNames[] = {"column 'a'", "column 'b'"};
  ByteWriter w;
  w.varint(3);  // a later writer's third column is skipped
  for (std::string_view c : {"xy", "z", "later"}) w.str(c);
  ByteReader r(w.bytes(), "test");
  std::vector<ByteReader> cols = read_columns(r, kNames);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(cols[0].u8(), 'x');
  EXPECT_THROW(expect_columns_done(cols), Error) << "column 'a' has a byte left";
  cols[0].u8();
  cols[1].u8();
  EXPECT_NO_THROW(expect_columns_done(cols));
  ByteWriter few;
  few.varint(1);
  few.str("x");
  ByteReader rf(few.bytes(), "test");
  EXPECT_THROW(read_columns(rf, kNames), Error);
  ByteWriter cut;
  cut.varint(2);
  cut.varint(40);  // longer than what follows
  ByteReader rc(cut.bytes(), "test");
  EXPECT_THROW(read_columns(rc, kNames), Error);
}

}  // namespace
}  // namespace kprof
