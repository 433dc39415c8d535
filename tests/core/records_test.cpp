#include "core/records_chunk.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "perfabi/load.h"

namespace kprof {
namespace {

struct Recorder : RecordSink {
  std::vector<Sample> samples;
  std::vector<Mmap> mmaps;
  std::vector<Comm> comms;
  std::vector<Fork> forks, exits;
  std::vector<Lost> lost;
  std::vector<char> order;
  void on_sample(const Sample& s) override { samples.push_back(s), order.push_back('s'); }
  void on_mmap(const Mmap& m) override { mmaps.push_back(m), order.push_back('m'); }
  void on_comm(const Comm& c) override { comms.push_back(c), order.push_back('c'); }
  void on_fork(const Fork& f) override { forks.push_back(f), order.push_back('f'); }
  void on_exit(const Fork& f) override { exits.push_back(f), order.push_back('e'); }
  void on_lost(const Lost& l) override { lost.push_back(l), order.push_back('l'); }
};

constexpr uint64_t kKernelIp = 0xffffffff81234567ULL;

// A column-layout payload taken apart (record count, then each column's
// bytes) and put back together, so a test can damage one column.
struct Columns {
  uint64_t records = 0;
  std::vector<std::vector<uint8_t>> col;
};
enum {
  kKinds,
  kTimes,
  kIps,
  kCpus,
  kPids,
  kTids,
  kModes,
  kPeriods,
  kChainRefs,
  kChainIps,
  kOther,
  kEvents
};

Columns split(std::span<const uint8_t> payload) {
  ByteReader r(payload, "test");
  EXPECT_EQ(r.u8(), 0) << "the column layout";
  Columns c;
  c.records = r.varint();
  c.col.resize(r.varint());
  for (auto& col : c.col) {
    const auto bytes = r.raw(r.varint());
    col.assign(bytes.begin(), bytes.end());
  }
  EXPECT_TRUE(r.done());
  return c;
}

std::vector<uint8_t> join(const Columns& c) {
  ByteWriter w;
  w.u8(0);
  w.varint(c.records);
  w.varint(c.col.size());
  for (const auto& col : c.col) {
    w.varint(col.size());
    w.raw(col);
  }
  return w.take();
}

TEST(Records, RoundTripEveryKind) {
  const Mmap mmap{100, 7, 7, 0x400000, 0x1000, 0x2000, 5, 2, "abcd", "/bin/true"};
  const Comm comm{101, 7, 8, true, "true"};
  const Fork fork{102, 9, 7, 9, 7};
  const Sample kernel{103, kKernelIp, 9, 9, 1, Mode::Kernel, 100000, {}};
  const Sample user{90,
                    0x401234,
                    9,
                    9,
                    0,
                    Mode::User,
                    1,  // time goes backwards a bit
                    {0x401234, kKernelIp, 0x7fff00001000ULL, 0, UINT64_MAX}};
  const Fork exit{200, 9, 7, 9, 7};
  const Lost lost{201, 12};
  RecordEncoder enc;
  enc.add(mmap);
  enc.add(comm);
  enc.add_fork(fork);
  enc.add(kernel);
  enc.add(user);
  enc.add_exit(exit);
  enc.add(lost);
  EXPECT_EQ(enc.count(), 7u);
  const auto bytes = enc.take();
  EXPECT_TRUE(enc.empty());
  Recorder r;
  decode_records(bytes, r);
  EXPECT_EQ(std::string(r.order.begin(), r.order.end()), "mcfssel");
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.mmaps[0], mmap);
  EXPECT_EQ(r.comms[0], comm);
  EXPECT_EQ(r.forks[0], fork);
  EXPECT_EQ(r.samples[0], kernel);
  EXPECT_EQ(r.samples[1], user);
  EXPECT_EQ(r.exits[0], exit);
  EXPECT_EQ(r.lost[0], lost);
}

// Another event's samples (kprof record -e A,B) keep their kind and event
// number, with and without a chain, between the first event's.
TEST(Records, EventSamplesKeepTheirEvent) {
  Sample first{100, 0x401000, 9, 9, 0, Mode::User, 10000, {}};
  Sample faults = first;
  faults.time = 150;
  faults.period = 1;
  faults.kind = SampleKind::Event;
  faults.event = 1;
  Sample switches = faults;
  switches.time = 160;
  switches.ip = kKernelIp;
  switches.mode = Mode::Kernel;
  switches.event = 2;
  switches.callchain = {kKernelIp, 0x401000};
  switches.kernel_frames = 1;
  RecordEncoder enc;
  for (const Sample& s : {first, faults, switches, first}) enc.add(s);
  const std::vector<uint8_t> bytes = enc.take();
  Recorder r;
  decode_records(bytes, r);
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.samples[0], first);
  EXPECT_EQ(r.samples[1], faults);
  EXPECT_EQ(r.samples[2], switches);
  EXPECT_EQ(r.samples[3].kind, SampleKind::Cpu);
  EXPECT_EQ(r.samples[3].event, 0u);
  // An event sample of event 0, or without its number, is damage.
  Columns c = split(bytes);
  c.col.back() = {0, 2};
  Recorder bad;
  EXPECT_THROW(decode_records(join(c), bad), Error);
  c.col.back() = {1};
  EXPECT_THROW(decode_records(join(c), bad), Error);
}

