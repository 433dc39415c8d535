// kprof annotate and kprof diff --annotate on real recordings: against perf
// annotate on the same perf.data, the source line of the hottest
// instruction, kernel functions without and with code bytes (--vmlinux), and
// bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

constexpr const char* kPerf = "/usr/bin/perf";

struct Row {
  double percent = 0;
  std::string text;
  std::string source;
};

// kprof annotate's rows by address: "  70.58%  2073  11be  addq $1, %rax  prog.cpp:22"
// (share and samples blank where an instruction has none).
std::map<uint64_t, Row> parse_kprof(const std::string& text) {
  std::map<uint64_t, Row> out;
  std::istringstream in(text);
  static const std::regex row(
      R"(^ +(?:([0-9.]+)% +[0-9,]+)? +([0-9a-f]+)  (.*?)(?:  +(\S+:\d+))? *$)");
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("Address") != std::string::npos) {
      table = true;
      continue;
    }
    std::smatch m;
    if (!table || !std::regex_match(line, m, row)) continue;
    Row r{m[1].matched ? std::stod(m[1]) : 0.0, m[3], m[4]};
    while (!r.text.empty() && r.text.back() == ' ') r.text.pop_back();
    out[std::stoull(m[2], nullptr, 16)] = r;
  }
  return out;
}

// perf annotate --stdio's instruction lines: "   70.58 :   11be:   add  $0x1,%rax".
std::map<uint64_t, double> parse_perf(const std::string& text) {
  std::map<uint64_t, double> out;
  std::istringstream in(text);
  static const std::regex row(R"(^ +([0-9.]+) : +([0-9a-f]+):\s.*$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) out[std::stoull(m[2], nullptr, 16)] = std::stod(m[1]);
  }
  return out;
}

double total(const std::map<uint64_t, Row>& rows) {
  double sum = 0;
  for (const auto& [address, r] : rows) sum += r.percent;
  return sum;
}

class AnnotateE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  RunResult kprof(const std::vector<std::string>& args, double timeout = 90) {
    std::vector<std::string> argv = {kprof_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    if (args[0] == "annotate" || args[0] == "diff" || args[0] == "report") {
      argv.push_back("--no-pager");
    }
    return run(argv, dir_.path(), timeout);
  }
  std::string record(const std::string& name, const std::vector<std::string>& workload) {
    const std::string path = dir_.file(name);
    std::vector<std::string> args = {"record", "-F", "999", "-o", path, "--"};
    args.insert(args.end(), workload.begin(), workload.end());
    const RunResult rec = kprof(args);
    EXPECT_EQ(rec.exit_code, 0) << rec.describe();
    return path;
  }
  TempDir dir_;
};

