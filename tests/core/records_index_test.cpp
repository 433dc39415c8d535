// The RecordsIndex chunk (core/records_index.h): what compaction and import
// write, which chunks a reader of one time range passes over, and that what
// it passes over is never a chunk it would have needed.
#include "core/records_index.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/chunk_codecs.h"
#include "core/compact.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "tests/core/test_util.h"
#include "tests/support/histogram_rows.h"

namespace kprof {
namespace {

Sample sample_at(uint64_t time, uint64_t ip, SampleKind kind = SampleKind::Cpu) {
  Sample s{.time = time, .ip = ip, .pid = 7, .tid = 7, .mode = Mode::Kernel, .period = 100};
  s.kind = kind;
  if (kind == SampleKind::Event) s.event = 1;
  return s;
}

TEST(RecordsIndex, EncoderCountsWhatEachChunkHolds) {
  RecordEncoder enc;
  enc.add(sample_at(500, 0x10));
  enc.add(sample_at(300, 0x20));
  enc.add(sample_at(900, 0x30, SampleKind::Event));
  enc.add(Mmap{.time = 100, .pid = 7, .start = 0x1000, .len = 0x1000, .filename = "/bin/x"});
  enc.add(Comm{.time = 950, .pid = 7, .tid = 7, .comm = "x"});
  RecordsSpan want{.first_ns = 300, .last_ns = 900, .samples = 2, .event_samples = 1};
  want.side_band = 2;
  EXPECT_EQ(enc.span(), want);
  (void)enc.take();
  EXPECT_EQ(enc.span(), RecordsSpan{});  // each chunk on its own
  enc.add(sample_at(2000, 0x10));
  EXPECT_EQ(enc.span().first_ns, 2000u);
  EXPECT_EQ(enc.span().samples, 1u);
}

TEST(RecordsIndex, CodecRoundTripsAndRefusesDamage) {
  RecordsIndex index;
  index.chunks.push_back({1234, 0xdeadbeef, {10, 20, 3, 0, 0}});
  index.chunks.push_back({77, 1, {}});  // no samples: no times
  index.chunks.push_back({5, 2, {UINT64_MAX - 5, UINT64_MAX, 1, 2, 3}});
  const std::vector<uint8_t> bytes = encode_records_index(index);
  EXPECT_EQ(decode_records_index(bytes), index);
  EXPECT_THROW(decode_records_index({}), Error);
  // Every cut is damage or a shorter index, never a crash.
  for (size_t n = 1; n < bytes.size(); ++n) {
    try {
      (void)decode_records_index(std::span(bytes).first(n));
    } catch (const Error&) {
    }
  }
  // Times stored for a chunk without samples are not kept (found by the
  // fuzzer: they did not survive a second round trip), and counts whose
  // sum wraps are still samples.
  RecordsIndex odd;
  odd.chunks.push_back({1, 2, {}});
  std::vector<uint8_t> timed = encode_records_index(odd);
  ASSERT_EQ(timed[timed.size() - 5], 0);  // the first time: a one-byte varint
  timed[timed.size() - 5] = 0x7f;
  EXPECT_EQ(decode_records_index(timed), odd);
  RecordsIndex wraps;
  wraps.chunks.push_back({1, 2, {10, 20, 1ull << 63, 1ull << 63, 0}});
  EXPECT_EQ(decode_records_index(encode_records_index(wraps)), wraps);
  RecordsIndex big;
  big.chunks.push_back({kMaxChunkBytes + 1, 0, {}});
  EXPECT_THROW(decode_records_index(encode_records_index(big)), Error);
}

// Headers of Records chunks at offsets 100, 200, ... with raw_len i + 1.
std::vector<ChunkHeaderInfo> records_headers(size_t n) {
  std::vector<ChunkHeaderInfo> h;
  for (size_t i = 0; i < n; ++i) {
    h.push_back({static_cast<uint16_t>(ChunkType::Records), 1, 100 * (i + 1), 10,
                 static_cast<uint32_t>(i + 1), static_cast<uint32_t>(7 * i)});
  }
  return h;
}

TEST(RecordsIndex, OutsideIsOnlyWhatHoldsNothingInTheRange) {
  std::vector<ChunkHeaderInfo> headers = records_headers(5);
  headers.insert(headers.begin() + 2, {static_cast<uint16_t>(ChunkType::Meta), 0, 150, 1, 1, 0});
  RecordsIndex index;
  index.chunks.push_back({1, 0, {0, 99, 10, 0, 0}});      // before the range
  index.chunks.push_back({2, 7, {100, 199, 10, 0, 0}});   // in it
  index.chunks.push_back({3, 14, {200, 299, 10, 0, 1}});  // in it, and holds a mapping
  index.chunks.push_back({4, 21, {300, 399, 10, 5, 0}});  // after
  index.chunks.push_back({5, 28, {}});                    // nothing at all
  const RecordsOutside out = records_outside(headers, index, 150, 300);
  EXPECT_EQ(out.offsets, (std::vector<uint64_t>{100, 400, 500}));
  EXPECT_EQ(out.held.samples, 20u);
  EXPECT_EQ(out.held.event_samples, 5u);
  EXPECT_EQ(out.held.first_ns, 0u);
  EXPECT_EQ(out.held.last_ns, 399u);
  // The range's ends: [from, to) as --time takes it.
  // A chunk with a mapping whose samples lie outside: read while a chunk
  // after it is, passed over when none is.
  EXPECT_EQ(records_outside(headers, index, 399, 400).offsets,
            (std::vector<uint64_t>{100, 200, 500}));
  EXPECT_EQ(records_outside(headers, index, 99, 100).offsets,
            (std::vector<uint64_t>{200, 300, 400, 500}));
  EXPECT_EQ(records_outside(headers, index, 1000, 2000).offsets,
            (std::vector<uint64_t>{100, 200, 300, 400, 500}));
  EXPECT_EQ(records_outside(headers, index, 1000, 2000).held.side_band, 1u);
}

TEST(RecordsIndex, AnEntryNamesOneChunkOnly) {
  const std::vector<ChunkHeaderInfo> headers = records_headers(3);
  RecordsIndex index;
  // The first chunk is not named (another checksum); the next two are.
  index.chunks.push_back({1, 999, {0, 9, 1, 0, 0}});
  index.chunks.push_back({2, 7, {0, 9, 1, 0, 0}});
  index.chunks.push_back({3, 14, {0, 9, 1, 0, 0}});
  const RecordsOutside out = records_outside(headers, index, 100, 200);
  // Entry 0 matched nothing, so entries 1 and 2 never meet their chunks in
  // order: nothing is passed over on a guess.
  EXPECT_TRUE(out.offsets.empty());
  // Nor a chunk with a mapping before a chunk no entry names (read).
  RecordsIndex last_unnamed;
  last_unnamed.chunks.push_back({1, 0, {0, 9, 1, 0, 1}});
  last_unnamed.chunks.push_back({2, 7, {0, 9, 1, 0, 1}});
  EXPECT_TRUE(records_outside(headers, last_unnamed, 100, 200).offsets.empty());
  // An entry for a chunk written later (not in the file) names nothing either.
  index.chunks.erase(index.chunks.begin());
  EXPECT_EQ(records_outside(headers, index, 100, 200).offsets, (std::vector<uint64_t>{200, 300}));
}

// PerfRecords chunks whose payloads are Records payloads: compaction
// decodes them with this, as kprof record's are decoded with perf's decoder.
struct RecordsAsPerf final : PerfRecordsDecoder {
  void decode(std::span<const uint8_t> payload, RecordSink& sink) const override {
    decode_records(payload, sink);
  }
};

struct Times : RecordSink {
  std::vector<uint64_t> times;
  uint64_t mmaps = 0;
  void on_sample(const Sample& s) override { times.push_back(s.time); }
  void on_mmap(const Mmap&) override { ++mmaps; }
};

// A complete recording of `samples` samples 1 ns apart from time 1000, in
// PerfRecords chunks as kprof record writes them; a mapping first.
void write_recording(const std::string& path, uint64_t samples) {
  ProfileWriter w = ProfileWriter::create(path);
  RunInfo run;
  run.hostname = "box";
  w.write_chunk(ChunkType::Meta, encode_run_info(run));
  RecordEncoder enc;
  enc.add(Mmap{.time = 999, .pid = 7, .start = 0x1000, .len = 0x1000, .filename = "/bin/x"});
  for (uint64_t i = 0; i < samples; ++i) {
    enc.add(sample_at(1000 + i, 0xffffffff81000000ull + (i * 7919 % 4096) * 16));
    if (enc.size() >= kRecordsChunkBytes) w.write_chunk(ChunkType::PerfRecords, enc.take(), false);
  }
  if (!enc.empty()) w.write_chunk(ChunkType::PerfRecords, enc.take(), false);
  Histogram h;
  h.images.push_back({"[kernel]", ""});
  h.rows.push_back({0, "f", Mode::Kernel, samples, samples * 100});
  w.write_chunk(ChunkType::Histogram, encode_histogram_rows(h));
  w.write_end();
}

std::vector<uint16_t> types_of(const std::string& path) {
  ProfileReader r = ProfileReader::open(path);
  return r.chunk_types().value();
}

TEST(RecordsIndex, CompactionIndexesItsChunksAndATimeRangeReadsOnlyWhatItNeeds) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  constexpr uint64_t kSamples = 600000;  // several merged Records chunks
  write_recording(path, kSamples);
  compact_records(path, RecordsAsPerf());
  const std::vector<uint16_t> types = types_of(path);
  const auto records = std::count(types.begin(), types.end(), uint16_t{4});
  ASSERT_GE(records, 3) << "too few chunks to pass any over";
  // The index right after the last Records chunk, before the tables.
  const auto index_at = std::find(types.begin(), types.end(), uint16_t{16});
  ASSERT_NE(index_at, types.end());
  EXPECT_EQ(*(index_at - 1), 4);
  EXPECT_EQ(std::count(types.begin(), types.end(), uint16_t{16}), 1);

