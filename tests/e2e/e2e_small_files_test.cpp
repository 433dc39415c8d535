// Small files for short runs: a recording whose kallsyms snapshot is in this
// boot's cache (collector/kallsyms_cache.h) holds only the kallsyms lines its
// samples need (core/kallsyms_subset.h), and still reports the same table
// without the cache; one killed before it wrote them is named from the cache
// on this boot, and says why its kernel functions stay unnamed elsewhere.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "collector/kallsyms_cache.h"
#include "core/chunk_codecs.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "core/profile_reader.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kFromCache = "kernel names from this boot's kallsyms cache";
constexpr std::string_view kUnnamed =
    "kernel functions stay unnamed: the profile was cut short before its kernel symbols were "
    "written";

class SmallFilesE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    KPROF_REQUIRE_SAMPLING();
    if (collector::KallsymsCache(xdg_ + "/kprof").path().empty()) {
      GTEST_SKIP() << "no boot id here: kprof records without a cache";
    }
  }

  std::vector<std::string> with_cache(const std::string& xdg, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/env", "XDG_CACHE_HOME=" + xdg, kprof_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  RunResult kprof(std::vector<std::string> args, const std::string& xdg) {
    return run(with_cache(xdg, std::move(args)), dir_.path(), 60);
  }

  void record(const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"record", "-F", "999", "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", program("kprof_prog_syscalls"), "1"});
    RunResult r = kprof(args, xdg_);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }

  // The stored size of each Kallsyms chunk.
  static std::vector<size_t> kallsyms_chunks(const std::string& path) {
    std::vector<size_t> out;
    ProfileReader reader = ProfileReader::open(path);
    reader.for_each_chunk(
        [](uint16_t t) { return t == static_cast<uint16_t>(ChunkType::Kallsyms); },
        [&](const Chunk& c) { out.push_back(c.stored.size()); });
    return out;
  }

  // kprof record killed with SIGKILL mid-run (and its workload with it).
  void record_killed(const std::string& out) {
    // env execs kprof: the workload is kprof's child.
    const Killed k = record_then_kill(with_cache(xdg_, {"record", "-F", "999", "-o", out, "--",
                                                        program("kprof_prog_syscalls"), "20"}),
                                      dir_.path());
    ASSERT_EQ(k.result.exit_code, 128 + SIGKILL) << k.result.describe();
    ASSERT_FALSE(k.workload.empty()) << "kprof had no workload child after 2.5 s";
    const Profile f = perfabi::load_profile(out);
    ASSERT_FALSE(f.status.complete);
    ASSERT_TRUE(f.kallsyms.empty()) << "the snapshot stayed in the cache";
    ASSERT_FALSE(f.run.kallsyms_digest.empty());
  }

  // Kernel samples in a `kprof report --csv -` table: all, and named.
  static std::pair<uint64_t, uint64_t> kernel_samples(const std::string& csv) {
    uint64_t all = 0, named = 0;
    std::istringstream in(csv);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find(",[kernel],") == std::string::npos) continue;
      const uint64_t n = std::stoull(line.substr(0, line.find(',')));
      all += n;
      if (line.find(",[unknown],") == std::string::npos) named += n;
    }
    return {all, named};
  }

  TempDir dir_;
  std::string xdg_ = dir_.file("xdg");
  std::string elsewhere_ = dir_.file("empty-xdg");  // a machine or user without the cache
};

TEST_F(SmallFilesE2E, CompleteRecordingIsSmallAndSelfContained) {
  const std::string file = dir_.file("s.kprof");
  record(file);
  const auto cached = collector::KallsymsCache(xdg_ + "/kprof").snapshot();
  ASSERT_TRUE(cached.has_value()) << "the recording stored this boot's snapshot";
  const auto chunks = kallsyms_chunks(file);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_LT(chunks[0] * 20, cached->chunk.bytes.size())
      << chunks[0] << " bytes of kallsyms against the snapshot's " << cached->chunk.bytes.size();

  RunResult here = kprof({"report", file, "--csv", "-"}, xdg_);
  ASSERT_EQ(here.exit_code, 0) << here.describe();
  std::filesystem::remove_all(xdg_);
  RunResult there = kprof({"report", file, "--csv", "-"}, elsewhere_);
  ASSERT_EQ(there.exit_code, 0) << there.describe();
  EXPECT_EQ(here.out, there.out);
  if (perfabi::load_profile(file).run.event.exclude_kernel)
    GTEST_SKIP() << "kernel samples excluded";
  const auto [all, named] = kernel_samples(there.out);
  ASSERT_GT(all, 100u) << there.out;
  EXPECT_GE(named * 10, all * 9) << there.out;

  // Named again from the file alone (kprof symbolize reads its kallsyms):
  // the subset knows every sampled address.
  const std::string again = dir_.file("again.kprof");
  std::filesystem::copy_file(file, again);
  RunResult s = kprof({"symbolize", again}, elsewhere_);
  ASSERT_EQ(s.exit_code, 0) << s.describe();
  RunResult r = kprof({"report", again, "--csv", "-"}, elsewhere_);
  EXPECT_EQ(r.out, here.out);

  RunResult info = kprof({"info", file}, elsewhere_);
  EXPECT_NE(info.out.find("symbols (the functions sampled and their neighbours)"),
            std::string::npos)
      << info.out;
}

