// --time on a real recording reads only the Records chunks its time range
// needs (core/records_index.h, issue 29): what it prints must be what
// reading every chunk prints, for ranges at the start, in the middle and at
// the end, and for a range outside the recording (its error names the
// recording's real total and extent).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_layout.h"
#include "core/profile.h"
#include "core/profile_reader.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

class RecordsIndexE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  // kprof report FILE --time RANGE, the profile's path line left out.
  RunResult report(const std::string& file, const std::string& range) {
    RunResult r =
        run({kprof_binary(), "report", file, "--time", range, "--top", "0"}, dir_.path(), 60);
    const size_t at = r.out.find("# profile:");
    if (at != std::string::npos) r.out.erase(at, r.out.find('\n', at) + 1 - at);
    return r;
  }
  TempDir dir_;
};

TEST_F(RecordsIndexE2E, TimeRangesReadWhatTheyNeedAndPrintWhatReadingAllPrints) {
  const std::string file = dir_.file("spin.kprof");
  // Two busy processes for 3 s at 20 kHz: ~120k samples, several Records
  // chunks (compaction cuts one a MiB).
  const std::string prog = program("kprof_prog_hotcold");
  const RunResult rec = run({kprof_binary(), "record", "-F", "20000", "-o", file, "--", "/bin/sh",
                             "-c", prog + " 3 & " + prog + " 3; wait"},
                            dir_.path(), 120);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();

  // The same file with its index renamed to a type no reader knows: every
  // chunk is read.
  std::string bytes = read_text(file);
  ProfileReader reader = ProfileReader::open(file);
  const auto headers = reader.chunk_headers().value();
  size_t indexes = 0, records = 0;
  for (const ChunkHeaderInfo& h : headers) {
    records += h.type == static_cast<uint16_t>(ChunkType::Records);
    if (h.type != static_cast<uint16_t>(ChunkType::RecordsIndex)) continue;
    ++indexes;
    bytes[h.offset] = '\xee';  // the u16 type, little-endian: 1006
    bytes[h.offset + 1] = '\x03';
  }
  ASSERT_EQ(indexes, 1u) << "compaction wrote no records index";
  ASSERT_GE(records, 2u) << "one Records chunk: nothing to pass over";
  const std::string whole = dir_.file("whole.kprof");
  write_text(whole, bytes);

  // Some range passes chunks over: the last Records chunk lies wholly after
  // the first fifth of the recording.
  const Profile p = perfabi::load_profile(file, {.tables = false});
  struct Count : RecordSink {
    uint64_t samples = 0;
    void on_sample(const Sample&) override { ++samples; }
  } in_range, all;
  ASSERT_TRUE(p.summary);
  const uint64_t fifth = p.run.start_monotonic_ns + p.summary->duration_ns / 5;
  const Profile q = perfabi::load_profile(
      file, {.records = &in_range, .tables = false, .records_in = TimeRange{0, fifth}});
  (void)perfabi::load_profile(whole, {.records = &all, .tables = false});
  EXPECT_GT(q.status.skipped_unread, 0u);
  EXPECT_EQ(in_range.samples + q.records_passed_over.samples, all.samples);

  for (const char* range : {"0%,20%", "10%,50%", "60%,100%", "1,2", "2.5,"}) {
    const RunResult a = report(file, range), b = report(whole, range);
    ASSERT_EQ(a.exit_code, 0) << range << ": " << a.describe();
    EXPECT_EQ(a.out, b.out) << range;
    EXPECT_NE(a.out.find("filtered (--time " + std::string(range) + ")"), std::string::npos)
        << a.out;
  }
  // Outside the recording: the same error, with the real total and extent.
  const RunResult a = report(file, "100,200");
  RunResult b = report(whole, "100,200");
  EXPECT_EQ(a.exit_code, 1) << a.describe();
  b.err.replace(b.err.find(whole), whole.size(), file);
  EXPECT_EQ(a.err, b.err);
  EXPECT_NE(a.err.find("they lie from "), std::string::npos) << a.err;
}

}  // namespace
}  // namespace kprof::e2e
