// The PerfRecords chunk: ring bytes spooled as they are, counted from their
// headers, decoded later with every ring's records merged by time.
#include "perfabi/spool.h"

#include <gtest/gtest.h>

#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "tests/core/test_util.h"
#include "tests/perfabi/perf_record_builder.h"

namespace kprof::perfabi {
namespace {

using namespace testing;

TEST(Spool, CountsFromHeadersAndMergesRingsByTime) {
  Spool spool(kLayout);
  // Ring 0 and ring 1, each in its own time order, interleaved in time.
  for (uint64_t t : {100, 300, 500}) spool.add(sample_record(0x1000 + t, t, PERF_RECORD_MISC_USER));
  spool.add(PerfRecord(PERF_RECORD_LOST).u64(1).u64(17).trailer(0, 0, 550, 0).done());
  spool.end_block();
  spool.add(
      PerfRecord(PERF_RECORD_COMM).u32(10).u32(10).str("worker").trailer(10, 10, 200, 1).done());
  for (uint64_t t : {250, 400}) spool.add(sample_record(0x2000 + t, t, PERF_RECORD_MISC_KERNEL));
  spool.add(PerfRecord(PERF_RECORD_LOST_SAMPLES).u64(4).trailer(0, 0, 450, 1).done());
  spool.add(PerfRecord(PERF_RECORD_THROTTLE).u64(460).u64(1).u64(1).trailer(0, 0, 460, 1).done());
  spool.end_block();
  EXPECT_EQ(spool.samples, 5u);
  EXPECT_EQ(spool.lost, 21u);
  EXPECT_EQ(spool.throttled, 1u);
  EXPECT_FALSE(spool.empty());

  const std::vector<uint8_t> payload = spool.take();
  EXPECT_TRUE(spool.empty());
  struct Order : Collect {
    std::vector<uint64_t> times;
    uint64_t throttles = 0;
    void on_sample(const Sample& s) override {
      Collect::on_sample(s);
      times.push_back(s.time);
    }
    void on_comm(const Comm& c) override {
      Collect::on_comm(c);
      times.push_back(c.time);
    }
    void on_lost(const Lost& l) override {
      Collect::on_lost(l);
      times.push_back(l.time);
    }
    void on_throttle(uint64_t) override { ++throttles; }
  } sink;
  uint64_t damaged = 0;
  decode_spool(payload, sink, &damaged);
  EXPECT_EQ(damaged, 0u);
  EXPECT_EQ(sink.times, (std::vector<uint64_t>{100, 200, 250, 300, 400, 450, 500, 550}));
  ASSERT_EQ(sink.samples.size(), 5u);
  EXPECT_EQ(sink.samples[1].ip, 0x2000u + 250);
  EXPECT_EQ(sink.samples[1].mode, Mode::Kernel);
  ASSERT_EQ(sink.comms.size(), 1u);
  EXPECT_EQ(sink.comms[0].comm, "worker");
  EXPECT_EQ(sink.lost.size(), 2u);
  EXPECT_EQ(sink.throttles, 1u);

  // The next chunk starts afresh (its own layout header, no old blocks).
  spool.add(sample_record(0x3000, 900, PERF_RECORD_MISC_USER));
  Collect next;
  decode_spool(spool.take(), next);
  ASSERT_EQ(next.samples.size(), 1u);
  EXPECT_EQ(next.samples[0].ip, 0x3000u);
}

// An --off-cpu chunk (or one of several events) carries its event table:
// the samples read back with their kinds and the switches in time order with the rest.
TEST(Spool, CarriesTheEventTableOfOffCpuRecordings) {
  SampleLayout layout{PERF_SAMPLE_IDENTIFIER | kSampleType, true};
  layout.kinds = {{7, SampleKind::SwitchOut}, {9, SampleKind::Wakeup}, {5, SampleKind::Event, 2}};
  layout.wakee_offset = 24;
  Spool spool(layout);
  auto sample = [](uint64_t id, uint64_t time) {
    return PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL)
        .u64(id)
        .u64(0x1000)
        .u32(10)
        .u32(11)
        .u64(time)
        .u32(0)
        .u32(0)
        .u64(1)
        .done();
  };
  spool.add(sample(7, 100));
  const std::vector<uint8_t> switch_out =
      PerfRecord(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT)
          .u32(10)
          .u32(11)
          .u64(101)
          .u32(0)
          .u32(0)
          .u64(7)
          .done();
  spool.add(switch_out);
  spool.add(sample(5, 120));
  spool.add(sample(3, 150));
  spool.end_block();
  Collect c;
  uint64_t damaged = 0;
  decode_spool(spool.take(), c, &damaged);
  EXPECT_EQ(damaged, 0u);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[0].kind, SampleKind::SwitchOut);
  EXPECT_EQ(c.samples[1].kind, SampleKind::Event) << "another sampled event (-e A,B)";
  EXPECT_EQ(c.samples[1].event, 2u);
  EXPECT_EQ(c.samples[2].kind, SampleKind::Cpu);
  ASSERT_EQ(c.switches.size(), 1u);
  EXPECT_EQ(c.switches[0], (Switch{101, 10, 11, 0, true, false}));
  // What compaction asks for: only what a Records chunk keeps, in the same order.
  Spool again(layout);
  again.add(sample(7, 100));
  again.add(switch_out);
  again.add(sample(5, 120));
  again.add(sample(9, 130));  // a wakeup
  again.add(sample(3, 150));
  again.end_block();
  Collect kept;
  decode_spool(again.take(), kept, nullptr, SpoolRecords::kKept);
  ASSERT_EQ(kept.samples.size(), 2u);
  EXPECT_EQ(kept.samples[0].kind, SampleKind::Event);
  EXPECT_EQ(kept.samples[1].kind, SampleKind::Cpu);
  EXPECT_TRUE(kept.switches.empty());
  // A table longer than the chunk is damage of the chunk.
  std::vector<uint8_t> bad = Spool(layout).take();
  bad[17] = 0xff;  // the table's count
  EXPECT_THROW(decode_spool(bad, c), Error);
  // An event sample of event 0 (the first event's are not so stored) too:
  // the third entry's number, after the count (4 bytes at 17) and two
  // entries of an id and a kind (9 bytes each), then its own id and kind.
  std::vector<uint8_t> zero = Spool(layout).take();
  ASSERT_EQ(zero[17 + 4 + 9 + 9 + 8], static_cast<uint8_t>(SampleKind::Event));
  std::fill_n(zero.begin() + 17 + 4 + 9 + 9 + 9, 4, 0);
  EXPECT_THROW(decode_spool(zero, c), Error);
}

