// Perf records built byte by byte, decoded into kprof records. (The ring
// buffer reader: ring_test.cpp.)
#include <linux/perf_event.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "perfabi/perf_record.h"
#include "tests/perfabi/perf_record_builder.h"

namespace kprof::perfabi {
namespace {

using namespace testing;

TEST(PerfDecode, Sample) {
  Collect c;
  EXPECT_TRUE(decode_perf_record(sample_record(0x401000, 5000, PERF_RECORD_MISC_USER), kLayout, c));
  ASSERT_EQ(c.samples.size(), 1u);
  const Sample& s = c.samples[0];
  EXPECT_EQ(s.ip, 0x401000u);
  EXPECT_EQ(s.pid, 10u);
  EXPECT_EQ(s.tid, 11u);
  EXPECT_EQ(s.time, 5000u);
  EXPECT_EQ(s.cpu, 1u);
  EXPECT_EQ(s.period, 2000u);
  EXPECT_EQ(s.mode, Mode::User);
  EXPECT_TRUE(s.callchain.empty());
}

// Every 8-byte field a sample can carry, in the kernel's order: each lands
// where it belongs (a sample of only these is read at fixed offsets), and
// the identifier picks the sample's kind.
TEST(PerfDecode, SampleWithEveryFixedField) {
  SampleLayout layout{PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                          PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                          PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
                      true};
  layout.kinds.push_back({77, SampleKind::Event, 2});
  const auto rec = PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL)
                       .u64(77)                  // identifier
                       .u64(0xffffffff81000010)  // ip
                       .u32(20)                  // pid
                       .u32(21)                  // tid
                       .u64(9000)                // time
                       .u64(0xdead)              // addr
                       .u64(77)                  // id
                       .u64(78)                  // stream id
                       .u32(3)                   // cpu
                       .u32(0)
                       .u64(4000)  // period
                       .done();
  Collect c;
  EXPECT_TRUE(decode_perf_record(rec, layout, c));
  ASSERT_EQ(c.samples.size(), 1u);
  const Sample& s = c.samples[0];
  EXPECT_EQ(s.ip, 0xffffffff81000010u);
  EXPECT_EQ(s.pid, 20u);
  EXPECT_EQ(s.tid, 21u);
  EXPECT_EQ(s.time, 9000u);
  EXPECT_EQ(s.cpu, 3u);
  EXPECT_EQ(s.period, 4000u);
  EXPECT_EQ(s.mode, Mode::Kernel);
  EXPECT_EQ(s.kind, SampleKind::Event);
  EXPECT_EQ(s.event, 2u);
  // One field short: an error naming the record, not a sample read past its end.
  std::vector<uint8_t> cut(rec.begin(), rec.end() - 8);
  const auto size = static_cast<uint16_t>(cut.size());
  std::memcpy(&cut[6], &size, 2);
  Collect none;
  EXPECT_THROW(decode_perf_record(cut, layout, none), Error);
  EXPECT_TRUE(none.samples.empty());
}

TEST(PerfDecode, SampleModes) {
  const std::pair<uint16_t, Mode> cases[] = {
      {PERF_RECORD_MISC_KERNEL, Mode::Kernel},
      {PERF_RECORD_MISC_USER, Mode::User},
      {PERF_RECORD_MISC_HYPERVISOR, Mode::Hypervisor},
      {PERF_RECORD_MISC_GUEST_KERNEL, Mode::GuestKernel},
      {PERF_RECORD_MISC_GUEST_USER, Mode::GuestUser},
      {PERF_RECORD_MISC_CPUMODE_UNKNOWN, Mode::Unknown},
  };
  for (auto [misc, mode] : cases) {
    Collect c;
    decode_perf_record(sample_record(1, 1, misc | PERF_RECORD_MISC_EXACT_IP), kLayout, c);
    ASSERT_EQ(c.samples.size(), 1u);
    EXPECT_EQ(c.samples[0].mode, mode) << "misc " << misc;
  }
}

TEST(PerfDecode, CallchainDropsContextMarkers) {
  auto rec = PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL)
                 .u64(0xffffffff81000010)
                 .u32(1)
                 .u32(1)
                 .u64(7)
                 .u32(0)
                 .u32(0)
                 .u64(1)
                 .u64(5)
                 .u64(PERF_CONTEXT_KERNEL)
                 .u64(0xffffffff81000010)
                 .u64(PERF_CONTEXT_USER)
                 .u64(0x401000)
                 .u64(0x402000)
                 .done();
  Collect c;
  decode_perf_record(rec, kLayoutCallchain, c);
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].callchain,
            (std::vector<uint64_t>{0xffffffff81000010, 0x401000, 0x402000}));
  EXPECT_EQ(c.samples[0].kernel_frames, 1u) << "the frame under PERF_CONTEXT_KERNEL";
  EXPECT_TRUE(c.samples[0].kernel_frames_known);
}