  RecordsAsPerf perf;
  Times all;
  ProfileReader whole = ProfileReader::open(path);
  const Profile p = read_profile(whole, perf, {.records = &all, .tables = false});
  ASSERT_EQ(all.times.size(), kSamples);
  EXPECT_EQ(p.status.skipped_unread, 0u);

  // The last tenth of the recording: the first chunk holds the mapping, so
  // it is read; those wholly before the range are passed over.
  const TimeRange range{1000 + kSamples * 9 / 10, UINT64_MAX};
  Times some;
  ProfileReader reader = ProfileReader::open(path);
  const Profile q =
      read_profile(reader, perf, {.records = &some, .tables = false, .records_in = range});
  EXPECT_TRUE(q.status.complete) << q.status.problem;
  EXPECT_GT(q.status.skipped_unread, 0u);
  EXPECT_EQ(some.mmaps, 1u);
  // Every sample in the range was delivered; what was not, is summed.
  const auto in_range = [&](uint64_t t) { return range.contains(t); };
  EXPECT_EQ(std::count_if(some.times.begin(), some.times.end(), in_range),
            std::count_if(all.times.begin(), all.times.end(), in_range));
  EXPECT_EQ(some.times.size() + q.records_passed_over.samples, kSamples);
  EXPECT_LT(some.times.size(), kSamples / 2);
  EXPECT_GE(q.records_passed_over.first_ns, 1000u);
  EXPECT_LT(q.records_passed_over.last_ns, range.from_ns);

