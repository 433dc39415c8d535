#include "core/records.h"

#include <gtest/gtest.h>

#include "core/error.h"

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
  EXPECT_LE(enc.size(), 1000u * 13);  // a few bytes per sample before compression
}

TEST(Records, CallchainKeepsItsKernelUserSplit) {
  Sample s{7, kKernelIp, 3, 3, 1, Mode::Kernel, 9, {kKernelIp, kKernelIp - 64, 0x401000, 0x402000}};
  s.kernel_frames = 2;
  RecordEncoder enc;
  enc.add(s);
  const std::vector<uint8_t> bytes = enc.take();
  EXPECT_EQ(bytes[0], static_cast<uint8_t>(RecordKind::SampleChain));
  Recorder r;
  decode_records(bytes, r);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0], s);
  // More kernel frames than ips is damage (the count is the last byte).
  std::vector<uint8_t> bad = bytes;
  bad.back() = 5;
  EXPECT_THROW(decode_records(bad, r), Error);
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
  EXPECT_LE(many.size(), first + 99 * 12) << "first " << first;
  Recorder r;
  decode_records(many.take(), r);
  EXPECT_EQ(r.samples, samples);
  // A reference to a chain the chunk never stored is damage, not a crash.
  RecordEncoder enc;
  enc.add(samples[0]);
  enc.add(samples[1]);
  std::vector<uint8_t> bytes = enc.take();
  ASSERT_EQ(bytes.back(), 2 + 1) << "the second sample refers to chain 1 with its leaf";
  bytes.back() = (9 << 1) | 1;
  Recorder bad;
  EXPECT_THROW(decode_records(bytes, bad), Error);
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
  // Every truncation of a valid stream is an error, never a crash, except a
  // cut exactly between the two records: that decodes the first one alone.
  const Mmap mmap{1, 2, 3, 4, 5, 6, 7, 8, "id", "/x"};
  RecordEncoder first;
  first.add(mmap);
  const size_t boundary = first.take().size();
  RecordEncoder enc;
  enc.add(mmap);
  enc.add(Sample{1, 2, 3, 4, 0, Mode::User, 1, {7, 8}});
  const auto bytes = enc.take();
  ASSERT_GT(bytes.size(), boundary);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    Recorder rr;
    std::span<const uint8_t> part(bytes.data(), cut);
    if (cut == boundary) {
      EXPECT_NO_THROW(decode_records(part, rr)) << "cut at the record boundary " << cut;
      EXPECT_EQ(rr.mmaps.size(), 1u);
      EXPECT_TRUE(rr.samples.empty());
    } else {
      EXPECT_THROW(decode_records(part, rr), Error) << "cut " << cut << " inside a record";
    }
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

}  // namespace
}  // namespace kprof