TEST(PerfDecode, CallchainLongerThanRecordIsError) {
  auto rec = PerfRecord(PERF_RECORD_SAMPLE)
                 .u64(1)
                 .u32(1)
                 .u32(1)
                 .u64(7)
                 .u32(0)
                 .u32(0)
                 .u64(1)
                 .u64(1000000)
                 .u64(1)
                 .done();
  Collect c;
  EXPECT_THROW(decode_perf_record(rec, kLayoutCallchain, c), Error);
  EXPECT_TRUE(c.samples.empty());
}

TEST(PerfDecode, Mmap2WithInode) {
  auto rec = PerfRecord(PERF_RECORD_MMAP2)
                 .u32(42)
                 .u32(43)
                 .u64(0x7f0000000000)
                 .u64(0x21000)
                 .u64(0x1000)
                 .u32(8)
                 .u32(1)
                 .u64(123456)
                 .u64(0)  // maj, min, ino, ino_generation
                 .u32(5)
                 .u32(2)  // prot, flags
                 .str("/usr/lib/x86_64-linux-gnu/libc.so.6")
                 .trailer(42, 43, 999, 0)
                 .done();
  Collect c;
  EXPECT_TRUE(decode_perf_record(rec, kLayout, c));
  ASSERT_EQ(c.mmaps.size(), 1u);
  const Mmap& m = c.mmaps[0];
  EXPECT_EQ(m.pid, 42u);
  EXPECT_EQ(m.tid, 43u);
  EXPECT_EQ(m.start, 0x7f0000000000u);
  EXPECT_EQ(m.len, 0x21000u);
  EXPECT_EQ(m.pgoff, 0x1000u);
  EXPECT_EQ(m.prot, 5u);
  EXPECT_EQ(m.flags, 2u);
  EXPECT_EQ(m.time, 999u);
  EXPECT_EQ(m.build_id, "");
  EXPECT_EQ(m.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(PerfDecode, Mmap2WithBuildId) {
  PerfRecord r(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
  r.u32(1).u32(1).u64(0x400000).u64(0x1000).u64(0);
  r.u32(0x00000014);  // build_id_size 20, reserved
  for (uint32_t i = 0; i < 5; ++i) r.u32(0x03020100 + i * 0x04040404);
  r.u32(5).u32(2).str("/bin/x").trailer(1, 1, 5, 0);
  Collect c;
  decode_perf_record(r.done(), kLayout, c);
  ASSERT_EQ(c.mmaps.size(), 1u);
  EXPECT_EQ(c.mmaps[0].build_id, "000102030405060708090a0b0c0d0e0f10111213");
  EXPECT_EQ(c.mmaps[0].filename, "/bin/x");
}

TEST(PerfDecode, MmapV1) {
  auto rec = PerfRecord(PERF_RECORD_MMAP)
                 .u32(7)
                 .u32(7)
                 .u64(0x1000)
                 .u64(0x2000)
                 .u64(0)
                 .str("[vdso]")
                 .trailer(7, 7, 33, 1)
                 .done();
  Collect c;
  decode_perf_record(rec, kLayout, c);
  ASSERT_EQ(c.mmaps.size(), 1u);
  EXPECT_EQ(c.mmaps[0].filename, "[vdso]");
  EXPECT_EQ(c.mmaps[0].time, 33u);
}

TEST(PerfDecode, CommExec) {
  auto rec = PerfRecord(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC)
                 .u32(9)
                 .u32(9)
                 .str("sh")
                 .trailer(9, 9, 77, 0)
                 .done();
  Collect c;
  decode_perf_record(rec, kLayout, c);
  ASSERT_EQ(c.comms.size(), 1u);
  EXPECT_EQ(c.comms[0], (Comm{77, 9, 9, true, "sh"}));
  auto plain =
      PerfRecord(PERF_RECORD_COMM).u32(9).u32(10).str("worker").trailer(9, 10, 78, 0).done();
  decode_perf_record(plain, kLayout, c);
  EXPECT_EQ(c.comms[1], (Comm{78, 9, 10, false, "worker"}));
}

TEST(PerfDecode, ForkExit) {
  auto fork = PerfRecord(PERF_RECORD_FORK)
                  .u32(20)
                  .u32(10)
                  .u32(21)
                  .u32(11)
                  .u64(100)
                  .trailer(20, 21, 100, 0)
                  .done();
  auto exit = PerfRecord(PERF_RECORD_EXIT)
                  .u32(20)
                  .u32(10)
                  .u32(21)
                  .u32(11)
                  .u64(200)
                  .trailer(20, 21, 200, 0)
                  .done();
  Collect c;
  decode_perf_record(fork, kLayout, c);
  decode_perf_record(exit, kLayout, c);
  ASSERT_EQ(c.forks.size(), 1u);
  ASSERT_EQ(c.exits.size(), 1u);
  EXPECT_EQ(c.forks[0], (Fork{100, 20, 10, 21, 11}));
  EXPECT_EQ(c.exits[0], (Fork{200, 20, 10, 21, 11}));
}

TEST(PerfDecode, LostAndLostSamples) {
  auto lost = PerfRecord(PERF_RECORD_LOST).u64(1).u64(17).trailer(0, 0, 300, 0).done();
  auto lost_samples = PerfRecord(PERF_RECORD_LOST_SAMPLES).u64(4).trailer(0, 0, 400, 1).done();
  Collect c;
  decode_perf_record(lost, kLayout, c);
  decode_perf_record(lost_samples, kLayout, c);
  ASSERT_EQ(c.lost.size(), 2u);
  EXPECT_EQ(c.lost[0], (Lost{300, 17}));
  EXPECT_EQ(c.lost[1], (Lost{400, 4}));
}

TEST(PerfDecode, ThrottleIsCountedAndUnthrottleAccepted) {
  struct Throttles : Collect {
    void on_throttle(uint64_t time) override { times.push_back(time); }
    std::vector<uint64_t> times;
  } c;
  // time, id, stream_id, then the sample_id trailer.
  auto throttle =
      PerfRecord(PERF_RECORD_THROTTLE).u64(500).u64(2).u64(3).trailer(0, 0, 501, 0).done();
  auto unthrottle =
      PerfRecord(PERF_RECORD_UNTHROTTLE).u64(900).u64(2).u64(3).trailer(0, 0, 901, 0).done();
  EXPECT_TRUE(decode_perf_record(throttle, kLayout, c));
  EXPECT_TRUE(decode_perf_record(unthrottle, kLayout, c));
  EXPECT_EQ(c.times, std::vector<uint64_t>{500});
  auto cut = PerfRecord(PERF_RECORD_THROTTLE).u64(500).trailer(0, 0, 501, 0).done();
  EXPECT_THROW(decode_perf_record(cut, kLayout, c), Error);
}

TEST(PerfDecode, UnknownTypeIsSkipped) {
  auto rec = PerfRecord(PERF_RECORD_AUX).u64(1).u64(2).u64(3).trailer(0, 0, 1, 0).done();
  Collect c;
  EXPECT_FALSE(decode_perf_record(rec, kLayout, c));
}

TEST(PerfDecode, TruncatedRecordsThrow) {
  const std::vector<std::vector<uint8_t>> good = {
      sample_record(1, 2, PERF_RECORD_MISC_USER),
      PerfRecord(PERF_RECORD_COMM).u32(9).u32(9).str("sh").trailer(9, 9, 77, 0).done(),
      PerfRecord(PERF_RECORD_MMAP2)
          .u32(1)
          .u32(1)
          .u64(1)
          .u64(1)
          .u64(0)
          .u64(0)
          .u64(0)
          .u64(0)
          .u32(5)
          .u32(2)
          .str("/x")
          .trailer(1, 1, 5, 0)
          .done(),
      PerfRecord(PERF_RECORD_FORK).u32(1).u32(1).u32(1).u32(1).u64(1).trailer(1, 1, 1, 0).done(),
  };
  for (const auto& rec : good) {
    for (size_t n = 8; n < rec.size(); n += 8) {  // records are 8-byte aligned
      std::vector<uint8_t> cut(rec.begin(), rec.begin() + n);
      uint16_t size = static_cast<uint16_t>(n);
      std::memcpy(&cut[6], &size, 2);  // a consistent header, too few bytes for the fields
      Collect c;
      EXPECT_THROW(decode_perf_record(cut, kLayout, c), Error)
          << "type " << rec[0] << " cut at " << n;
    }
  }
}

TEST(PerfDecode, HeaderSizeMismatchThrows) {
  auto rec = sample_record(1, 2, 0);
  rec.push_back(0);
  Collect c;
  EXPECT_THROW(decode_perf_record(rec, kLayout, c), Error);
  EXPECT_THROW(decode_perf_record(std::vector<uint8_t>{1, 2, 3}, kLayout, c), Error);
}

TEST(PerfDecode, UnterminatedStringThrows) {
  auto rec =
      PerfRecord(PERF_RECORD_COMM).u32(1).u32(1).u64(0x4141414141414141).trailer(1, 1, 1, 0).done();
  Collect c;
  EXPECT_THROW(decode_perf_record(rec, kLayout, c), Error);
}

// ------------------------------------------------------------------ ids, times

// A sample of `st` with every field it names 8 bytes wide, field k holding
// 0x100 + k (k counted over the fields present, in the kernel's order).
std::vector<uint8_t> numbered_sample(uint64_t st) {
  PerfRecord r(PERF_RECORD_SAMPLE);
  uint64_t k = 0;
  for (uint64_t bit :
       {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
        PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD}) {
    if (st & bit) r.u64(0x100 + k++);
  }
  return r.done();
}

TEST(PerfEventId, SampleIdentifierComesFirst) {
  const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID;
  EXPECT_EQ(record_event_id(numbered_sample(st), {st, true}), 0x100u);
}

TEST(PerfEventId, SampleIdAfterIpTidTimeAddr) {
  const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                      PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
  EXPECT_EQ(record_event_id(numbered_sample(st), {st, false}), 0x104u);
  const uint64_t st2 = PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD;
  EXPECT_EQ(record_event_id(numbered_sample(st2), {st2, false}), 0x101u);
}

TEST(PerfEventId, NoIdInLayoutOrTooShort) {
  const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  EXPECT_EQ(record_event_id(numbered_sample(st), {st, true}), std::nullopt);
  // The layout says ID, but the record ends before it.
  const uint64_t with_id = st | PERF_SAMPLE_ID;
  EXPECT_EQ(record_event_id(numbered_sample(st), {with_id, true}), std::nullopt);
  EXPECT_EQ(record_event_id(std::vector<uint8_t>{9, 0, 0, 0}, {with_id, true}), std::nullopt);
}

TEST(PerfEventId, TrailerOfOtherRecords) {
  // Trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
  const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                      PERF_SAMPLE_CPU | PERF_SAMPLE_IP;
  auto comm = PerfRecord(PERF_RECORD_COMM)
                  .u32(1)
                  .u32(1)
                  .str("x")
                  .u32(1)
                  .u32(1)    // tid
                  .u64(55)   // time
                  .u64(777)  // id
                  .u64(888)  // stream id
                  .u32(3)
                  .u32(0)  // cpu
                  .done();
  EXPECT_EQ(record_event_id(comm, {st, true}), 777u);
  EXPECT_EQ(record_time(comm, {st, true}), 55u);
  // Without sample_id_all there is no trailer.
  EXPECT_EQ(record_event_id(comm, {st, false}), std::nullopt);
  EXPECT_EQ(record_time(comm, {st, false}), std::nullopt);
  // IDENTIFIER ends the trailer.
  const uint64_t ident = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
  auto exit = PerfRecord(PERF_RECORD_EXIT)
                  .u32(1)
                  .u32(1)
                  .u32(1)
                  .u32(1)
                  .u64(5)
                  .u64(66)   // time
                  .u64(999)  // identifier
                  .done();
  EXPECT_EQ(record_event_id(exit, {ident, true}), 999u);
  EXPECT_EQ(record_time(exit, {ident, true}), 66u);
}

TEST(PerfEventId, PerfUserRecordsCarryNoTrailer) {
  const uint64_t st = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
  auto round = PerfRecord(68).u64(1).u64(2).done();  // PERF_RECORD_FINISHED_ROUND, padded
  EXPECT_EQ(record_event_id(round, {st, true}), std::nullopt);
  EXPECT_EQ(record_time(round, {st, true}), std::nullopt);
}

TEST(PerfRecordTime, SampleTimeAfterIdentifierIpTid) {
  const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                      PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD;
  EXPECT_EQ(record_time(numbered_sample(st), {st, false}), 0x103u);
  const uint64_t st2 = PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  EXPECT_EQ(record_time(numbered_sample(st2), {st2, false}), 0x100u);
  // The same bytes as kLayout's sample: time 42 after ip and pid/tid.
  EXPECT_EQ(record_time(sample_record(1, 42, 0), kLayout), 42u);
}

TEST(PerfRecordTime, NoTimeOrTooShort) {
  const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  EXPECT_EQ(record_time(numbered_sample(st), {st, true}), std::nullopt);
  const uint64_t with_time = st | PERF_SAMPLE_TIME;
  EXPECT_EQ(record_time(numbered_sample(st), {with_time, true}), std::nullopt);
  // A trailer longer than the body.
  auto tiny = PerfRecord(PERF_RECORD_LOST_SAMPLES).u64(1).done();
  EXPECT_EQ(record_time(tiny, kLayout), std::nullopt);
  EXPECT_EQ(record_time(std::vector<uint8_t>{}, kLayout), std::nullopt);
}

// PERF_SAMPLE_READ sits between PERIOD and CALLCHAIN; its shape follows
// read_format, and the callchain after it must still decode.
TEST(PerfDecode, SampleReadValuesAreSkipped) {
  const uint64_t st =
      PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN;
  // One value: value, time_enabled, time_running, id, lost.
  const uint64_t single = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                          PERF_FORMAT_ID | PERF_FORMAT_LOST;
  auto one = PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
                 .u64(0x1234)
                 .u64(7)  // period
                 .u64(100)
                 .u64(200)
                 .u64(300)
                 .u64(400)
                 .u64(500)
                 .u64(2)  // callchain
                 .u64(0x1234)
                 .u64(0x5678)
                 .done();
  Collect c;
  ASSERT_TRUE(decode_perf_record(one, {st, false, single}, c));
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].period, 7u);
  EXPECT_EQ(c.samples[0].callchain, (std::vector<uint64_t>{0x1234, 0x5678}));
  // Too few bytes for the values read_format promises.
  EXPECT_THROW(decode_perf_record(one, {st, false, single | PERF_FORMAT_GROUP}, c), Error);

  // A group: nr, time_enabled, then (value, id) per member.
  const uint64_t group = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
  auto two = PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER)
                 .u64(0x99)
                 .u64(3)
                 .u64(2)  // nr
                 .u64(10)
                 .u64(1)
                 .u64(11)
                 .u64(2)
                 .u64(12)
                 .u64(1)  // callchain
                 .u64(0x99)
                 .done();
  Collect g;
  ASSERT_TRUE(decode_perf_record(two, {st, false, group}, g));
  ASSERT_EQ(g.samples.size(), 1u);
  EXPECT_EQ(g.samples[0].callchain, std::vector<uint64_t>{0x99});
  // A group count larger than the record.
  auto huge = PerfRecord(PERF_RECORD_SAMPLE).u64(1).u64(1).u64(1ULL << 60).u64(0).done();
  EXPECT_THROW(decode_perf_record(huge, {st, false, group}, g), Error);
}

