// kprof script against perf script on the same recording (perf's own, -g,
// imported), against kprof's folded export after collapsing it the way
// FlameGraph's stackcollapse-perf.pl reads perf script's output, on a
// --call-graph dwarf recording whose stack copies it unwinds, and its bad
// input.
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

constexpr const char* kPerf = "/usr/bin/perf";
// The fields both print alike (perf prints some user IPs relative to their
// file when fields are chosen, so IPs are not compared).
constexpr const char* kFields = "comm,tid,time,period,event,ip,sym,dso";

struct ScriptSample {
  std::string header;
  std::vector<std::string> frames;  // "FUNCTION (IMAGE)", leaf first
};

// perf script's layout: a header line, then one line per frame (a tab, the
// IP, the function and the image), then an empty line.
std::vector<ScriptSample> parse_script(const std::string& text) {
  std::vector<ScriptSample> out;
  std::istringstream in(text);
  static const std::regex frame(R"(^\t *[0-9a-f]+ (.*)$)");
  bool open = false;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.empty()) {
      open = false;
    } else if (open && std::regex_match(line, m, frame)) {
      out.back().frames.push_back(m[1]);
    } else {
      out.push_back({line, {}});
      open = true;
    }
  }
  return out;
}

// What stackcollapse-perf.pl makes of perf script's output, by its documented
// rules: a sample's process name is its header's first field, each frame line
// "IP FUNCTION (IMAGE)" gives FUNCTION (its "+0x..." offset removed), and the
// stack is written root first, after the process name, joined by ';'.
std::map<std::string, uint64_t> collapse(const std::vector<ScriptSample>& samples) {
  std::map<std::string, uint64_t> out;
  static const std::regex name(R"(^(.*) \([^()]*\)$)");
  for (const ScriptSample& s : samples) {
    std::string stack = s.header.substr(0, s.header.find(' '));
    for (auto f = s.frames.rbegin(); f != s.frames.rend(); ++f) {
      std::smatch m;
      std::string fn = std::regex_match(*f, m, name) ? std::string(m[1]) : *f;
      if (const size_t plus = fn.rfind("+0x"); plus != std::string::npos) fn.resize(plus);
      stack += ";" + fn;
    }
    ++out[stack];
  }
  return out;
}

// kprof export --format folded, without its "_[k]" kernel marks and with
// the "+0x..." of functions named by offset ("dash+0xdee0") removed, as the
// collapse removes them.
std::map<std::string, uint64_t> folded(const std::string& text) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(text);
  static const std::regex offset(R"(\+0x[0-9a-f]+(;|$))");
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.rfind(' ');
    std::string stack = line.substr(0, space);
    for (size_t k; (k = stack.find("_[k]")) != std::string::npos;) stack.erase(k, 4);
    out[std::regex_replace(stack, offset, "$1")] += std::stoull(line.substr(space + 1));
  }
  return out;
}

class ScriptE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  RunResult kprof(const std::vector<std::string>& args, double timeout = 90) {
    std::vector<std::string> argv = {kprof_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, dir_.path(), timeout);
  }
  TempDir dir_;
};

// The same samples, the same headers, the same frames named alike: perf's
// recording read by perf script and, imported, by kprof script.
TEST_F(ScriptE2E, PrintsWhatPerfScriptPrintsForTheSameRecording) {
  const std::string data = dir_.file("perf.data"), imported = dir_.file("imported.kprof");
  const RunResult rec = run({kPerf, "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o",
                             data, "--", program("kprof_prog_calltree"), "1"},
                            dir_.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  ASSERT_EQ(kprof({"import", data, "-o", imported}).exit_code, 0);
  const RunResult theirs = run({kPerf, "script", "-i", data, "-F", kFields}, dir_.path(), 120);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.describe();
  const RunResult ours = kprof({"script", imported, "-F", kFields});
  ASSERT_EQ(ours.exit_code, 0) << ours.describe();

  const std::vector<ScriptSample> a = parse_script(theirs.out), b = parse_script(ours.out);
  ASSERT_GT(a.size(), 500u) << theirs.out.substr(0, 2000);
  ASSERT_EQ(b.size(), a.size()) << ours.out.substr(0, 2000);
  size_t frames = 0, same = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(b[i].header, a[i].header) << "sample " << i;
    ASSERT_EQ(b[i].frames.size(), a[i].frames.size()) << "sample " << i << ": " << b[i].header;
    for (size_t k = 0; k < a[i].frames.size(); ++k) {
      ++frames;
      same += a[i].frames[k] == b[i].frames[k];
    }
  }
  // perf names a few assembler labels in ld.so (_dl_start_user) that have
  // no symbol size; kprof leaves those "[unknown]".
  EXPECT_GE(static_cast<double>(same), 0.99 * static_cast<double>(frames))
      << same << " of " << frames << " frames named alike";
  EXPECT_NE(ours.out.find("kprof_ct_leaf (" + program("kprof_prog_calltree") + ")"),
            std::string::npos);
}