// What the merge orders by is the time each delivered record carries (a
// fork's or exit's own, not its trailer's); equal times keep ring order;
// throttles come first; and an error the sink throws is its own, not a
// damaged record's.
TEST(Spool, OrdersByTheDeliveredTimeAndLetsTheSinksErrorsThrough) {
  Spool spool(kLayout);
  spool.add(sample_record(0xa1, 100, PERF_RECORD_MISC_USER));
  spool.add(sample_record(0xa2, 200, PERF_RECORD_MISC_USER));
  spool.add(sample_record(0xa3, 300, PERF_RECORD_MISC_USER));
  spool.end_block();
  // A fork whose own time (150) is not its trailer's (999).
  spool.add(PerfRecord(PERF_RECORD_FORK)
                .u32(7)
                .u32(1)
                .u32(7)
                .u32(1)
                .u64(150)
                .trailer(7, 7, 999, 1)
                .done());
  spool.add(sample_record(0xb2, 200, PERF_RECORD_MISC_KERNEL));  // ties 0xa2: after it
  spool.add(PerfRecord(PERF_RECORD_THROTTLE).u64(250).u64(1).u64(1).trailer(0, 0, 250, 1).done());
  spool.add(PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER).u64(0x1).done());  // damaged
  spool.add(
      PerfRecord(PERF_RECORD_EXIT).u32(7).u32(1).u32(7).u32(1).u64(250).trailer(7, 7, 1, 1).done());
  spool.end_block();
  const std::vector<uint8_t> payload = spool.take();

  struct Order : RecordSink {
    std::vector<std::string> seen;
    void on_sample(const Sample& s) override { seen.push_back("s" + std::to_string(s.ip)); }
    void on_fork(const Fork& f) override { seen.push_back("f" + std::to_string(f.time)); }
    void on_exit(const Fork& f) override { seen.push_back("e" + std::to_string(f.time)); }
    void on_throttle(uint64_t t) override { seen.push_back("t" + std::to_string(t)); }
  } order;
  uint64_t damaged = 0;
  decode_spool(payload, order, &damaged);
  EXPECT_EQ(damaged, 1u);
  EXPECT_EQ(order.seen,
            (std::vector<std::string>{"t250", "s161", "f150", "s162", "s178", "e250", "s163"}));

  struct Refuses : RecordSink {
    int samples = 0;
    void on_sample(const Sample&) override {
      if (++samples == 2) throw Error("the sink's own error");
    }
  } refuses;
  uint64_t counted = 0;
  EXPECT_THROW(decode_spool(payload, refuses, &counted), Error);
  EXPECT_EQ(refuses.samples, 2);
}