// The same recording read by perf annotate and, imported, by kprof annotate:
// the same instructions, and each one's share of the function's samples.
TEST_F(AnnotateE2E, SharesPerInstructionAreThoseOfPerfAnnotate) {
  const std::string data = dir_.file("perf.data"), imported = dir_.file("imported.kprof");
  const RunResult rec = run({kPerf, "record", "-q", "-e", "cpu-clock", "-F", "999", "-o", data,
                             "--", program("kprof_prog_hotcold"), "1"},
                            dir_.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  ASSERT_EQ(kprof({"import", data, "-o", imported}).exit_code, 0);
  const RunResult theirs = run(
      {kPerf, "annotate", "-i", data, "--stdio", "--percent-type", "local-hits", "-s", "kprof_hot"},
      dir_.path(), 120);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.describe();
  const RunResult ours = kprof({"annotate", "kprof_hot", imported});
  ASSERT_EQ(ours.exit_code, 0) << ours.describe();

  const auto perf = parse_perf(theirs.out);
  const auto rows = parse_kprof(ours.out);
  ASSERT_GT(perf.size(), 10u) << theirs.out;
  ASSERT_EQ(rows.size(), perf.size()) << "the same instructions\n" << ours.out << theirs.out;
  for (const auto& [address, percent] : perf) {
    const auto r = rows.find(address);
    ASSERT_NE(r, rows.end()) << std::hex << address << "\n" << ours.out;
    EXPECT_NEAR(r->second.percent, percent, 0.011) << std::hex << address << "\n" << ours.out;
  }
  EXPECT_NEAR(total(rows), 100.0, 0.1);
}

// The hottest instruction of kprof_hot is in its loop, whose source line
// the debug information names.
TEST_F(AnnotateE2E, HottestInstructionIsTheLoopsSourceLine) {
  const std::string path = record("hc.kprof", {program("kprof_prog_hotcold"), "1"});
  const RunResult out = kprof({"annotate", "kprof_hot", path, "--order", "hot"});
  ASSERT_EQ(out.exit_code, 0) << out.describe();
  // The loop's line in the program's source, found rather than assumed.
  std::ifstream source(std::string(KPROF_SOURCE_DIR) + "/tests/programs/prog_hotcold.cpp");
  int line_no = 0, loop = 0;
  for (std::string line; std::getline(source, line) && loop == 0;) {
    ++line_no;
    if (line.find("kprof_hot") == std::string::npos) continue;
    for (std::string next; std::getline(source, next);) {
      ++line_no;
      if (next.find("for (") != std::string::npos) {
        loop = line_no;
        break;
      }
    }
  }
  ASSERT_GT(loop, 0);
  const auto rows = parse_kprof(out.out);
  ASSERT_FALSE(rows.empty()) << out.out;
  const Row* hottest = nullptr;
  for (const auto& [address, r] : rows) {
    if (!hottest || r.percent > hottest->percent) hottest = &r;
    EXPECT_GT(r.percent, 0) << "--order hot lists the sampled instructions only\n" << out.out;
  }
  EXPECT_EQ(hottest->source, "prog_hotcold.cpp:" + std::to_string(loop)) << out.out;
  EXPECT_NEAR(total(rows), 100.0, 0.1) << out.out;
  EXPECT_NE(out.out.find("kprof_hot in " + program("kprof_prog_hotcold")), std::string::npos);
}

// A kernel function: its sampled offsets always; its instructions from
// /proc/kcore where readable, else an honest note, and from --vmlinux (here
// an image made to hold a function of that name: no-ops of its size).
TEST_F(AnnotateE2E, KernelFunctionWithoutAndWithCodeBytes) {
  const std::string path = record("sc.kprof", {program("kprof_prog_syscalls"), "1"});
  const RunResult csv = kprof({"report", path, "--csv", "-", "--dso", "[kernel]"});
  ASSERT_EQ(csv.exit_code, 0) << csv.describe();
  std::istringstream lines(csv.out);
  std::string header, top;
  std::getline(lines, header);
  std::getline(lines, top);  // samples,percent,image,function,mode
  std::vector<std::string> cells;
  for (std::stringstream cell(top); std::getline(cell, cells.emplace_back(), ',');) {
  }
  ASSERT_GE(cells.size(), 4u) << csv.out;
  const std::string function = cells[3];

  const RunResult plain = kprof({"annotate", function, path});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  const auto rows = parse_kprof(plain.out);
  ASSERT_FALSE(rows.empty()) << plain.out;
  EXPECT_NEAR(total(rows), 100.0, 0.1) << plain.out;
  std::smatch size_match;
  ASSERT_TRUE(std::regex_search(plain.out, size_match, std::regex(R"(\((\d+) bytes at)")));
  const uint64_t size = std::stoull(size_match[1]);
  if (std::ifstream("/proc/kcore").good()) {
    for (const auto& [address, r] : rows) EXPECT_FALSE(r.text.empty()) << plain.out;
  } else {
    EXPECT_NE(plain.out.find("no code bytes for kernel functions here"), std::string::npos)
        << plain.out;
    for (const auto& [address, r] : rows) EXPECT_EQ(r.text, "(no code read)") << plain.out;
  }

  auto fake_vmlinux = [&](const std::string& name, uint64_t bytes) {
    const std::string s = dir_.file(name + ".s"), o = dir_.file(name);
    // (16 bytes of padding first: a function at address 0 is no function)
    write_text(s, ".text\n.fill 16,1,0xcc\n.globl \"" + function + "\"\n.type \"" + function +
                      "\",@function\n\"" + function + "\":\n.fill " + std::to_string(bytes) +
                      ",1,0x90\n.size \"" + function + "\"," + std::to_string(bytes) + "\n");
    const RunResult cc = run({"/usr/bin/cc", "-c", s, "-o", o}, dir_.path(), 60);
    EXPECT_EQ(cc.exit_code, 0) << cc.describe();
    return o;
  };
  const RunResult with = kprof({"annotate", function, path, "--vmlinux", fake_vmlinux("v1", size)});
  ASSERT_EQ(with.exit_code, 0) << with.describe();
  const auto coded = parse_kprof(with.out);
  ASSERT_EQ(coded.size(), size) << "one no-op per byte\n" << with.out;
  for (const auto& [address, r] : rows) {
    ASSERT_TRUE(coded.count(address)) << std::hex << address << "\n" << with.out;
    EXPECT_EQ(coded.at(address).text, "nop");
    EXPECT_EQ(coded.at(address).percent, r.percent) << "the same samples, now with code";
  }
  EXPECT_EQ(with.out.find("bytes, the recorded kernel's"), std::string::npos) << with.out;
  const RunResult other =
      kprof({"annotate", function, path, "--vmlinux", fake_vmlinux("v2", size + 8)});
  ASSERT_EQ(other.exit_code, 0) << other.describe();
  EXPECT_NE(other.out.find("bytes, the recorded kernel's " + std::to_string(size)),
            std::string::npos)
      << "another build of the kernel is said\n"
      << other.out;
}

// Two recordings of one binary, side by side instruction by instruction,
// each side's shares of its own samples.
TEST_F(AnnotateE2E, DiffPutsTwoProfilesSideBySide) {
  const std::string a = record("a.kprof", {program("kprof_prog_hotcold"), "1"});
  const std::string b = record("b.kprof", {program("kprof_prog_hotcold"), "1", "1.3"});
  const RunResult out =
      kprof({"diff", "--annotate", "kprof_cold", a, b, "--label", "base", "--label", "slow"});
  ASSERT_EQ(out.exit_code, 0) << out.describe();
  EXPECT_NE(out.out.find("instruction by instruction"), std::string::npos) << out.out;
  std::istringstream in(out.out);
  static const std::regex row(R"(^ +([0-9.]+)% +([0-9.]+)% +[-+][0-9.]+  \+0x[0-9a-f]+  .*$)");
  double sums[2] = {0, 0};
  size_t rows = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    sums[0] += std::stod(m[1]);
    sums[1] += std::stod(m[2]);
    ++rows;
  }
  ASSERT_GT(rows, 0u) << out.out;
  EXPECT_NEAR(sums[0], 100.0, 0.1) << out.out;
  EXPECT_NEAR(sums[1], 100.0, 0.1) << out.out;
}

TEST_F(AnnotateE2E, BadInputSaysWhatToDo) {
  const std::string path = record("hc.kprof", {program("kprof_prog_hotcold"), "1"});
  RunResult r = kprof({"annotate", "kprof_hto", path});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("no sample in a function named kprof_hto"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("close names: kprof_hot"), std::string::npos) << r.err;
  r = kprof({"annotate", "kprof_hot", path, "--symbol", "kprof_hot"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  r = kprof({"annotate", "kprof_hot", path, "--order", "sideways"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  r = kprof({"annotate", "kprof_hot", dir_.file("missing.kprof")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("missing.kprof"), std::string::npos) << r.err;
  r = kprof({"diff", "--annotate", "kprof_hot", path, path, "--vmlinux", "/nonexistent"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("one per kernel"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kprof::e2e