// --off-cpu (collector/off_cpu_events.h): samples told apart by their
// PERF_SAMPLE_IDENTIFIER, a wakeup's woken pid read from its raw data, and
// the context switch records with whose switch and whether it was preempted.
TEST(PerfDecode, OffCpuSamplesByIdentifierAndWakeupsRawPid) {
  SampleLayout layout{
      PERF_SAMPLE_IDENTIFIER | kSampleType | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW, true};
  layout.kinds = {
      {77, SampleKind::SwitchOut}, {78, SampleKind::Wakeup}, {79, SampleKind::Event, 1}};
  layout.wakee_offset = 24;
  auto build = [](uint64_t id, const std::vector<uint8_t>& raw) {
    std::vector<uint8_t> rec = PerfRecord(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL)
                                   .u64(id)
                                   .u64(0xffffffff81000000)
                                   .u32(10)
                                   .u32(11)
                                   .u64(5000)
                                   .u32(1)
                                   .u32(0)
                                   .u64(1)
                                   .u64(2)
                                   .u64(PERF_CONTEXT_KERNEL)
                                   .u64(0xffffffff81000000)
                                   .u32(static_cast<uint32_t>(raw.size()))
                                   .done();
    rec.insert(rec.end(), raw.begin(), raw.end());
    const uint16_t size = static_cast<uint16_t>(rec.size());
    std::memcpy(&rec[6], &size, 2);
    return rec;
  };
  std::vector<uint8_t> wake_raw(36, 0);
  const uint32_t woken = 4242;
  std::memcpy(&wake_raw[24], &woken, 4);
  Collect c;
  EXPECT_TRUE(decode_perf_record(build(5, {0, 0, 0, 0}), layout, c));
  EXPECT_TRUE(decode_perf_record(build(77, {0, 0, 0, 0}), layout, c));
  EXPECT_TRUE(decode_perf_record(build(78, wake_raw), layout, c));
  EXPECT_TRUE(decode_perf_record(build(79, {0, 0, 0, 0}), layout, c));
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[3].kind, SampleKind::Event) << "a second sampled event (-e A,B)";
  EXPECT_EQ(c.samples[3].event, 1u);
  EXPECT_EQ(c.samples[0].event, 0u);
  EXPECT_EQ(c.samples[0].kind, SampleKind::Cpu);
  EXPECT_EQ(c.samples[1].kind, SampleKind::SwitchOut);
  EXPECT_EQ(c.samples[1].callchain.size(), 1u);
  EXPECT_EQ(c.samples[2].kind, SampleKind::Wakeup);
  EXPECT_EQ(c.samples[2].wakee, woken);
  // A wakeup whose raw data is too short for the pid is damage, not a guess.
  EXPECT_THROW(decode_perf_record(build(78, {0, 0, 0, 0}), layout, c), Error);
}