// A file's event table gives the offset of the woken task's pid in a
// wakeup's raw data: one near 2^32 must not wrap past the bounds check.
TEST(Spool, AWakeeOffsetNearTwoToThe32IsDamageNotARead) {
  SampleLayout layout{PERF_SAMPLE_IDENTIFIER | kSampleType | PERF_SAMPLE_RAW, true};
  layout.kinds = {{9, SampleKind::Wakeup}};
  layout.wakee_offset = 0xfffffffe;
  Spool spool(layout);
  spool.add(PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL)
                .u64(9)
                .u64(0x1000)
                .u32(10)
                .u32(11)
                .u64(100)
                .u32(0)
                .u32(0)
                .u64(1)
                .u32(8)  // raw: 8 bytes
                .u32(0)
                .u32(11)
                .u32(0)  // padding to 8 bytes
                .done());
  spool.end_block();
  Collect c;
  uint64_t damaged = 0;
  decode_spool(spool.take(), c, &damaged);
  EXPECT_TRUE(c.samples.empty());
  EXPECT_EQ(damaged, 1u);
}

TEST(Spool, DamageIsOneRecordOrTheChunk) {
  kprof::testing::TempDir dir;
  Spool spool(kLayout);
  spool.add(sample_record(0x1000, 100, PERF_RECORD_MISC_USER));
  // A sample too short for its fields: skipped and counted.
  spool.add(PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER).u64(0x1).done());
  spool.add(sample_record(0x1010, 200, PERF_RECORD_MISC_USER));
  std::vector<uint8_t> payload = spool.take();
  Collect c;
  uint64_t damaged = 0;
  decode_spool(payload, c, &damaged);
  EXPECT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(damaged, 1u);
  // Through load_profile, as kprof record reads its file when it ends (the
  // count goes into its closing line).
  {
    ProfileWriter w = ProfileWriter::create(dir.file("d.kprof"));
    w.write_chunk(ChunkType::Meta, encode_run_info(RunInfo{}));
    w.write_chunk(ChunkType::PerfRecords, payload, false);
  }
  Collect loaded;
  uint64_t counted = 0;
  perfabi::load_profile(dir.file("d.kprof"), {.records = &loaded}, &counted);
  EXPECT_EQ(loaded.samples.size(), 2u);
  EXPECT_EQ(counted, 1u);

  // A block longer than the chunk, a record longer than its block, a cut header.
  for (size_t cut : {payload.size() - 1, size_t{17 + 4 + 7}, size_t{17 + 2}}) {
    SCOPED_TRACE(cut);
    std::vector<uint8_t> bad(payload.begin(), payload.begin() + static_cast<long>(cut));
    Collect d;
    EXPECT_THROW(decode_spool(bad, d), Error);
  }
  std::vector<uint8_t> lying = payload;
  lying[17 + 4 + 6] = 0xff;  // the first record claims 255+ bytes
  lying[17 + 4 + 7] = 0x7f;
  Collect e;
  EXPECT_THROW(decode_spool(lying, e), Error);
}

}  // namespace
}  // namespace kprof::perfabi
