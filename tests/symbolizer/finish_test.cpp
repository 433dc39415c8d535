// finish_profile: the end of a recording (and of kprof symbolize) on a
// profile written here with kernel samples only, so no ELF file is read.
#include "symbolizer/finish.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/file_layout.h"
#include "core/kallsyms_subset.h"
#include "core/profile_reader.h"
#include "core/records_chunk.h"
#include "perfabi/load.h"
#include "tests/core/test_util.h"

namespace kprof {
namespace {

// The kernel image from _stext to _etext, and (once the program is loaded)
// a BPF program beyond it: text a snapshot from early in the boot does not know.
constexpr std::string_view kOldKallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81001000 T hot_function\n"
    "ffffffff81002000 T cold_function\n"
    "ffffffff81003000 T _etext\n";
constexpr uint64_t kHot = 0xffffffff81001010, kCold = 0xffffffff81002020, kBpf = 0xffffffffc0001010;

std::string new_kallsyms() {
  return std::string(kOldKallsyms) + "ffffffffc0001000 t bpf_prog_1234_handler\t[bpf]\n";
}

// Meta and one Records chunk (stored as kprof record leaves them), no End.
void write_recording(ProfileWriter& w, const std::vector<uint64_t>& ips) {
  w.write_chunk(ChunkType::Meta, encode_run_info(RunInfo{}));
  RecordEncoder enc;
  uint64_t t = 1000;
  for (uint64_t ip : ips) {
    enc.add(Sample{.time = ++t, .ip = ip, .pid = 7, .tid = 7, .mode = Mode::Kernel, .period = 1});
  }
  w.write_chunk(ChunkType::Records, enc.take(), false);
}

AddressCounts counts_of(const std::string& path) {
  return *perfabi::load_profile(path, {.count_records = true}).counted;
}

size_t chunks_of(const std::string& path, ChunkType type, bool* compressed = nullptr) {
  size_t n = 0;
  ProfileReader r = ProfileReader::open(path);
  r.for_each_chunk([&](uint16_t t) { return t == static_cast<uint16_t>(type); },
                   [&](const Chunk& c) {
                     ++n;
                     if (compressed) *compressed = (c.flags & kChunkZstd) != 0;
                   });
  return n;
}

const FunctionCount* row_named(const Histogram& h, const std::string& name) {
  for (const FunctionCount& row : h.rows) {
    if (row.function == name) return &row;
  }
  return nullptr;
}

TEST(FinishProfile, ReadsAFreshSnapshotForTextTheCachedOneMayPredate) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  ProfileWriter w = ProfileWriter::create(path);
  write_recording(w, {kHot, kHot, kCold, kBpf});
  const std::string fresh = new_kallsyms();
  int refreshed = 0;
  const KernelSnapshot kernel{
      .kallsyms = kOldKallsyms, .in_file = false, .refresh = [&]() -> std::string_view {
        ++refreshed;
        return fresh;
      }};
  const FinishedProfile done = finish_profile(std::move(w), counts_of(path), kernel);
  EXPECT_EQ(refreshed, 1);
  EXPECT_TRUE(done.messages.empty()) << done.messages.front();
  EXPECT_FALSE(done.kernel_addresses_hidden);
  EXPECT_EQ(done.bytes, std::filesystem::file_size(path));

