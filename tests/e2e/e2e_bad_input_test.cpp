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
        // Not taken as the command to run.
        BadInput{"UnknownRecordOption",
                 {"record", "--bogus", "-o", "@DIR/x.kprof", "--", "@PROG", "0"},
                 "",
                 "unknown option '--bogus'",
                 2}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace kprof::e2e
