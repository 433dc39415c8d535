#include "collector/kallsyms_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "collector/procfs.h"
#include "core/bytes.h"
#include "tests/core/test_util.h"
#include "tests/support/text_files.h"

namespace kprof::collector {
namespace {

using kprof::testing::TempDir;

class KallsymsCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (read_text_file("/proc/kallsyms", 4096).empty()) {
      GTEST_SKIP() << "/proc/kallsyms is not readable here";
    }
    if (cache_.path().empty()) GTEST_SKIP() << "/proc/sys/kernel/random/boot_id is not readable";
    modules_ = read_modules();
  }

  TempDir tmp_;
  std::string dir_ = tmp_.file("cache/kprof");
  KallsymsCache cache_{dir_};
  std::string modules_;
};

TEST_F(KallsymsCacheTest, DisabledCacheFindsAndStoresNothing) {
  KallsymsCache off("");
  EXPECT_EQ(off.path(), "");
  EXPECT_FALSE(off.store(pack_chunk(ChunkType::Kallsyms, bytes_of("x")), ""));
  EXPECT_FALSE(off.load("").has_value());
  EXPECT_FALSE(off.snapshot().has_value());
}

TEST_F(KallsymsCacheTest, StoredSnapshotIsLoadedAsItWasPacked) {
  EXPECT_FALSE(cache_.load(modules_).has_value());  // nothing stored yet
  const KallsymsSnapshot fresh = read_kallsyms_snapshot();
  EXPECT_TRUE(cache_.store(fresh.chunk, modules_)) << "says it is stored";

  struct stat st {};
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);  // kernel addresses: the owner's only
  ASSERT_EQ(::stat(cache_.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(cache_.path().find("/kallsyms-"), std::string::npos) << cache_.path();

  const auto loaded = cache_.load(modules_);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->text, fresh.text);
  EXPECT_EQ(loaded->chunk.type, fresh.chunk.type);
  EXPECT_EQ(loaded->chunk.flags, fresh.chunk.flags);
  EXPECT_EQ(loaded->chunk.raw_len, fresh.chunk.raw_len);
  EXPECT_EQ(loaded->chunk.bytes, fresh.chunk.bytes);
}

TEST_F(KallsymsCacheTest, OtherModulesMeanNoSnapshot) {
  cache_.store(read_kallsyms_snapshot().chunk, modules_);
  ASSERT_TRUE(cache_.load(modules_).has_value());
  EXPECT_FALSE(cache_.load(modules_ + "kprof_test 4096 0 - Live 0xffffffffc0000000\n").has_value());
}

TEST_F(KallsymsCacheTest, SnapshotThatNoLongerMatchesTheKernelIsNotUsed) {
  // Same boot, but the first bytes differ from what the kernel shows now (as
  // when kptr_restrict hides addresses after the snapshot was taken).
  std::string text = read_kallsyms_snapshot().text;
  ASSERT_GT(text.size(), 16u);
  for (size_t i = 0; i < 16; ++i) text[i] = '0';
  cache_.store(pack_chunk(ChunkType::Kallsyms, bytes_of(text)), modules_);
  EXPECT_FALSE(cache_.load(modules_).has_value());
}

TEST_F(KallsymsCacheTest, DamagedOrForeignFilesAreIgnoredAndReplaced) {
  const KallsymsSnapshot fresh = read_kallsyms_snapshot();
  cache_.store(fresh.chunk, modules_);
  const std::string path = cache_.path();
  std::vector<uint8_t> bytes = kprof::testing::read_bytes(path);
  ASSERT_GT(bytes.size(), 100u);

  bytes[bytes.size() / 2] ^= 0xff;  // the checksum catches it
  kprof::testing::write_bytes(path, bytes);
  EXPECT_FALSE(cache_.load(modules_).has_value());

  bytes.resize(bytes.size() / 2);  // cut short: no End chunk
  kprof::testing::write_bytes(path, bytes);
  EXPECT_FALSE(cache_.load(modules_).has_value());

  test::write_text(path, "not a profile");
  EXPECT_FALSE(cache_.load(modules_).has_value());

  cache_.store(fresh.chunk, modules_);  // a later recording repairs it
  ASSERT_TRUE(cache_.load(modules_).has_value());
  ASSERT_EQ(::chmod(path.c_str(), 0620), 0);  // others could have written it
  EXPECT_FALSE(cache_.load(modules_).has_value());
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);

  // A link is not followed, even to a good snapshot.
  const std::string real = tmp_.file("real.kprof");
  std::filesystem::rename(path, real);
  std::filesystem::create_symlink(real, path);
  EXPECT_FALSE(cache_.load(modules_).has_value());
}