  // A file whose index is damaged is read whole.
  std::vector<uint8_t> bytes = testing::read_bytes(path);
  const auto headers = ProfileReader::open(path).chunk_headers().value();
  const auto idx = std::find_if(headers.begin(), headers.end(),
                                [](const ChunkHeaderInfo& h) { return h.type == 16; });
  bytes[idx->offset + kChunkHeaderBytes] ^= 0xff;
  const std::string damaged = dir.file("damaged.kprof");
  testing::write_bytes(damaged, bytes);
  Times again;
  ProfileReader r2 = ProfileReader::open(damaged);
  const Profile d =
      read_profile(r2, perf, {.records = &again, .tables = false, .records_in = range});
  EXPECT_EQ(again.times.size(), kSamples);
  EXPECT_EQ(d.status.skipped_unread, 0u);
  EXPECT_EQ(d.records_passed_over.samples, 0u);
}

TEST(RecordsIndex, ReadChunkReadsOneChunkByItsHeader) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  write_recording(path, 1000);
  ProfileReader r = ProfileReader::open(path);
  const auto headers = r.chunk_headers().value();
  ASSERT_GE(headers.size(), 3u);
  EXPECT_EQ(headers.front().offset, kHeaderBytes);
  const ChunkHeaderInfo& records = headers[1];
  ASSERT_EQ(records.type, static_cast<uint16_t>(ChunkType::PerfRecords));
  Times got;
  EXPECT_EQ(r.read_chunk(records, [&](const Chunk& c) { decode_records(c.payload, got); }), "");
  EXPECT_EQ(got.times.size(), 1000u);
  // Its checksum no longer matching: said, and `fn` not called.
  ChunkHeaderInfo wrong = records;
  wrong.crc ^= 1;
  bool called = false;
  EXPECT_NE(r.read_chunk(wrong, [&](const Chunk&) { called = true; }).find("checksum"),
            std::string::npos);
  EXPECT_FALSE(called);
  wrong = records;
  wrong.stored_len = UINT32_MAX;
  EXPECT_NE(r.read_chunk(wrong, [&](const Chunk&) { called = true; }).find("truncated"),
            std::string::npos);
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace kprof