TEST(Records, TakeResetsDeltaStateSoChunksDecodeAlone) {
  RecordEncoder enc;
  enc.add(Sample{5000, kKernelIp, 1, 1, 0, Mode::Kernel, 1, {}});
  enc.take();
  const Sample second{5001, kKernelIp + 8, 1, 1, 0, Mode::Kernel, 1, {}};
  enc.add(second);
  Recorder r;
  decode_records(enc.take(), r);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0], second);
}

TEST(Records, SamplesAreCompact) {
  RecordEncoder enc;
  for (int i = 0; i < 1000; ++i) {
    enc.add(Sample{1'000'000'000ULL + i * 1'000'000ULL,
                   0x401000u + (i % 64) * 16,
                   1234,
                   1234,
                   uint32_t(i % 4),
                   Mode::User,
                   1000000,
                   {}});
  }
  const auto bytes = enc.take();
  EXPECT_LE(bytes.size(), 1000u * 20);  // before compression
  // A timer's samples: each CPU's next time is predicted from its last and
  // the period, so the times column is constant after each CPU's first.
  const Columns c = split(bytes);
  ByteReader times(c.col[kTimes], "times");
  std::set<int64_t> deltas;
  for (int i = 0; i < 1000; ++i) {
    const int64_t d = times.svarint();
    if (i >= 4) deltas.insert(d);
  }
  EXPECT_EQ(deltas.size(), 1u);
  EXPECT_LE(pack_chunk(ChunkType::Records, bytes).bytes.size(), 1000u * 2);
}

TEST(Records, CallchainKeepsItsKernelUserSplit) {
  Sample s{7, kKernelIp, 3, 3, 1, Mode::Kernel, 9, {kKernelIp, kKernelIp - 64, 0x401000, 0x402000}};
  s.kernel_frames = 2;
  RecordEncoder enc;
  enc.add(s);
  const std::vector<uint8_t> bytes = enc.take();
  Columns c = split(bytes);
  EXPECT_EQ(c.col[kKinds], std::vector<uint8_t>{static_cast<uint8_t>(RecordKind::SampleChain)});
  Recorder r;
  decode_records(bytes, r);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0], s);
  // More kernel frames than ips is damage (the count is the chain's last byte).
  c.col[kChainIps].back() = 5;
  EXPECT_THROW(decode_records(join(c), r), Error);
}

TEST(Records, OldSampleWithInlineChainReadsWithTheSplitUnknown) {
  // Kind 1 as written before SampleChain: the chain inline, no split.
  ByteWriter w;
  w.u8(static_cast<uint8_t>(RecordKind::Sample));
  w.svarint(7);                                // time
  w.svarint(static_cast<int64_t>(kKernelIp));  // ip
  w.varint(3);                                 // pid
  w.svarint(0);                                // tid - pid
  w.varint(1);                                 // cpu
  w.u8(static_cast<uint8_t>(Mode::Kernel));
  w.svarint(9);  // period
  w.varint(2);   // chain: the ip itself, then a user return address
  w.svarint(0);
  w.svarint(static_cast<int64_t>(0x401000 - kKernelIp));
  Recorder r;
  decode_records(w.bytes(), r);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_FALSE(r.samples[0].kernel_frames_known);
  EXPECT_EQ(r.samples[0].callchain, (std::vector<uint64_t>{kKernelIp, 0x401000}));
}