// stackcollapse-perf.pl's reading of kprof script is kprof's own folded
// export of the same recording: every stack, every count.
TEST_F(ScriptE2E, CollapsedAsFlameGraphDoesItIsTheFoldedExport) {
  const std::string path = dir_.file("g.kprof");
  const RunResult rec =
      kprof({"record", "-g", "-F", "999", "-o", path, "--", program("kprof_prog_calltree"), "1"});
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  const RunResult ours = kprof({"script", path});
  ASSERT_EQ(ours.exit_code, 0) << ours.describe();
  const RunResult fold = kprof({"export", path, "--format", "folded"});
  ASSERT_EQ(fold.exit_code, 0) << fold.describe();
  const auto collapsed = collapse(parse_script(ours.out));
  const auto exported = folded(fold.out);
  // Every named stack alike; a stack with unnamed frames is printed as
  // sampled (as perf script does), where the export mends it
  // (core/stacks.h mend_broken_chains): only the totals are compared.
  uint64_t total = 0, exported_total = 0, named = 0;
  for (const auto& [stack, n] : collapsed) {
    total += n;
    if (stack.find("[unknown]") != std::string::npos) continue;
    named += n;
    const auto it = exported.find(stack);
    EXPECT_EQ(it == exported.end() ? 0 : it->second, n) << stack;
  }
  for (const auto& [stack, n] : exported) exported_total += n;
  EXPECT_EQ(total, exported_total);
  EXPECT_GT(named, 500u);
}

// A dwarf recording whose stack copies were kept: kprof script unwinds them
// as it reads, so a leaf in the frame-pointer-less program has its callers.
TEST_F(ScriptE2E, UnwindsKeptStackCopies) {
  const std::string path = dir_.file("dwarf.kprof");
  const RunResult rec = kprof({"record", "--call-graph", "dwarf", "--keep-stacks", "-F", "499",
                               "-o", path, "--", program("kprof_prog_calltree_nofp"), "1"});
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  const RunResult ours = kprof({"script", path, "-F", "tid,ip,sym", "--symbol", "kprof_ct_leaf"});
  ASSERT_EQ(ours.exit_code, 0) << ours.describe();
  const std::vector<ScriptSample> samples = parse_script(ours.out);
  ASSERT_GT(samples.size(), 50u) << ours.out.substr(0, 2000);
  size_t with_main = 0;
  for (const ScriptSample& s : samples) {
    for (const std::string& f : s.frames) with_main += f == "main";
  }
  EXPECT_GT(with_main, samples.size() * 9 / 10) << ours.out.substr(0, 2000);
}

TEST_F(ScriptE2E, BadInputIsOneLine) {
  const std::string path = dir_.file("flat.kprof");
  ASSERT_EQ(kprof({"record", "-o", path, "--", program("kprof_prog_hotcold"), "0.3"}).exit_code, 0);
  const RunResult none = kprof({"script", path, "--comm", "no-such-process"});
  EXPECT_EQ(none.exit_code, 1) << none.describe();
  ASSERT_EQ(none.err_lines().size(), 1u) << none.describe();
  EXPECT_NE(none.err.find("no sample matches --comm no-such-process"), std::string::npos)
      << none.err;
  const RunResult field = kprof({"script", path, "-F", "comm,symbol"});
  EXPECT_EQ(field.exit_code, 2) << field.describe();
  EXPECT_NE(field.err.find("no field 'symbol'"), std::string::npos) << field.err;
  const RunResult tid = kprof({"script", path, "--tid", "1"});
  EXPECT_EQ(tid.exit_code, 1) << tid.describe();
  ASSERT_EQ(tid.err_lines().size(), 1u) << tid.describe();
  write_text(dir_.file("perf.data"), "PERFILE2garbage");
  const RunResult perf_data = kprof({"script", dir_.file("perf.data")});
  EXPECT_NE(perf_data.exit_code, 0) << perf_data.describe();
  EXPECT_EQ(perf_data.err_lines().size(), 1u) << perf_data.describe();
}

}  // namespace
}  // namespace kprof::e2e
