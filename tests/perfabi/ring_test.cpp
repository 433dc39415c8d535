// The ring buffer reader (perfabi/perf_record.h ring_records) on plain
// memory: records in order, one that wraps the end, and the damage a ring
// can show.
#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "perfabi/perf_record.h"
#include "perfabi/spool.h"
#include "tests/perfabi/perf_record_builder.h"

namespace kprof::perfabi {
namespace {

using namespace testing;

// The records ring_records gives, split again by their headers.
std::vector<std::vector<uint8_t>> read_all(std::span<const uint8_t> ring, uint64_t tail,
                                           uint64_t head, RingRead* out) {
  RingBytes bytes;
  *out = ring_records(ring, tail, head, bytes);
  std::vector<uint8_t> all(bytes.first.begin(), bytes.first.end());
  all.insert(all.end(), bytes.second.begin(), bytes.second.end());
  std::vector<std::vector<uint8_t>> recs;
  for (size_t at = 0; at < all.size();) {
    const size_t size = all[at + 6] | (all[at + 7] << 8);
    recs.emplace_back(all.begin() + static_cast<long>(at),
                      all.begin() + static_cast<long>(at + size));
    at += size;
  }
  EXPECT_EQ(recs.size(), out->records);
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

TEST(Ring, SpoolKeepsTheBytesAsTheRecordsTheyAre) {
  // What kprof record does with them: a lost record and samples, wrapping
  // the end mid-record, copied in one go and counted from their headers.
  std::vector<uint8_t> ring(256);
  const std::vector<std::vector<uint8_t>> recs = {
      sample_record(0x11, 1, PERF_RECORD_MISC_USER),
      PerfRecord(PERF_RECORD_LOST).u64(1).u64(5).trailer(0, 0, 2, 0).done(),
      sample_record(0x22, 3, PERF_RECORD_MISC_KERNEL)};
  uint64_t head = 256 * 7 - 40;
  const uint64_t tail = head;
  for (const auto& r : recs) {
    put(ring, head, r);
    head += r.size();
  }
  RingBytes bytes;
  const RingRead r = ring_records(ring, tail, head, bytes);
  ASSERT_FALSE(bytes.second.empty()) << "the records wrap";
  EXPECT_EQ(r.records, 3u);
  Spool spool(kLayout);
  spool.add(bytes);
  spool.end_block();
  EXPECT_EQ(spool.samples, 2u);
  EXPECT_EQ(spool.lost, 5u);
  Collect c;
  decode_spool(spool.take(), c);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].ip, 0x11u);
  EXPECT_EQ(c.samples[1].ip, 0x22u);
  ASSERT_EQ(c.lost.size(), 1u);
  EXPECT_EQ(c.lost[0].count, 5u);
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