TEST(Records, RepeatedCallchainsAreStoredOncePerChunk) {
  // The same callers, hit at 100 different ips of one function.
  RecordEncoder one, many;
  std::vector<Sample> samples;
  for (uint64_t i = 0; i < 100; ++i) {
    Sample s{i, 0x401000 + 4 * i, 5, 5, 0, Mode::User, 1, {0x401000 + 4 * i}};
    for (uint64_t f = 0; f < 30; ++f) s.callchain.push_back(0x500000 + 0x1000 * f + 7);
    samples.push_back(s);
    many.add(s);
  }
  one.add(samples[0]);
  const size_t first = one.size();
  // Each later sample costs its own fields and one reference, not 30 deltas.
  EXPECT_LE(many.size(), first + 99 * 20) << "first " << first;
  Recorder r;
  decode_records(many.take(), r);
  EXPECT_EQ(r.samples, samples);
  // A reference to a chain the chunk never stored is damage, not a crash.
  RecordEncoder enc;
  enc.add(samples[0]);
  enc.add(samples[1]);
  Columns c = split(enc.take());
  ASSERT_EQ(c.col[kChainRefs].back(), 2 + 1) << "the second sample refers to chain 1 with its leaf";
  c.col[kChainRefs].back() = (9 << 1) | 1;
  Recorder bad;
  EXPECT_THROW(decode_records(join(c), bad), Error);
}

TEST(Records, LongCallchainIsCapped) {
  Sample s{1, 2, 3, 4, 0, Mode::User, 1, std::vector<uint64_t>(kMaxCallchain + 10, 0x1000)};
  RecordEncoder enc;
  enc.add(s);
  Recorder r;
  decode_records(enc.take(), r);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].callchain.size(), kMaxCallchain);
}

TEST(Records, DamageIsAnError) {
  Recorder r;
  const uint8_t unknown_kind[] = {42, 0};
  EXPECT_THROW(decode_records(unknown_kind, r), Error);
  // A callchain count larger than the bytes left.
  ByteWriter w;
  w.u8(static_cast<uint8_t>(RecordKind::Sample));
  w.svarint(1);
  w.svarint(1);
  w.varint(1);
  w.varint(1);
  w.varint(0);
  w.u8(0);
  w.varint(1);
  w.varint(1'000'000);
  EXPECT_THROW(decode_records(w.bytes(), r), Error);
  EXPECT_TRUE(r.samples.empty());
  // Row layout (older files): a cut exactly between two records decodes
  // the first one alone; a cut inside a record is an error.
  ByteWriter rows;
  rows.u8(static_cast<uint8_t>(RecordKind::Lost));
  rows.svarint(5);
  rows.varint(3);
  const size_t boundary = rows.size();
  rows.u8(static_cast<uint8_t>(RecordKind::Fork));
  rows.svarint(1);
  for (uint64_t v : {9, 7, 9, 7}) rows.varint(v);
  for (size_t cut = 1; cut < rows.size(); ++cut) {
    Recorder rr;
    std::span<const uint8_t> part(rows.bytes().data(), cut);
    if (cut == boundary) {
      EXPECT_NO_THROW(decode_records(part, rr)) << "cut at the record boundary " << cut;
      EXPECT_EQ(rr.lost, (std::vector<Lost>{{5, 3}}));
    } else {
      EXPECT_THROW(decode_records(part, rr), Error) << "cut " << cut << " inside a record";
    }
  }
  // Column layout: every truncation is an error, never a crash.
  const Mmap mmap{1, 2, 3, 4, 5, 6, 7, 8, "id", "/x"};
  RecordEncoder enc;
  enc.add(mmap);
  enc.add(Sample{1, 2, 3, 4, 0, Mode::User, 1, {7, 8}});
  const auto bytes = enc.take();
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    Recorder rr;
    EXPECT_THROW(decode_records(std::span(bytes.data(), cut), rr), Error) << "cut " << cut;
  }
  // A bad mode.
  ByteWriter m;
  m.u8(static_cast<uint8_t>(RecordKind::Sample));
  m.svarint(0);
  m.svarint(0);
  m.varint(1);
  m.varint(1);
  m.varint(0);
  m.u8(200);
  EXPECT_THROW(decode_records(m.bytes(), r), Error);
  // A pid beyond 32 bits.
  ByteWriter p;
  p.u8(static_cast<uint8_t>(RecordKind::Fork));
  p.svarint(0);
  p.varint(UINT64_MAX);
  EXPECT_THROW(decode_records(p.bytes(), r), Error);
}