TEST_F(SmallFilesE2E, CallGraphFramesAreInTheSubset) {
  const std::string file = dir_.file("g.kprof");
  record(file, {"-g"});
  RunResult here = kprof({"report", file, "--children", "--csv", "-"}, xdg_);
  ASSERT_EQ(here.exit_code, 0) << here.describe();
  std::filesystem::remove_all(xdg_);
  // Every kernel frame is named again from the file's own kallsyms.
  RunResult s = kprof({"symbolize", file}, elsewhere_);
  ASSERT_EQ(s.exit_code, 0) << s.describe();
  RunResult there = kprof({"report", file, "--children", "--csv", "-"}, elsewhere_);
  ASSERT_EQ(there.exit_code, 0) << there.describe();
  EXPECT_EQ(here.out, there.out);
}

TEST_F(SmallFilesE2E, KilledRecordingIsNamedFromThisBootsCache) {
  const std::string file = dir_.file("k.kprof");
  record_killed(file);
  if (perfabi::load_profile(file).run.event.exclude_kernel)
    GTEST_SKIP() << "kernel samples excluded";

  RunResult r = kprof({"report", file, "--csv", "-"}, xdg_);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto [all, named] = kernel_samples(r.out);
  ASSERT_GT(all, 100u) << r.out;
  EXPECT_GE(named * 10, all * 9) << r.out;
  RunResult text = kprof({"report", file}, xdg_);
  EXPECT_NE(text.out.find(kFromCache), std::string::npos) << text.describe();
  RunResult info = kprof({"info", file}, xdg_);
  EXPECT_NE(info.out.find("this boot's kallsyms cache"), std::string::npos) << info.out;

  // Without the cache (another user, the cache removed): unnamed, and why.
  RunResult bare = kprof({"report", file}, elsewhere_);
  ASSERT_EQ(bare.exit_code, 0) << bare.describe();
  EXPECT_NE(bare.out.find(kUnnamed), std::string::npos) << bare.describe();
  RunResult bare_csv = kprof({"report", file, "--csv", "-"}, elsewhere_);
  EXPECT_EQ(kernel_samples(bare_csv.out).second, 0u) << bare_csv.out;

  // kprof symbolize on this boot writes the lines it needs into the file:
  // it then reports the same without the cache.
  RunResult s = kprof({"symbolize", file}, xdg_);
  ASSERT_EQ(s.exit_code, 0) << s.describe();
  EXPECT_NE(s.err.find(kFromCache), std::string::npos) << s.describe();
  RunResult after = kprof({"report", file, "--csv", "-"}, elsewhere_);
  EXPECT_EQ(kernel_samples(after.out), kernel_samples(r.out)) << after.describe();
}

TEST_F(SmallFilesE2E, KilledRecordingOfAnotherBootSaysSo) {
  const std::string file = dir_.file("k.kprof");
  record_killed(file);
  // The same file as if recorded on another boot: its Meta rewritten.
  const std::string other = dir_.file("other.kprof");
  {
    ProfileReader reader = ProfileReader::open(file);
    ProfileWriter w = ProfileWriter::create(other);
    reader.for_each_chunk([](uint16_t) { return true; },
                          [&](const Chunk& c) {
                            if (c.type == static_cast<uint16_t>(ChunkType::Meta)) {
                              RunInfo run = decode_run_info(c.payload);
                              run.boot_id = "00000000-1111-2222-3333-444444444444";
                              w.write_chunk(ChunkType::Meta, encode_run_info(run));
                            } else {
                              w.write_chunk(static_cast<ChunkType>(c.type), c.payload);
                            }
                          });
  }
  RunResult r = kprof({"report", other}, xdg_);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find(std::string(kUnnamed) + ", and it was recorded on another boot (boot id "
                                               "00000000-1111-2222-3333-444444444444)"),
            std::string::npos)
      << r.describe();
  EXPECT_EQ(r.out.find(kFromCache), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace kprof::e2e