TEST_F(KallsymsCacheTest, StoringRemovesEarlierBootsOnly) {
  std::filesystem::create_directories(dir_);
  const std::string old_boot = dir_ + "/kallsyms-00000000-0000-0000-0000-000000000000.kprof";
  const std::string other = dir_ + "/notes.txt";
  test::write_text(old_boot, "x");
  test::write_text(other, "y");
  cache_.store(read_kallsyms_snapshot().chunk, modules_);
  EXPECT_FALSE(std::filesystem::exists(old_boot));
  EXPECT_TRUE(std::filesystem::exists(other));
  EXPECT_TRUE(std::filesystem::exists(cache_.path()));
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);  // no temporary file left behind
}

TEST_F(KallsymsCacheTest, DirectoryIsMadeOwnerOnlyAndNeverALink) {
  std::filesystem::create_directories(dir_);
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  cache_.store(read_kallsyms_snapshot().chunk, modules_);
  struct stat st {};
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(cache_.load(modules_).has_value());

  // A link in the directory's place is not written through.
  const std::string elsewhere = tmp_.file("elsewhere");
  std::filesystem::create_directories(elsewhere);
  KallsymsCache linked(tmp_.file("link"));
  std::filesystem::create_directory_symlink(elsewhere, tmp_.file("link"));
  linked.store(read_kallsyms_snapshot().chunk, modules_);
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
}

TEST_F(KallsymsCacheTest, UnwritableDirectoryIsNotAnError) {
  test::write_text(tmp_.file("file"), "");
  KallsymsCache blocked(tmp_.file("file") + "/kprof");  // a path through a regular file
  EXPECT_FALSE(blocked.store(read_kallsyms_snapshot().chunk, modules_));
  EXPECT_FALSE(blocked.load(modules_).has_value());
}

// snapshot(): what a reader of a cut-short profile takes (checked by the
// profile's digest), whatever /proc reads now; load() refuses the same file.
TEST_F(KallsymsCacheTest, SnapshotIsTheStoredTextWithoutLiveChecks) {
  EXPECT_FALSE(cache_.snapshot().has_value());
  const std::string text = "ffffffff81000000 T not_this_kernels_text\n";
  ASSERT_TRUE(cache_.store(pack_chunk(ChunkType::Kallsyms, bytes_of(text)), "other modules"));
  EXPECT_FALSE(cache_.load(modules_).has_value());
  const auto snap = cache_.snapshot();
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap->text, text);
  EXPECT_FALSE(current_boot_id().empty());
  EXPECT_NE(cache_.path().find(current_boot_id()), std::string::npos) << cache_.path();
}

TEST(KallsymsCacheDir, FollowsXdgThenHome) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string saved_xdg = xdg ? xdg : "", saved_home = home ? home : "";
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(KallsymsCache::default_dir(), "/x/cache/kprof");
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // not absolute: ignored, as the XDG spec says
  EXPECT_EQ(KallsymsCache::default_dir(), "/home/u/.cache/kprof");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(KallsymsCache::default_dir(), "/home/u/.cache/kprof");
  ::unsetenv("HOME");
  EXPECT_EQ(KallsymsCache::default_dir(), "");
  if (xdg) ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  if (home) ::setenv("HOME", saved_home.c_str(), 1);
}

}  // namespace
}  // namespace kprof::collector
