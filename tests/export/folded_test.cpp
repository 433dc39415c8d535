// The folded (collapsed stacks) writer, stacks_or_flat and Output, on stacks
// made in code.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "core/error.h"
#include "export/export.h"
#include "tests/export/export_support.h"
#include "tests/report/test_support.h"

namespace kprof {
namespace {

std::string folded(const Stacks& st, const FoldedOptions& opts = {}) {
  std::ostringstream out;
  write_folded(out, st, opts);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

uint64_t count_sum(const std::string& text) {
  uint64_t sum = 0;
  for (const std::string& line : lines_of(text)) sum += std::stoull(line.substr(line.rfind(' ')));
  return sum;
}

TEST(Folded, RootFirstByCommWithKernelMarks) {
  // Both bench processes (pids 1234, 1235) share one line per stack.
  EXPECT_EQ(folded(test::bench_stacks()),
            "bench;__libc_start_main;main;compute 20\n"
            "bench;__libc_start_main;main;compute;hash_block 55\n"
            "bench;__libc_start_main;main;recurse;recurse;recurse 12\n"
            "bench;__libc_start_main;main;write;entry_SYSCALL_64_[k];do_syscall_64_[k];"
            "ksys_write_[k] 10\n"
            "sh;__libc_start_main;[libc.so.6] 3\n");
}

TEST(Folded, PidOptionKeepsProcessesApart) {
  EXPECT_EQ(folded(test::bench_stacks(), {.pid = true}),
            "bench-1234;__libc_start_main;main;compute 20\n"
            "bench-1234;__libc_start_main;main;compute;hash_block 50\n"
            "bench-1234;__libc_start_main;main;recurse;recurse;recurse 12\n"
            "bench-1234;__libc_start_main;main;write;entry_SYSCALL_64_[k];do_syscall_64_[k];"
            "ksys_write_[k] 10\n"
            "bench-1235;__libc_start_main;main;compute;hash_block 5\n"
            "sh-99;__libc_start_main;[libc.so.6] 3\n");
}

TEST(Folded, CountsSumToTotalSamples) {
  const Stacks st = test::bench_stacks();
  EXPECT_EQ(count_sum(folded(st)), st.total_samples());
  EXPECT_EQ(count_sum(folded(st, {.pid = true})), st.total_samples());
  EXPECT_EQ(st.total_samples(), 100u);
}

TEST(Folded, OrderDoesNotDependOnInputOrder) {
  Stacks st = test::bench_stacks();
  const std::string expected = folded(st);
  std::reverse(st.stacks.begin(), st.stacks.end());
  EXPECT_EQ(folded(st), expected);
  std::rotate(st.stacks.begin(), st.stacks.begin() + 2, st.stacks.end());
  EXPECT_EQ(folded(st), expected);
}

TEST(Folded, NamesThatWouldBreakTheFormatAreReplaced) {
  Stacks st;
  st.images = {{"/bin/x", ""}};
  st.frames = {{0, "a;b", Mode::User},         {0, "two\nlines\r", Mode::User},
               {0, "operator 12", Mode::User}, {0, "trailing   ", Mode::User},
               {0, "tab\there", Mode::User},   {0, "", Mode::User}};
  st.processes = {{7, "my prog"}, {8, "semi;colon"}, {9, ""}};
  st.stacks = {{0, {2, 1, 0}, 4, 0}, {1, {3}, 1, 0}, {1, {4, 5}, 2, 0}, {2, {2}, 1, 0}};
  EXPECT_EQ(folded(st),
            "[unknown];operator_12 1\n"
            "my_prog;a:b;two?lines?;operator_12 4\n"
            "semi:colon;[x];tab?here 2\n"
            "semi:colon;trailing 1\n");
}

TEST(Folded, UnknownFunctionsAreNamedByTheirImage) {
  EXPECT_EQ(unknown_function_name("/usr/lib/x86_64-linux-gnu/libc.so.6"), "[libc.so.6]");
  EXPECT_EQ(unknown_function_name("[vdso]"), "[vdso]");
  EXPECT_EQ(unknown_function_name("[kernel]"), "[kernel]");
  EXPECT_EQ(unknown_function_name(""), "[unknown]");
  Stacks st;
  st.images = {{"[kernel]", ""}};
  st.frames = {{0, "[unknown]", Mode::Kernel}};
  EXPECT_EQ(folded_frame(st, st.frames[0]), "[kernel]_[k]");
}

TEST(Folded, HistogramOnlyProfileGivesOneFrameStacks) {
  ProfileHistogram hist;
  hist.histogram.images = {{"/usr/bin/bench", ""}, {"[kernel]", ""}};
  hist.histogram.rows = {{0, "compute", Mode::User, 60, 60000},
                         {1, "do_syscall_64", Mode::Kernel, 30, 30000},
                         {0, "[unknown]", Mode::User, 10, 10000},
                         {0, "never_hit", Mode::User, 0, 0}};
  const Stacks st = stacks_or_flat(hist);
  ASSERT_EQ(st.processes.size(), 1u);
  EXPECT_EQ(st.processes[0], (StackProcess{0, ""}));
  EXPECT_EQ(st.images, hist.histogram.images);
  ASSERT_EQ(st.stacks.size(), 3u);  // the row without samples is left out
  for (const Stack& s : st.stacks) EXPECT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(st.total_samples(), hist.histogram.total_samples());
  // No process frame: the process is unknown.
  EXPECT_EQ(folded(st), "[bench] 10\ncompute 60\ndo_syscall_64_[k] 30\n");
}

TEST(Folded, StacksOfAGProfileAreUsedAsTheyAre) {
  ProfileHistogram hist;
  hist.stacks = test::bench_stacks();
  hist.histogram = leaf_histogram(*hist.stacks);
  EXPECT_EQ(stacks_or_flat(hist), *hist.stacks);
}

TEST(Folded, InconsistentStacksAreAnError) {
  Stacks st = test::bench_stacks();
  st.stacks[1].frames.push_back(99);
  std::ostringstream out;
  try {
    write_folded(out, st);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("names frame 99 of 10"), std::string::npos) << e.what();
  }
  st = test::bench_stacks();
  st.frames[0].image = 5;
  EXPECT_THROW(check_stacks(st), Error);
  st = test::bench_stacks();
  st.stacks[0].process = 3;
  EXPECT_THROW(check_stacks(st), Error);
}

TEST(ExportFormat, NamesAndChoices) {
  EXPECT_EQ(parse_export_format("folded"), ExportFormat::Folded);
  EXPECT_EQ(parse_export_format("pprof"), ExportFormat::Pprof);
  EXPECT_STREQ(export_format_name(ExportFormat::Pprof), "pprof");
  EXPECT_TRUE(export_format_is_binary(ExportFormat::Pprof));
  EXPECT_FALSE(export_format_is_binary(ExportFormat::Folded));
  try {
    parse_export_format("svg");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("folded or pprof"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- Output

TEST(ExportOutput, WritesAFile) {
  const std::string dir = test::temp_dir("output_file");
  Output o = open_output(dir + "/out.txt");
  EXPECT_FALSE(o.is_stdout());
  EXPECT_EQ(o.name(), "'" + dir + "/out.txt'");
  o.stream() << "hello\n";
  o.close();
  EXPECT_EQ(test::read_text(dir + "/out.txt"), "hello\n");
}

TEST(ExportOutput, DashIsStdout) {
  Output o = open_output("-");
  EXPECT_TRUE(o.is_stdout());
  EXPECT_EQ(o.name(), "stdout");
  o.close();
}

TEST(ExportOutput, OpenErrorNamesThePathAndErrno) {
  const std::string dir = test::temp_dir("output_missing_dir");
  const std::string path = dir + "/no/such/dir/out.txt";
  try {
    open_output(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot create '" + path + "': No such file or directory");
    EXPECT_EQ(e.exit_code(), 1);
  }
  EXPECT_THROW(open_output(dir), Error);  // a directory: EISDIR
}

TEST(ExportOutput, FullDiskIsAnErrorAtClose) {
  ASSERT_TRUE(std::filesystem::exists("/dev/full"));
  Output o = open_output("/dev/full");
  o.stream() << "a few bytes that fit in the buffer\n";
  try {
    o.close();
    FAIL() << "writing to /dev/full did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write '/dev/full': No space left on device (disk full)");
  }
}

TEST(ExportOutput, FullDiskDuringALargeWrite) {
  Output o = open_output("/dev/full");
  const std::string block(1 << 20, 'x');  // more than the buffer: fails while writing
  o.stream() << block;
  EXPECT_FALSE(o.stream());
  EXPECT_THROW(o.close(), Error);
}

}  // namespace
}  // namespace kprof