TEST(Records, ColumnDamageIsAnError) {
  RecordEncoder enc;
  enc.add(Sample{10, kKernelIp, 7, 7, 1, Mode::Kernel, 100, {}});
  enc.add(Lost{11, 2});
  enc.add(Sample{20, 0x401000, 7, 8, 1, Mode::User, 100, {}});
  const Columns good = split(enc.take());
  auto fails = [&](auto&& damage, const char* what) {
    Columns c = good;
    damage(c);
    Recorder r;
    EXPECT_THROW(decode_records(join(c), r), Error) << what;
  };
  fails([](Columns& c) { c.records = 2; }, "record count differs from the kinds");
  fails([](Columns& c) { c.col.pop_back(); }, "a column missing");
  fails([](Columns& c) { c.col[kOther].push_back(1); }, "bytes left over in a column");
  fails([](Columns& c) { c.col[kIps].pop_back(); }, "a short column");
  fails([](Columns& c) { c.col[kKinds][1] = 42; }, "an unknown kind");
  fails([](Columns& c) { c.col[kModes][0] = 200; }, "an unknown mode");
  fails(
      [](Columns& c) {
        ByteWriter w;
        w.svarint(int64_t{1} << 40);  // the first sample's pid goes past 32 bits
        w.svarint(0);
        c.col[kPids] = w.take();
      },
      "a pid beyond 32 bits");
  // The events column is written only where there are event samples (files
  // before it, and chunks of one event's, hold none): such chunks read as
  // they did, and one missing its events column is damage.
  ASSERT_EQ(good.col.size(), static_cast<size_t>(kEvents));
  fails([](Columns& c) { c.col[kKinds][0] = 8; }, "an event sample without its column");
  // A column a later kprof adds is skipped.
  Columns more = good;
  more.col.push_back({});  // events: none
  more.col.push_back({1, 2, 3});
  Recorder r;
  decode_records(join(more), r);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[1].tid, 8u);
  EXPECT_EQ(r.lost, (std::vector<Lost>{{11, 2}}));
}

TEST(Records, ManyCpusKeepTheirOwnDeltas) {
  // Interleaved CPUs with their own pids, periods and clocks; times that
  // run backwards and wrap, and a CPU that appears late.
  std::vector<Sample> in;
  for (uint32_t i = 0; i < 300; ++i) {
    const uint32_t cpu = i % 3 == 2 ? 1000 + i % 7 : i % 2;
    in.push_back(Sample{i % 5 == 0 ? UINT64_MAX - i : 1000 + i * 17 - cpu,
                        0x400000 + i * 8,
                        cpu * 10 + i % 4,
                        cpu * 10,
                        cpu,
                        i % 2 ? Mode::User : Mode::Kernel,
                        i % 11 == 0 ? UINT64_MAX : 100 + cpu,
                        {}});
  }
  RecordEncoder enc;
  for (const Sample& s : in) enc.add(s);
  Recorder r;
  decode_records(enc.take(), r);
  EXPECT_EQ(r.samples, in);
}

// The demo's profiles as shipped before December 2026 hold row-layout Records
// chunks (written before the column layout): they still decode, to the
// samples their histograms count.
TEST(Records, RowLayoutOfOldDemoProfilesStillDecodes) {
  for (const char* name : {"row-layout-generic.kprof", "row-layout-rt.kprof"}) {
    Recorder r;
    const Profile p = perfabi::load_profile(
        std::string(KPROF_SOURCE_DIR) + "/tests/core/data/" + name, LoadOptions{.records = &r});
    ASSERT_TRUE(p.histogram) << name;
    EXPECT_GT(r.samples.size(), 1000u) << name;
    EXPECT_EQ(r.samples.size(), p.histogram->total_samples()) << name;
    EXPECT_FALSE(r.mmaps.empty()) << name;
  }
}

}  // namespace
}  // namespace kprof