TEST(PerfDecode, ContextSwitchRecords) {
  Collect c;
  const uint16_t out_preempt = PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
  EXPECT_TRUE(decode_perf_record(
      PerfRecord(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT).trailer(10, 11, 100, 1).done(),
      kLayout, c));
  EXPECT_TRUE(decode_perf_record(PerfRecord(PERF_RECORD_SWITCH_CPU_WIDE, out_preempt)
                                     .u32(20)
                                     .u32(21)
                                     .trailer(10, 12, 200, 0)
                                     .done(),
                                 kLayout, c));
  EXPECT_TRUE(decode_perf_record(PerfRecord(PERF_RECORD_SWITCH).trailer(10, 11, 300, 1).done(),
                                 kLayout, c));
  ASSERT_EQ(c.switches.size(), 3u);
  EXPECT_EQ(c.switches[0], (Switch{100, 10, 11, 1, true, false}));
  EXPECT_EQ(c.switches[1], (Switch{200, 10, 12, 0, true, true}));
  EXPECT_EQ(c.switches[2], (Switch{300, 10, 11, 1, false, false}));
  // Without the task in a trailer a switch says nothing: damage.
  EXPECT_THROW(decode_perf_record(PerfRecord(PERF_RECORD_SWITCH).done(), SampleLayout{}, c), Error);
}

