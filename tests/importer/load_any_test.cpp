// load_any's limits on what it reads (importer/import.h): a listing is text
// of at most kMaxListingBytes, refused at its first NUL byte; and the
// kallsyms of another boot moved by the KASLR offset line by line, read with
// core's kallsyms parser (importer/perf_kernel_symbols.h).
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/error.h"
#include "importer/import.h"
#include "importer/perf_kernel_symbols.h"
#include "tests/support/text_files.h"

namespace kprof::importer {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/kprof_load_any_" + name + "_" + std::to_string(::getpid());
}

std::string error_of(const std::string& path) {
  try {
    load_any(path, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kHeading = "# Overhead  Command  Shared Object  Symbol\n";
const std::string kRow = "    60.02%  busy     busy           [.] spin\n";

// Past the sniffed bytes a listing holds binary data: refused, naming where.
TEST(LoadAny, RefusesAListingWithANulByte) {
  const std::string path = temp_path("nul");
  std::string text = kHeading;
  while (text.size() <= kSniffBytes) text += kRow;
  test::write_text(path, text + std::string(1, '\0') + kRow);
  EXPECT_EQ(error_of(path), path + " holds a NUL byte at offset " + std::to_string(text.size()) +
                                ": binary data, not an opreport / perf report listing");
  std::filesystem::remove(path);
}

// A file larger than any listing is refused from its size, before it is read.
TEST(LoadAny, RefusesAListingFileLargerThanTheCap) {
  const std::string path = temp_path("large");
  std::string text = kHeading;
  while (text.size() <= kSniffBytes) text += kRow;
  test::write_text(path, text);
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(kMaxListingBytes) + 1), 0);  // sparse
  EXPECT_EQ(error_of(path), path +
                                " is over 64 MiB: too large for an opreport / perf report "
                                "listing (kprof reads listings of up to 64 MiB)");
  std::filesystem::remove(path);
}

TEST(LoadAny, ReadsAListingOfManyBlocks) {
  const std::string path = temp_path("blocks");
  std::string text = kHeading;
  while (text.size() < (1u << 20)) text += kRow;
  test::write_text(path, text);
  const Profile p = load_any(path, {});
  ASSERT_TRUE(p.histogram);
  EXPECT_EQ(p.run.source_format, "perf report");
  std::filesystem::remove(path);
}

TEST(LoadAny, FileFormatOfWhatCannotBeRead) {
  EXPECT_EQ(file_format(::testing::TempDir()), InputFormat::Unknown);  // a directory
  EXPECT_EQ(file_format(temp_path("missing")), InputFormat::Unknown);
}

TEST(KallsymsRelocation, TextAddressIsTheKernelsUnderscoreText) {
  EXPECT_EQ(kallsyms_text_address("ffffffff81000000 T startup_64\n"
                                  "ffffffffc0001000 t _text\t[mod]\n"
                                  "ffffffff81000100 T _text\n"),
            0xffffffff81000100u);
  EXPECT_EQ(kallsyms_text_address("ffffffff81000000 T startup_64\n"), 0u);
  EXPECT_EQ(kallsyms_text_address("0000000000000000 T _text\n"), 0u);  // hidden
}

// Every address moved, module lines too; hidden (0) and unreadable lines kept.
TEST(KallsymsRelocation, MovesEveryAddressAndKeepsWhatItCannotRead) {
  const std::string in =
      "ffffffff81000000 T _text\n"
      "ffffffff81001000 t do_thing\n"
      "ffffffffc0002000 t mod_fn\t[ext4]\n"
      "0000000000000000 T hidden\n"
      "not a kallsyms line\n"
      "\n"
      "ffffffff81002000 W last";
  EXPECT_EQ(relocate_kallsyms(in, 0x2000000),
            "ffffffff83000000 T _text\n"
            "ffffffff83001000 t do_thing\n"
            "ffffffffc2002000 t mod_fn\t[ext4]\n"
            "0000000000000000 T hidden\n"
            "not a kallsyms line\n"
            "\n"
            "ffffffff83002000 W last\n");
}

}  // namespace
}  // namespace kprof::importer
