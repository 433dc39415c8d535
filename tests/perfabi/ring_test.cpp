// The ring buffer reader (perfabi/perf_record.h read_ring) on plain
// memory: records in order, one that wraps the end, and the damage a ring
// can show.
#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "perfabi/perf_record.h"
#include "tests/perfabi/perf_record_builder.h"

namespace kprof::perfabi {
namespace {

using namespace testing;

std::vector<std::vector<uint8_t>> read_all(std::span<const uint8_t> ring, uint64_t tail,
                                           uint64_t head, RingRead* out) {
  std::vector<std::vector<uint8_t>> recs;
  std::vector<uint8_t> scratch;
  *out = read_ring(ring, tail, head, scratch,
                   [&](std::span<const uint8_t> r) { recs.emplace_back(r.begin(), r.end()); });
  return recs;
}

// Writes `rec` into the ring at free-running position `pos`, wrapping.
void put(std::vector<uint8_t>& ring, uint64_t pos, const std::vector<uint8_t>& rec) {
  for (size_t i = 0; i < rec.size(); ++i) ring[(pos + i) % ring.size()] = rec[i];
}

TEST(Ring, ReadsRecordsInOrder) {
  std::vector<uint8_t> ring(256);
  auto a = sample_record(1, 1, 0), b = sample_record(2, 2, 0);
  put(ring, 0, a);
  put(ring, a.size(), b);
  RingRead r;
  auto recs = read_all(ring, 0, a.size() + b.size(), &r);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0], a);
  EXPECT_EQ(recs[1], b);
  EXPECT_EQ(r.tail, a.size() + b.size());
  EXPECT_FALSE(r.damaged);
}

TEST(Ring, RecordWrappingTheEndIsContiguous) {
  std::vector<uint8_t> ring(128);
  auto rec = PerfRecord(PERF_RECORD_COMM)
                 .u32(5)
                 .u32(5)
                 .str("a-long-command-name")
                 .trailer(5, 5, 123, 0)
                 .done();
  // Start 24 bytes before the end, far into the free-running counter.
  const uint64_t tail = 128 * 1000 - 24;
  put(ring, tail, rec);
  RingRead r;
  auto recs = read_all(ring, tail, tail + rec.size(), &r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0], rec);
  Collect c;
  decode_perf_record(recs[0], kLayout, c);
  ASSERT_EQ(c.comms.size(), 1u);
  EXPECT_EQ(c.comms[0].comm, "a-long-command-name");
  EXPECT_EQ(r.tail, tail + rec.size());
}

TEST(Ring, HeaderWrappingTheEnd) {
  std::vector<uint8_t> ring(64);
  auto rec = sample_record(0xabc, 9, PERF_RECORD_MISC_USER);
  const uint64_t tail = 64 - 4;  // the 8-byte header itself is split
  put(ring, tail, rec);
  RingRead r;
  auto recs = read_all(ring, tail, tail + rec.size(), &r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0], rec);
}

TEST(Ring, RecordCrossingHeadIsDamage) {
  // The kernel publishes data_head after whole records only, so a record
  // reaching past it means a damaged ring: skip to head, never read past it.
  std::vector<uint8_t> ring(128);
  auto a = sample_record(1, 1, 0), b = sample_record(2, 2, 0);
  put(ring, 0, a);
  put(ring, a.size(), b);
  RingRead r;
  auto recs = read_all(ring, 0, a.size() + b.size() - 8, &r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0], a);
  EXPECT_TRUE(r.damaged);
  EXPECT_EQ(r.tail, a.size() + b.size() - 8);
}

TEST(Ring, ZeroSizeHeaderIsDamageNotALoop) {
  std::vector<uint8_t> ring(128, 0);
  RingRead r;
  auto recs = read_all(ring, 0, 64, &r);
  EXPECT_TRUE(recs.empty());
  EXPECT_TRUE(r.damaged);
  EXPECT_EQ(r.tail, 64u);
}

TEST(Ring, HeadTooFarAheadIsDamage) {
  std::vector<uint8_t> ring(128, 0);
  RingRead r;
  read_all(ring, 0, 1000, &r);
  EXPECT_TRUE(r.damaged);
  EXPECT_EQ(r.tail, 1000u);
}

}  // namespace
}  // namespace kprof::perfabi
