// report/annotate.h: samples joined to instructions, runs merged, and the
// listing and side-by-side texts.
#include "report/annotate.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace kprof {
namespace {

FunctionCode three_instructions() {
  FunctionCode code{.address = 0x1100, .size = 9, .lines = {}, .notes = {}};
  code.lines = {{0, 1, "pushq  %rbp", "/src/a.c:10"},
                {1, 4, "addq   $1, %rax", "/src/a.c:11"},
                {5, 4, "addq   $1, %rdx", "/src/a.c:12"}};
  return code;
}

FunctionSamples samples_at(std::map<uint64_t, uint64_t> by_offset) {
  FunctionSamples s{.function = "f", .image = "/bin/a", .by_offset = std::move(by_offset)};
  for (const auto& [offset, n] : s.by_offset) s.samples += n;
  s.profile_samples = s.samples * 2;
  return s;
}

TEST(Annotate, EachInstructionTakesTheSamplesInsideIt) {
  // 30 on the second instruction's first byte, 10 inside it (skid), 60 on the third.
  const Annotation a = annotate(samples_at({{1, 30}, {3, 10}, {5, 60}}), three_instructions());
  ASSERT_EQ(a.lines.size(), 3u);
  EXPECT_EQ(a.lines[0].samples, 0u);
  EXPECT_EQ(a.lines[1].samples, 40u);
  EXPECT_EQ(a.lines[2].samples, 60u);
  EXPECT_EQ(a.samples, 100u);
  EXPECT_EQ(a.size, 9u);
  EXPECT_TRUE(a.notes.empty());
}

TEST(Annotate, SamplesNoInstructionCoversGetTheirOwnRows) {
  // No code at all (a kernel function without its bytes): a row per offset.
  FunctionCode none{.address = 0xffffffff81000000ULL, .size = 64, .lines = {}, .notes = {"why"}};
  Annotation a = annotate(samples_at({{4, 1}, {8, 2}}), none);
  ASSERT_EQ(a.lines.size(), 2u);
  EXPECT_EQ(a.lines[1].offset, 8u);
  EXPECT_EQ(a.lines[1].text, "");
  EXPECT_EQ(a.notes, std::vector<std::string>{"why"});
  // Not even its extent ([vdso]): the addresses as sampled, said so.
  std::ostringstream unknown;
  write_annotation(unknown, annotate(samples_at({{0x7f0000001234, 3}}), FunctionCode{}),
                   AnnotateOrder::Address);
  EXPECT_NE(unknown.str().find("f in /bin/a (code not read): 3 samples"), std::string::npos)
      << unknown.str();
  EXPECT_NE(unknown.str().find("7f0000001234"), std::string::npos) << unknown.str();
  // Code that does not cover a sample (the binary changed): listed, and said.
  a = annotate(samples_at({{1, 5}, {20, 7}}), three_instructions());
  ASSERT_EQ(a.lines.size(), 4u);
  EXPECT_EQ(a.lines[3].offset, 20u);
  EXPECT_EQ(a.lines[3].samples, 7u);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("outside the instructions"), std::string::npos);
}

TEST(Annotate, MergedRunsAddUpByOffset) {
  const Annotation m =
      merge_annotations({annotate(samples_at({{1, 3}}), three_instructions()),
                         annotate(samples_at({{1, 1}, {5, 4}}), three_instructions())});
  ASSERT_EQ(m.lines.size(), 3u);
  EXPECT_EQ(m.lines[1].samples, 4u);
  EXPECT_EQ(m.lines[2].samples, 4u);
  EXPECT_EQ(m.samples, 8u);
  EXPECT_EQ(m.profile_samples, 16u);
}

TEST(Annotate, ListingInAddressOrderOrHottestFirst) {
  const Annotation a = annotate(samples_at({{1, 25}, {5, 75}}), three_instructions());
  std::ostringstream address, hot;
  write_annotation(address, a, AnnotateOrder::Address);
  write_annotation(hot, a, AnnotateOrder::Hot);
  EXPECT_NE(address.str().find("f in /bin/a (9 bytes at 1100): 100 samples, 50.00%"),
            std::string::npos)
      << address.str();
  EXPECT_NE(address.str().find("pushq"), std::string::npos) << "every instruction";
  EXPECT_EQ(hot.str().find("pushq"), std::string::npos) << "sampled ones only";
  const size_t rdx = hot.str().find("75.00%"), rax = hot.str().find("25.00%");
  ASSERT_NE(rdx, std::string::npos);
  ASSERT_NE(rax, std::string::npos);
  EXPECT_LT(rdx, rax) << hot.str();
  EXPECT_NE(hot.str().find("a.c:12"), std::string::npos) << "the source line, base name";
  EXPECT_EQ(hot.str().find("/src/"), std::string::npos);
}

TEST(AnnotateDiff, SameCodeIsComparedInstructionByInstruction) {
  const Annotation a = annotate(samples_at({{1, 50}, {5, 50}}), three_instructions());
  const Annotation b = annotate(samples_at({{1, 20}, {5, 80}}), three_instructions());
  std::ostringstream out;
  write_annotation_diff(out, {a, b}, {"base", "new"}, 0);
  const std::string s = out.str();
  EXPECT_NE(s.find("instruction by instruction"), std::string::npos) << s;
  EXPECT_NE(s.find("50.00%     20.00%   -30.00  +0x1  addq   $1, %rax  a.c:11"), std::string::npos)
      << s;
  EXPECT_NE(s.find("+30.00  +0x5"), std::string::npos) << s;
  EXPECT_EQ(s.find("pushq"), std::string::npos) << "rows without samples are left out";
}

TEST(AnnotateDiff, OtherCodeIsComparedBySourceLineOrByRank) {
  const Annotation a = annotate(samples_at({{1, 50}, {5, 50}}), three_instructions());
  FunctionCode other = three_instructions();
  other.lines[1].text = "incq   %rax";  // another build of the same source
  const Annotation b = annotate(samples_at({{1, 10}, {5, 90}}), other);
  std::ostringstream by_line;
  write_annotation_diff(by_line, {a, b}, {"base", "new"}, 1);
  EXPECT_NE(by_line.str().find("compared by source line"), std::string::npos) << by_line.str();
  EXPECT_NE(by_line.str().find("a.c:11"), std::string::npos) << "the largest change first";
  EXPECT_EQ(by_line.str().find("a.c:12"), std::string::npos) << "--top 1";

  for (CodeLine& l : other.lines) l.source.clear();
  const Annotation c = annotate(samples_at({{1, 10}, {5, 90}}), other);
  std::ostringstream by_rank;
  write_annotation_diff(by_rank, {a, c}, {"base", "new"}, 0);
  EXPECT_NE(by_rank.str().find("by rank"), std::string::npos) << by_rank.str();
  EXPECT_NE(by_rank.str().find("new: +0x5 addq   $1, %rdx"), std::string::npos) << by_rank.str();
}

}  // namespace
}  // namespace kprof
