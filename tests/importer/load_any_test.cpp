// load_any (importer/import.h) on what cannot be read; the kallsyms of
// another boot moved by the KASLR offset line by line, read with core's
// kallsyms parser (importer/perf_kernel_symbols.h).
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
