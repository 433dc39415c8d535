#include "report/table.h"

#include <gtest/gtest.h>

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
