// kprof record --score-from (collector/score_from.h): the last matching
// line's first group or first number; names; lines split across reads;
// an invalid regex is exit 2 with the reason.
#include "collector/score_from.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace kprof::collector {
namespace {

TEST(ScoreFrom, PgbenchTpsFromItsGroupLastLineWins) {
  ScoreFrom s("tps = ([0-9.]+)");
  EXPECT_EQ(s.name(), "score") << "'tps ' is not a name: the '=' is the regex's";
  s.feed("progress: 5.0 s, 100.0 tps\ntps = 12");
  s.feed("3.5 (without initial connection time)\nlatency average = 8.1 ms\n");
  ASSERT_TRUE(s.value().has_value());
  EXPECT_DOUBLE_EQ(*s.value(), 123.5);
  s.feed("tps = 200.25 (again)\n");
  EXPECT_DOUBLE_EQ(*s.value(), 200.25);
}

TEST(ScoreFrom, NameAndFirstNumberWithoutAGroup) {
  ScoreFrom s("ops=ops/s: .*");
  EXPECT_EQ(s.name(), "ops");
  EXPECT_EQ(s.pattern(), "ops/s: .*");
  s.feed("ops/s: -1.5e3 of 7");  // no newline: finish() reads it
  EXPECT_FALSE(s.value().has_value());
  s.finish();
  ASSERT_TRUE(s.value().has_value());
  EXPECT_DOUBLE_EQ(*s.value(), -1500);
}

TEST(ScoreFrom, NoMatchIsNoScore) {
  ScoreFrom s("tps = ([0-9.]+)");
  s.feed("nothing here\ntps = n/a\n");
  s.finish();
  EXPECT_FALSE(s.value().has_value());
}

TEST(ScoreFrom, InvalidRegexIsExitTwoWithTheReason) {
  try {
    ScoreFrom s("tps = ([0-9.]+");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("not a valid regular expression"), std::string::npos);
  }
  EXPECT_THROW(ScoreFrom("name="), Error);
}

}  // namespace
}  // namespace kprof::collector
