// kprof record with this boot's cached kallsyms snapshot
// (collector/kallsyms_cache.h): later recordings take it instead of reading
// /proc/kallsyms, and a snapshot that misses a sampled kernel address is
// read afresh. A profile whose snapshot is in the cache holds only the lines
// its samples need (core/kallsyms_subset.h; e2e_small_files_test.cpp).
#include <filesystem>

#include <gtest/gtest.h>

#include "collector/kallsyms_cache.h"
#include "collector/procfs.h"
#include "core/bytes.h"
#include "core/file_layout.h"
#include "core/kallsyms_subset.h"
#include "core/profile.h"
#include "core/profile_reader.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

class KallsymsCacheE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    KPROF_REQUIRE_SAMPLING();
    if (cache_.path().empty()) GTEST_SKIP() << "no boot id here: kprof records without a cache";
  }

  // kprof record of the syscall program (mostly kernel samples), with the
  // cache under dir_.
  RunResult record(const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {
        "/usr/bin/env", "XDG_CACHE_HOME=" + xdg_, kprof_binary(), "record", "-F", "999", "-o", out};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", program("kprof_prog_syscalls"), "1"});
    RunResult r = run(argv, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r;
  }

  // The stored bytes of every Kallsyms chunk of a profile, in order.
  static std::vector<std::vector<uint8_t>> kallsyms_chunks(const std::string& path) {
    std::vector<std::vector<uint8_t>> out;
    ProfileReader reader = ProfileReader::open(path);
    reader.for_each_chunk(
        [](uint16_t t) { return t == static_cast<uint16_t>(ChunkType::Kallsyms); },
        [&](const Chunk& c) { out.emplace_back(c.stored.begin(), c.stored.end()); });
    return out;
  }

  TempDir dir_;
  std::string xdg_ = dir_.file("xdg");
  collector::KallsymsCache cache_{xdg_ + "/kprof"};
};

TEST_F(KallsymsCacheE2E, LaterRecordingsUseThisBootsSnapshot) {
  const std::string first = dir_.file("1.kprof"), second = dir_.file("2.kprof");
  record(first);
  ASSERT_TRUE(std::filesystem::exists(cache_.path())) << "the first recording stores it";
  const auto cached = cache_.load(collector::read_modules());
  ASSERT_TRUE(cached.has_value());
  const auto before = std::filesystem::last_write_time(cache_.path());

  record(second);
  EXPECT_EQ(std::filesystem::last_write_time(cache_.path()), before) << "taken, not stored again";
  // Neither file holds the snapshot: the Meta names it, and one Kallsyms
  // chunk at the end holds the lines the samples need.
  for (const std::string& file : {first, second}) {
    const auto chunks = kallsyms_chunks(file);
    ASSERT_EQ(chunks.size(), 1u) << file;
    EXPECT_LT(chunks[0].size() * 20, cached->chunk.bytes.size()) << file;
    const Profile f = perfabi::load_profile(file);
    EXPECT_EQ(f.run.kallsyms_digest, kallsyms_digest(cached->text)) << file;
    EXPECT_EQ(f.run.boot_id, collector::current_boot_id()) << file;
  }
  Profile p = perfabi::load_profile(second);
  EXPECT_LT(p.kallsyms.size() * 20, cached->text.size());
  ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
  if (p.run.event.exclude_kernel) GTEST_SKIP() << "kernel samples excluded on this machine";
  auto by_name = by_function(*p.histogram, Mode::Kernel);
  const uint64_t kernel = sum(by_name), named = kernel - by_name["[unknown]"] - by_name[""];
  ASSERT_GT(kernel, 100u);
  EXPECT_GE(named * 10, kernel * 9) << named << " of " << kernel << " kernel samples named";
}

TEST_F(KallsymsCacheE2E, NoCacheOptionReadsKallsymsAndStoresNothing) {
  record(dir_.file("n.kprof"), {"--no-kallsyms-cache"});
  EXPECT_FALSE(std::filesystem::exists(xdg_));
  EXPECT_EQ(kallsyms_chunks(dir_.file("n.kprof")).size(), 1u);
  // The whole snapshot, written at the start: the file needs no cache, even cut short.
  const Profile p = perfabi::load_profile(dir_.file("n.kprof"));
  EXPECT_TRUE(p.run.kallsyms_digest.empty());
  EXPECT_GT(p.kallsyms.size(), collector::read_kallsyms().size() / 2);
}

TEST_F(KallsymsCacheE2E, SnapshotMissingASampledAddressIsReadAfresh) {
  // A cached snapshot of this boot that knows only the lowest kernel
  // addresses, as one taken before a BPF program was loaded knows nothing of
  // it. It still passes the cache's checks (same first 64 KiB, same modules).
  const std::string modules = collector::read_modules();
  const std::string full = collector::read_kallsyms();
  const std::string partial = full.substr(0, full.find('\n', 128 << 10) + 1);
  ASSERT_LT(partial.size(), full.size() / 4);
  cache_.store(pack_chunk(ChunkType::Kallsyms, bytes_of(partial)), modules);
  ASSERT_TRUE(cache_.load(modules).has_value());

  const std::string out = dir_.file("r.kprof");
  record(out);
  Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
  if (p.run.event.exclude_kernel) GTEST_SKIP() << "kernel samples excluded on this machine";
  // The syscall path lies far above the partial snapshot: kprof read
  // /proc/kallsyms again and named it; the file's one Kallsyms chunk holds
  // the lines of the fresh text that name its samples.
  EXPECT_EQ(kallsyms_chunks(out).size(), 1u);
  EXPECT_LT(p.kallsyms.size(), partial.size());
  EXPECT_EQ(p.run.kallsyms_digest, kallsyms_digest(partial)) << "the snapshot it started with";
  auto by_name = by_function(*p.histogram, Mode::Kernel);
  const uint64_t kernel = sum(by_name), named = kernel - by_name["[unknown]"] - by_name[""];
  ASSERT_GT(kernel, 100u);
  EXPECT_GE(named * 10, kernel * 9) << named << " of " << kernel << " kernel samples named";
  // ... and the cache holds the whole snapshot now.
  const auto now = cache_.load(modules);
  ASSERT_TRUE(now.has_value());
  EXPECT_GT(now->text.size(), full.size() / 2);
}

}  // namespace
}  // namespace kprof::e2e
