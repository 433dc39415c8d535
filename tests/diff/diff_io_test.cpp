// The diff on files: profiles written with ProfileWriter, bad input, and the
// `kprof diff` command line end to end.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile_writer.h"
#include "core/records_chunk.h"
#include "report/diff.h"
#include "tests/diff/diff_support.h"
#include "tests/diff/load_run.h"
#include "tests/support/histogram_rows.h"

namespace kprof {
namespace {

namespace fs = std::filesystem;
using difftest::Entry;

class DiffFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(KPROF_TEST_BINARY_DIR) /
           ("diff-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A complete profile of `run`.
  std::string write(const std::string& name, const DiffRun& run) const {
    const std::string p = path(name);
    ProfileWriter w = ProfileWriter::create(p);
    w.write_chunk(ChunkType::Meta, encode_run_info(run.run));
    if (run.summary) w.write_chunk(ChunkType::Summary, encode_summary(*run.summary));
    w.write_chunk(ChunkType::Histogram, encode_histogram_rows(run.histogram));
    w.write_end();
    return p;
  }

  // A recording killed early: Meta, kallsyms, two Records chunks, the second
  // cut in half; no symbols, no histogram.
  std::string write_truncated(const std::string& name, const RunInfo& run) const {
    const std::string p = path(name);
    {
      ProfileWriter w = ProfileWriter::create(p);
      w.write_chunk(ChunkType::Meta, encode_run_info(run));
      w.write_chunk(ChunkType::Kallsyms, bytes_of(kKallsyms));
      for (int chunk = 0; chunk < 2; ++chunk) {
        RecordEncoder enc;
        for (int i = 0; i < 300; ++i) {
          Sample s;
          s.time = 1000 + i;
          s.ip = i % 3 ? 0xffffffff81000110ull : 0xffffffff81000210ull;  // schedule / kfree
          s.mode = Mode::Kernel;
          s.period = 100000;
          enc.add(s);
        }
        w.write_chunk(ChunkType::Records, enc.take(), false);
      }
    }
    fs::resize_file(p, fs::file_size(p) - 200);
    return p;
  }

  static constexpr const char* kKallsyms =
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 T schedule\n"
      "ffffffff81000200 T kfree\n"
      "ffffffff81000300 T kmalloc\n";

  fs::path dir_;
};

DiffRun simple_run(const std::string& release, uint64_t sched, uint64_t kfree) {
  return difftest::make_run(release, {{"[kernel]", "schedule", Mode::Kernel, sched},
                                      {"[kernel]", "kfree", Mode::Kernel, kfree}});
}

TEST_F(DiffFiles, LoadsCompleteProfiles) {
  std::vector<std::string> warnings;
  DiffRun a = load_diff_run(write("a.kprof", simple_run("6.1", 600, 400)), warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(a.run.kernel_release, "6.1");
  EXPECT_EQ(a.histogram.total_samples(), 1000u);
  ASSERT_TRUE(a.summary.has_value());
}

TEST_F(DiffFiles, MissingFileIsACleanError) {
  std::vector<std::string> warnings;
  try {
    load_diff_run(path("nope.kprof"), warnings);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.kprof"), std::string::npos) << e.what();
  }
}

TEST_F(DiffFiles, NonProfileIsACleanError) {
  difftest::write_text(path("notes.txt"), "these are not the samples you are looking for\n");
  std::vector<std::string> warnings;
  try {
    load_diff_run(path("notes.txt"), warnings);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a kprof profile"), std::string::npos) << e.what();
  }
}

TEST_F(DiffFiles, TruncatedProfileIsDiffedWithAWarning) {
  DiffRun base = simple_run("6.1", 600, 400);
  std::vector<std::string> warnings;
  DiffRun cut = load_diff_run(write_truncated("cut.kprof", base.run), warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(path("cut.kprof")), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("recovered 300 samples"), std::string::npos) << warnings[0];
  // The first Records chunk survived: 200 samples in schedule, 100 in kfree.
  DiffInput in{{{"", {base}}, {"cut", {cut}}}, warnings};
  const DiffResult r = diff_profiles(in);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings[0], warnings[0]);
  bool schedule = false;
  for (const DiffRow& row : r.rows) {
    if (row.name != "schedule") continue;
    schedule = true;
    EXPECT_NEAR(row.cells[1].pct, 200.0 / 3.0, 1e-9);
  }
  EXPECT_TRUE(schedule);
}

// ---------------------------------------------------------------- the command line

struct CliRun {
  int code = -1;
  std::string out;
};

CliRun kprof(const std::string& args) {
  CliRun r;
  const std::string cmd = std::string(KPROF_BINARY) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST_F(DiffFiles, CliTwoProfilesWithCsvJsonLabelsAndScores) {
  const std::string a = write("a.kprof", simple_run("6.1", 600, 400));
  const std::string b = write("b.kprof", simple_run("6.1", 500, 500));
  // One kernel on both sides: labelled by file (issue 23, item 15).
  const CliRun r = kprof("diff " + a + " " + b + " --score a.kprof=100 --score b.kprof=90 --csv " +
                         path("d.csv") + " --json " + path("d.json"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("base a.kprof against b.kprof"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from score (--score)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.900"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(difftest::read_text(path("d.json")));
  EXPECT_EQ(j["rows"].size(), 2u);
  EXPECT_NE(difftest::read_text(path("d.csv")).find("b.kprof delta_pp"), std::string::npos);

  const CliRun labelled = kprof("diff --label old --label new " + a + " " + b + " --by image");
  ASSERT_EQ(labelled.code, 0) << labelled.out;
  EXPECT_NE(labelled.out.find("base old against new"), std::string::npos) << labelled.out;
}

TEST_F(DiffFiles, CliRunsPerSide) {
  std::string args = "diff";
  for (int i = 0; i < 3; ++i)
    args += " " +
            write("a" + std::to_string(i) + ".kprof", simple_run("6.1", 600 + 5 * i, 400 - 5 * i));
  args += " --";
  for (int i = 0; i < 3; ++i)
    args += " " +
            write("b" + std::to_string(i) + ".kprof", simple_run("6.2", 500 + 5 * i, 500 - 5 * i));
  const CliRun r = kprof(args);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("run-to-run variance (3 vs 3 runs)"), std::string::npos) << r.out;
}

// Bad files exit 1, command-line mistakes 2 (usage), as everywhere in kprof;
// a sanitizer report or crash exits otherwise and fails here.
TEST_F(DiffFiles, CliBadInput) {
  const std::string a = write("a.kprof", simple_run("6.1", 600, 400));
  difftest::write_text(path("junk.kprof"), "junk");
  CliRun r = kprof("diff " + a + " " + path("missing.kprof"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("kprof diff: cannot open"), std::string::npos) << r.out;
  r = kprof("diff " + a + " " + path("junk.kprof"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("not a kprof profile"), std::string::npos) << r.out;
  r = kprof("diff " + a);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("at least two profiles"), std::string::npos) << r.out;
  r = kprof("diff " + a + " " + a + " --score nobody=3");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no profile labelled 'nobody'"), std::string::npos) << r.out;
  r = kprof("diff " + a + " " + a + " --by symbol");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown --by 'symbol'"), std::string::npos) << r.out;
}

TEST_F(DiffFiles, CliTruncatedProfileDiffsWithWarning) {
  const std::string a = write("a.kprof", simple_run("6.1", 600, 400));
  const std::string cut = write_truncated("cut.kprof", simple_run("6.2", 1, 1).run);
  const CliRun r = kprof("diff " + a + " " + cut);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: " + cut + ": profile cut short"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Matched diff"), std::string::npos);
}

}  // namespace
}  // namespace kprof
