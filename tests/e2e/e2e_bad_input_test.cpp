// Bad input to the kprof binary: each case exits 1 (kprof's own failure; a
// crash or a sanitizer's report exits otherwise) with exactly one line on
// stderr that names the problem.
#include <gtest/gtest.h>

#include "tests/e2e/e2e_helpers.h"

namespace kprof::e2e {
namespace {

struct BadInput {
  std::string name;
  std::vector<std::string> args;  // after "kprof"; "@DIR" is the temp dir
  std::string setup;              // "notkprof", "empty" or "": file to create at @DIR/f
  std::string must_mention;       // the line names this ("@DIR" expanded)
  int code = 1;                   // 1: kprof's own failure; 2: a usage error
  std::string must_not_mention;   // nor this ("": no such check)
};

void PrintTo(const BadInput& b, std::ostream* os) {
  *os << b.name;
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

std::string expand(std::string s, const std::string& dir) {
  for (size_t at; (at = s.find("@DIR")) != std::string::npos;) s.replace(at, 4, dir);
  return s;
}

TEST_P(BadInputTest, FailsWithOneLine) {
  const BadInput& c = GetParam();
  TempDir dir;
  if (c.setup == "notkprof") write_text(dir.file("f"), "hello, this is not a profile\n");
  if (c.setup == "empty") write_text(dir.file("f"), "");
  std::vector<std::string> argv = {kprof_binary()};
  for (const std::string& a : c.args) {
    argv.push_back(a == "@PROG" ? program("kprof_prog_exit") : expand(a, dir.path()));
  }
  RunResult r = run(argv, dir.path(), 30);
  ASSERT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, c.code) << r.describe();
  auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.describe();
  EXPECT_NE(lines[0].find(expand(c.must_mention, dir.path())), std::string::npos) << r.describe();
  EXPECT_EQ(lines[0].rfind("kprof", 0), 0u) << r.describe();
  if (!c.must_not_mention.empty()) {
    EXPECT_EQ(lines[0].find(c.must_not_mention), std::string::npos) << r.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Record, BadInputTest,
    ::testing::Values(BadInput{"UnknownEvent",
                               {"record", "-e", "NO_SUCH_EVENT", "-o", "@DIR/x.kprof", "--",
                                "@PROG", "0"},
                               "",
                               "NO_SUCH_EVENT"},
                      BadInput{"MissingCommand",
                               {"record", "-o", "@DIR/x.kprof", "--", "@DIR/no_such_command_xyz"},
                               "",
                               "no_such_command_xyz"},
                      BadInput{"MissingPathIsNotSearchedInPath",
                               {"record", "-o", "@DIR/x.kprof", "--", "@DIR/no_such_command_xyz"},
                               "",
                               "xyz': No such file or directory",
                               1,
                               "PATH"},
                      BadInput{"UnwritableOutput",
                               {"record", "-o", "/proc/nope/x.kprof", "--", "@PROG", "0"},
                               "",
                               "/proc/nope/x.kprof"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Report, BadInputTest,
    ::testing::Values(
        BadInput{"NotAProfile", {"report", "@DIR/f"}, "notkprof", "@DIR/f"},
        BadInput{"EmptyFile", {"report", "@DIR/f"}, "empty", "@DIR/f"},
        BadInput{"MissingFile", {"report", "@DIR/missing.kprof"}, "", "@DIR/missing.kprof"}),
    [](const auto& info) { return info.param.name; });

// Numbers out of range say the range in words, not CLI11's 300 digits.
INSTANTIATE_TEST_SUITE_P(
    Usage, BadInputTest,
    ::testing::Values(
        BadInput{"ZeroFrequency",
                 {"record", "-F", "0", "-o", "@DIR/x.kprof", "--", "@PROG", "0"},
                 "",
                 "must be between 1 and kernel.perf_event_max_sample_rate",
                 2},
        BadInput{"ZeroPeriod",
                 {"record", "-c", "0", "-o", "@DIR/x.kprof", "--", "@PROG", "0"},
                 "",
                 "must be 1 or more, not '0'",
                 2},
        BadInput{"NegativeTop", {"report", "@DIR/f", "--top", "-1"}, "", "must be 0 or more", 2},
        // Issue 23, item 15: in the order given (CLI11 lists them last first).
        BadInput{"ExtraArgumentsInOrder",
                 {"report", "@DIR/f", "b", "c"},
                 "",
                 "unexpected arguments: b c (try --help)",
                 2},
        // Not taken as the command to run.
        BadInput{"UnknownRecordOption",
                 {"record", "--bogus", "-o", "@DIR/x.kprof", "--", "@PROG", "0"},
                 "",
                 "unknown option '--bogus'",
                 2}),
    [](const auto& info) { return info.param.name; });

// Issue 23, item 5: one flipped byte in a Records chunk of a real recording
// skips that chunk only: the summary and histogram after it are read, user
// functions are named, and the header says what was skipped.
TEST(DamagedChunk, IsSkippedAndWhatFollowsIsRead) {
  TempDir dir;
  const std::string path = dir.file("x.kprof");
  const RunResult rec = run({kprof_binary(), "record", "-F", "999", "-o", path, "--",
                             program("kprof_prog_hotcold"), "0.5"},
                            dir.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  std::string bytes = read_text(path);
  size_t records = 0;  // offset of the first Records chunk (type 4)
  for (size_t pos = 16; pos + 16 <= bytes.size();) {
    auto u = [&](size_t at, int n) {
      uint32_t v = 0;
      for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(bytes[at + i]);
      return v;
    };
    if (u(pos, 2) == 4) {
      records = pos;
      ASSERT_GT(u(pos + 4, 4), 8u);
      break;
    }
    pos += 16 + u(pos + 4, 4);
  }
  ASSERT_NE(records, 0u) << "no Records chunk";
  bytes[records + 16 + 5] ^= 0x40;
  write_text(path, bytes);
  const RunResult r = run({kprof_binary(), "report", path}, dir.path(), 30);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("kprof_hot"), std::string::npos) << "user functions named: " << r.describe();
  EXPECT_NE(r.out.find("profile damaged: skipped chunk 'records' (type 4) at offset " +
                       std::to_string(records)),
            std::string::npos)
      << r.describe();
  EXPECT_NE(r.out.find("its histogram was read whole"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("recovered"), std::string::npos) << r.describe();
}

// Issue 23, item 6: a file cut short before any sample is a failure to
// report (exit 1, one line), as an empty file is; info still describes it.
TEST(NothingRecovered, IsAFailureNotAnEmptyReport) {
  TempDir dir;
  const std::string path = dir.file("x.kprof");
  const RunResult rec =
      run({kprof_binary(), "record", "-o", path, "--", program("kprof_prog_exit"), "0"}, dir.path(),
          60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  std::string bytes = read_text(path);
  ASSERT_GT(bytes.size(), 32u);
  // The header, then the Meta chunk (the first): its stored length at 16 + 4.
  uint32_t meta_len = 0;
  for (int i = 3; i >= 0; --i) meta_len = meta_len << 8 | static_cast<uint8_t>(bytes[20 + i]);
  ASSERT_LT(32u + meta_len, bytes.size());
  write_text(path, bytes.substr(0, 32 + meta_len));
  for (const std::string& cmd : {"report", "export --format folded"}) {
    const RunResult r =
        run({"/bin/sh", "-c", kprof_binary() + " " + cmd + " " + path}, dir.path(), 30);
    EXPECT_EQ(r.exit_code, 1) << cmd << ": " << r.describe();
    const auto lines = r.err_lines();
    ASSERT_EQ(lines.size(), 1u) << r.describe();
    EXPECT_NE(lines[0].find("no samples could be recovered"), std::string::npos) << r.describe();
  }
  const RunResult d = run({kprof_binary(), "diff", path, path}, dir.path(), 30);
  EXPECT_EQ(d.exit_code, 1) << d.describe();
  const RunResult info = run({kprof_binary(), "info", path}, dir.path(), 30);
  EXPECT_EQ(info.exit_code, 0) << info.describe();
  EXPECT_NE(info.out.find("cut short"), std::string::npos) << info.describe();
}

}  // namespace
}  // namespace kprof::e2e