// --call-graph dwarf samples: IP, TID, CALLCHAIN, REGS_USER (IP and SP
// only here), STACK_USER.
SampleLayout dwarf_layout() {
  SampleLayout l{PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                     PERF_SAMPLE_STACK_USER,
                 false};
  l.regs_user = (uint64_t{1} << kPerfRegSp) | (uint64_t{1} << kPerfRegIp);
  return l;
}

std::vector<uint8_t> dwarf_sample(uint64_t abi, uint64_t size, uint64_t dyn, size_t stack_words) {
  PerfRecord r(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
  r.u64(0xffffffff81000010).u32(7).u32(8);
  r.u64(2).u64(PERF_CONTEXT_KERNEL).u64(0xffffffff81000010);  // the kernel's part only
  r.u64(abi);
  if (abi != PERF_SAMPLE_REGS_ABI_NONE) r.u64(0x7ffd0000).u64(0x401234);  // SP, IP
  r.u64(size);
  for (size_t i = 0; i < stack_words; ++i) r.u64(0x1111111111111111 * (i + 1));
  if (size != 0) r.u64(dyn);
  return r.done();
}

TEST(PerfDecode, DwarfSampleKeepsRegistersAndTheFilledStack) {
  Collect c;
  decode_perf_record(dwarf_sample(PERF_SAMPLE_REGS_ABI_64, 32, 24, 4), dwarf_layout(), c);
  ASSERT_EQ(c.samples.size(), 1u);
  const Sample& s = c.samples[0];
  EXPECT_EQ(s.user_regs, (std::vector<uint64_t>{0x7ffd0000, 0x401234}));
  EXPECT_EQ(user_reg(s, kPerfRegIp), 0x401234u);
  EXPECT_EQ(user_reg(s, kPerfRegSp), 0x7ffd0000u);
  EXPECT_EQ(user_reg(s, kPerfRegBp), std::nullopt);
  EXPECT_EQ(s.user_stack.size(), 24u) << "dyn_size bytes, not the whole copy";
  // The kernel frame, then the user IP standing for the user part.
  EXPECT_EQ(s.callchain, (std::vector<uint64_t>{0xffffffff81000010, 0x401234}));
  EXPECT_EQ(s.kernel_frames, 1u);
}

TEST(PerfDecode, DwarfSampleWithoutUserContextOr64BitRegisters) {
  Collect c;
  decode_perf_record(dwarf_sample(PERF_SAMPLE_REGS_ABI_NONE, 0, 0, 0), dwarf_layout(), c);
  decode_perf_record(dwarf_sample(PERF_SAMPLE_REGS_ABI_32, 16, 16, 2), dwarf_layout(), c);
  ASSERT_EQ(c.samples.size(), 2u);
  for (const Sample& s : c.samples) {
    EXPECT_TRUE(s.user_regs.empty());
    EXPECT_TRUE(s.user_stack.empty()) << "nothing to unwind a 32-bit task's stack with";
    EXPECT_EQ(s.callchain, std::vector<uint64_t>{0xffffffff81000010});
  }
}

// One scratch sample for a whole walk: each record decodes into it as into
// a fresh one, whatever the record before it left (a chain, registers, a
// stack, a 32-bit task's registers read past).
TEST(PerfDecode, ScratchSampleDecodesEachRecordAsFresh) {
  const std::vector<std::vector<uint8_t>> records = {
      dwarf_sample(PERF_SAMPLE_REGS_ABI_64, 32, 24, 4),
      dwarf_sample(PERF_SAMPLE_REGS_ABI_32, 16, 16, 2),
      dwarf_sample(PERF_SAMPLE_REGS_ABI_64, 32, 24, 4),
      dwarf_sample(PERF_SAMPLE_REGS_ABI_NONE, 0, 0, 0),
  };
  Collect fresh, reused;
  Sample scratch;
  for (const auto& rec : records) {
    decode_perf_record(rec, dwarf_layout(), fresh);
    decode_perf_record(rec, dwarf_layout(), reused, scratch);
  }
  ASSERT_EQ(reused.samples.size(), records.size());
  EXPECT_EQ(reused.samples, fresh.samples);
  EXPECT_TRUE(reused.samples[3].user_regs.empty());
  Collect plain;
  decode_perf_record(sample_record(0x401000, 5000, PERF_RECORD_MISC_USER), kLayout, plain, scratch);
  ASSERT_EQ(plain.samples.size(), 1u);
  Collect plain_fresh;
  decode_perf_record(sample_record(0x401000, 5000, PERF_RECORD_MISC_USER), kLayout, plain_fresh);
  EXPECT_EQ(plain.samples[0], plain_fresh.samples[0]);
  EXPECT_TRUE(plain.samples[0].callchain.empty());
}

TEST(PerfDecode, DwarfSampleOutOfBoundsIsError) {
  Collect c;
  // A stack longer than the record, and one filled beyond its size.
  EXPECT_THROW(
      decode_perf_record(dwarf_sample(PERF_SAMPLE_REGS_ABI_64, 4096, 8, 2), dwarf_layout(), c),
      Error);
  EXPECT_THROW(
      decode_perf_record(dwarf_sample(PERF_SAMPLE_REGS_ABI_64, 16, 24, 2), dwarf_layout(), c),
      Error);
  // Registers the record does not hold.
  SampleLayout many = dwarf_layout();
  many.regs_user = kDwarfUserRegs;
  EXPECT_THROW(decode_perf_record(dwarf_sample(PERF_SAMPLE_REGS_ABI_64, 0, 0, 0), many, c), Error);
  EXPECT_TRUE(c.samples.empty());
}

}  // namespace
}  // namespace kprof::perfabi
