// compact_records: the Records chunks of a complete profile compressed in a
// copy renamed over it; everything else byte for byte; nothing lost when it
// cannot be done.
#include "core/compact.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/input.h"
#include "core/profile.h"
#include "core/profile_reader.h"
#include "core/profile_writer.h"
#include "core/records_chunk.h"
#include "perfabi/load.h"
#include "tests/core/test_util.h"
#include "tests/support/histogram_rows.h"

namespace kprof {
namespace {

struct Recorded : RecordSink {
  std::vector<uint64_t> ips, times;
  void on_sample(const Sample& s) override {
    ips.push_back(s.ip);
    times.push_back(s.time);
  }
};

struct ChunkFlags {
  size_t records = 0, compressed = 0;
};

ChunkFlags records_chunks(const std::string& path) {
  ChunkFlags f;
  ProfileReader r = ProfileReader::open(path);
  r.for_each_chunk([](uint16_t t) { return t == static_cast<uint16_t>(ChunkType::Records); },
                   [&](const Chunk& c) {
                     ++f.records;
                     if (c.flags & kChunkZstd) ++f.compressed;
                   });
  return f;
}

// A profile as kprof record writes it: Records chunks stored as they are.
void write_profile(const std::string& path, bool complete) {
  ProfileWriter w = ProfileWriter::create(path);
  RunInfo run;
  run.hostname = "box";
  w.write_chunk(ChunkType::Meta, encode_run_info(run));
  for (int chunk = 0; chunk < 4; ++chunk) {
    RecordEncoder enc;
    for (uint64_t i = 0; i < 5000; ++i) {
      enc.add(Sample{.time = 1000 + chunk * 5000 + i,
                     .ip = 0xffffffff81000000ull + (i % 37) * 16,
                     .pid = 7,
                     .tid = 7,
                     .mode = Mode::Kernel,
                     .period = 100});
    }
    w.write_chunk(ChunkType::Records, enc.take(), false);
  }
  if (!complete) return;
  Histogram h;
  h.images.push_back({"[kernel]", ""});
  h.rows.push_back({0, "f", Mode::Kernel, 20000, 2000000});
  w.write_chunk(ChunkType::Histogram, encode_histogram_rows(h));
  w.write_end();
}

TEST(Compact, CompressesRecordsAndKeepsEverythingElse) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  write_profile(path, true);
  const auto before_size = std::filesystem::file_size(path);
  Recorded before;
  const Profile a = perfabi::load_profile(path, {.records = &before});
  ASSERT_EQ(records_chunks(path).compressed, 0u);

  const CompactResult r = perfabi::compact_profile(path);
  EXPECT_EQ(r.chunks_compressed, 4u);
  EXPECT_EQ(r.bytes_before, before_size);
  EXPECT_EQ(r.bytes_after, std::filesystem::file_size(path));
  EXPECT_LT(r.bytes_after * 3, r.bytes_before);  // repetitive records compress well
  const ChunkFlags f = records_chunks(path);
  EXPECT_EQ(f.records, 4u);
  EXPECT_EQ(f.compressed, 4u);

  Recorded after;
  const Profile b = perfabi::load_profile(path, {.records = &after});
  EXPECT_TRUE(b.status.complete) << b.status.problem;
  EXPECT_EQ(after.ips, before.ips);
  EXPECT_EQ(after.times, before.times);
  EXPECT_EQ(b.run, a.run);
  ASSERT_TRUE(a.histogram && b.histogram);
  EXPECT_EQ(encode_histogram_rows(*b.histogram), encode_histogram_rows(*a.histogram));
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // No temporary file left beside it.
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);

  // Again: nothing left to compress, the same bytes.
  const std::vector<uint8_t> once = read_file_bytes(path);
  EXPECT_EQ(perfabi::compact_profile(path).chunks_compressed, 0u);
  EXPECT_EQ(read_file_bytes(path), once);
}

TEST(Compact, RefusesAProfileCutShortAndLeavesItAsItWas) {
  testing::TempDir dir;
  const std::string path = dir.file("cut.kprof");
  write_profile(path, false);
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  try {
    perfabi::compact_profile(path);
    FAIL() << "a cut-short profile was compacted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file_bytes(path), bytes);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace kprof