  const Profile p = perfabi::load_profile(path);
  EXPECT_TRUE(p.status.complete) << p.status.problem;
  ASSERT_TRUE(p.histogram);
  EXPECT_EQ(*p.histogram, done.symbols.histogram);
  ASSERT_NE(row_named(*p.histogram, "bpf_prog_1234_handler"), nullptr);
  EXPECT_EQ(row_named(*p.histogram, "hot_function")->samples, 2u);
  // The subset of the fresh snapshot: it names every sample anywhere.
  EXPECT_EQ(chunks_of(path, ChunkType::Kallsyms), 1u);
  EXPECT_EQ(p.kallsyms, kallsyms_subset(fresh, "", counts_of(path)));
  EXPECT_NE(p.kallsyms.find("bpf_prog_1234_handler"), std::string::npos);
  bool compressed = false;
  EXPECT_EQ(chunks_of(path, ChunkType::Records, &compressed), 1u);
  EXPECT_TRUE(compressed);
}

TEST(FinishProfile, KeepsTheSnapshotWhenEverySampleIsInStaticText) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  ProfileWriter w = ProfileWriter::create(path);
  write_recording(w, {kHot, kCold});
  int refreshed = 0;
  const FinishedProfile done = finish_profile(
      std::move(w), counts_of(path),
      {.kallsyms = kOldKallsyms, .in_file = false, .refresh = [&]() -> std::string_view {
         ++refreshed;
         return kOldKallsyms;
       }});
  EXPECT_EQ(refreshed, 0);
  EXPECT_NE(row_named(done.symbols.histogram, "cold_function"), nullptr);
  EXPECT_EQ(chunks_of(path, ChunkType::Kallsyms), 1u);
}

TEST(FinishProfile, AFileHoldingItsSnapshotGetsNoSubset) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  ProfileWriter w = ProfileWriter::create(path);
  write_recording(w, {kHot});
  w.write_chunk(ChunkType::Kallsyms, bytes_of(kOldKallsyms));
  const FinishedProfile done =
      finish_profile(std::move(w), counts_of(path), {.kallsyms = kOldKallsyms, .in_file = true});
  EXPECT_EQ(chunks_of(path, ChunkType::Kallsyms), 1u);
  EXPECT_EQ(perfabi::load_profile(path).kallsyms, kOldKallsyms);
  EXPECT_EQ(row_named(done.symbols.histogram, "hot_function")->samples, 1u);
}

// Not on this boot, so /proc/kcore is not read: the marks the recording made
// at the same peak addresses are kept.
TEST(FinishProfile, KeepsTheSkidMarksOfAnEarlierNaming) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  ProfileWriter w = ProfileWriter::create(path);
  write_recording(w, {kHot, kHot, kCold});
  const AddressCounts counts = counts_of(path);
  Histogram previous = finish_profile(ProfileWriter::create(dir.file("first.kprof")), counts,
                                      {.kallsyms = kOldKallsyms})
                           .symbols.histogram;
  for (FunctionCount& row : previous.rows)
    row.peak_after_irq_enable = row.function == "hot_function";

  const FinishedProfile done =
      finish_profile(std::move(w), counts, {.kallsyms = kOldKallsyms}, {.previous = &previous});
  const FunctionCount* hot = row_named(done.symbols.histogram, "hot_function");
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(hot->peak_ip, kHot);
  EXPECT_TRUE(hot->peak_after_irq_enable);
  EXPECT_FALSE(row_named(done.symbols.histogram, "cold_function")->peak_after_irq_enable);
}

// The copy cannot be made (here: the path no longer names the file): the
// profile stays complete, uncompressed, and one message says so.
TEST(FinishProfile, ACompactionThatFailsKeepsTheCompleteProfile) {
  testing::TempDir dir;
  const std::string path = dir.file("p.kprof");
  ProfileWriter w = ProfileWriter::create(path);
  write_recording(w, {kHot});
  const AddressCounts counts = counts_of(path);
  std::filesystem::remove(path);
  const FinishedProfile done = finish_profile(std::move(w), counts, {.kallsyms = kOldKallsyms});
  ASSERT_EQ(done.messages.size(), 1u);
  EXPECT_NE(done.messages[0].find(path), std::string::npos) << done.messages[0];
  EXPECT_NE(done.messages[0].find("; the profile is complete, its records left uncompressed"),
            std::string::npos)
      << done.messages[0];
  EXPECT_GT(done.bytes, 0u);
}

}  // namespace
}  // namespace kprof
