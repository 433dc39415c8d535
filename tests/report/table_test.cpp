#include "report/table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace kprof {
namespace {

TEST(Table, AlignsColumnsWithoutTrailingBlanks) {
  TextTable t({{"n", Align::Right}, {"name"}, {"note"}});
  t.add_row({"5", "a", ""});
  t.add_row({"1234", "bbbbbb", "x"});
  EXPECT_EQ(t.str(),
            "   n  name    note\n"
            "   5  a\n"
            "1234  bbbbbb  x\n");
  EXPECT_EQ(t.str(false),
            "   5  a\n"
            "1234  bbbbbb  x\n");
}

TEST(Table, CutsWideCellsByCodePoints) {
  EXPECT_EQ(display_width("ab\u2026"), 3u);
  EXPECT_EQ(truncate_display("abcdef", 4), "abc\u2026");
  EXPECT_EQ(truncate_display("abcd", 4), "abcd");
  EXPECT_EQ(truncate_display("\u00e9\u00e9\u00e9\u00e9\u00e9", 3), "\u00e9\u00e9\u2026");
  TextTable t({{"x", Align::Left, 3}, {"y"}});
  t.add_row({"abcdef", "1"});
  EXPECT_EQ(t.str(), "x    y\nab\u2026  1\n");
}

// Issue 23, item 11: names fitted to a terminal.
TEST(Table, ShortenNameDropsParametersThenTheMiddle) {
  EXPECT_EQ(shorten_name("work(long)", 10), "work(long)");
  EXPECT_EQ(shorten_name("ns::Box<long>::work(long, std::pair<int, int>) const", 30),
            "ns::Box<long>::work(\u2026) const");
  const std::string cut =
      shorten_name("ns::detail::Allocator<std::pair<long, long>>::allocate()", 20);
  EXPECT_EQ(display_width(cut), 20u);
  EXPECT_EQ(cut, "ns::detail\u2026llocate()") << "no parameters to drop: the middle goes";
  EXPECT_EQ(shorten_name("abcdefghij", 5), "ab\u2026ij");
  EXPECT_EQ(display_width(shorten_name("\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9", 4)), 4u);
  // Nested parentheses: the outermost list goes.
  EXPECT_EQ(shorten_name("f(void (*)(int), long) const", 12), "f(\u2026) const");
}

TEST(Table, FitShortensNamesAndTitlesButNeverNumbers) {
  TextTable t({{"base-kernel-label %", Align::Right, 0, "base %"},
               {"function", Align::Left, 60},
               {"image", Align::Left, 60}});
  t.add_row({"12.5000", "a_really_long_function_name_that_goes_on_and_on(int)", "libfoo.so"});
  t.add_row({"1.0000", "short", "/usr/lib/x86_64-linux-gnu/libverylongname.so.6"});
  const std::string wide = t.str();
  EXPECT_NE(wide.find("base-kernel-label %"), std::string::npos);
  t.fit(50);
  const std::string fitted = t.str();
  std::istringstream in(fitted);
  for (std::string line; std::getline(in, line);) EXPECT_LE(display_width(line), 50u) << line;
  EXPECT_NE(fitted.find("base %"), std::string::npos) << fitted;
  EXPECT_NE(fitted.find("12.5000"), std::string::npos) << fitted;
  EXPECT_NE(fitted.find("\u2026"), std::string::npos) << fitted;
  // Room enough: only the short title, names whole.
  t.fit(120);
  EXPECT_NE(t.str().find("a_really_long_function_name_that_goes_on_and_on(int)"),
            std::string::npos);
  // Numbers alone wider than the line: names stop at 12, numbers stay whole.
  TextTable n({{"a", Align::Right}, {"b", Align::Right}, {"name", Align::Left, 60}});
  n.add_row({"123456789012345", "123456789012345", "abcdefghijklmnopqrstuvwxyz"});
  n.fit(20);
  EXPECT_NE(n.str().find("123456789012345  123456789012345  abcdef\u2026vwxyz"), std::string::npos)
      << n.str();
}

TEST(Table, WrapLineBreaksAtBlanksWithAHangingIndent) {
  EXPECT_EQ(wrap_line("short line", 20), "short line");
  EXPECT_EQ(wrap_line("one two three four five", 0), "one two three four five");
  EXPECT_EQ(wrap_line("warning: one two three four five six", 21),
            "warning: one two\n  three four five six");
  EXPECT_EQ(wrap_line("# notice:      alpha beta gamma delta epsilon", 40),
            "# notice:      alpha beta gamma delta\n#              epsilon");
  // Too narrow for that indent: two blanks.
  EXPECT_EQ(wrap_line("# notice:      alpha beta gamma delta epsilon", 30),
            "# notice:      alpha beta\n  gamma delta epsilon");
  // Colour escapes take no room and are never split.
  const std::string coloured = "\x1b[1;33m# event:\x1b[0m  aaa bbb ccc ddd eee fff ggg";
  EXPECT_EQ(wrap_line(coloured, 30),
            "\x1b[1;33m# event:\x1b[0m  aaa bbb ccc ddd eee\n#         fff ggg");
  // A word longer than the line is broken.
  const std::string w = wrap_line("x abcdefghijklmnopqrstuvwxyz", 10);
  std::istringstream in(w);
  for (std::string line; std::getline(in, line);) EXPECT_LE(display_width(line), 10u) << w;
  std::string joined;
  for (char c : w) {
    if (c != ' ' && c != '\n') joined += c;
  }
  EXPECT_EQ(joined, "xabcdefghijklmnopqrstuvwxyz") << "nothing is lost";
}

TEST(Table, NumberFormats) {
  EXPECT_EQ(format_percent(12.345678), "12.3457");
  EXPECT_EQ(format_percent(-0.00001), "0.0000");
  EXPECT_EQ(format_percent(100), "100.0000");
  EXPECT_DOUBLE_EQ(percent_of(1, 4), 25.0);
  EXPECT_EQ(percent_of(1, 0), 0.0);
  EXPECT_EQ(format_seconds(1234567890), "1.235 s");
  EXPECT_EQ(format_command({"./a", "b c", "it's", ""}), "./a 'b c' 'it'\\''s' ''");
  EXPECT_EQ(path_basename("/usr/lib/libc.so.6"), "libc.so.6");
  EXPECT_EQ(path_basename("[kernel]"), "[kernel]");
  EXPECT_EQ(path_basename("bench"), "bench");
}

}  // namespace
}  // namespace kprof
