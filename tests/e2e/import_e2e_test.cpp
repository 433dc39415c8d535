// perf.data round trips against perf itself: the known-profile programs are
// recorded with `perf record -e cpu-clock` (plain, -g, -a, two events, and
// one perf record killed with kill -9), then `kprof report` on the file must
// count the samples perf counts and name the top functions perf names, with
// the same shares; `kprof diff` of a kprof and a perf recording of the same
// program marks nothing as changed; `kprof import` writes a profile that
// reports the same.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kPerf = "/usr/bin/perf";

// Shares of one function in two reports of the same samples may differ by
// this much (the issue's bound): rounding to 2 decimals on perf's side, and
// nothing else when both name the same addresses alike.
constexpr double kShareBound = 0.5;

// "a,b,c" -> fields; quotes as RFC 4180 (kprof's CSV).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// Share per function name in `perf report --stdio --sort sym` output (perf
// merges a name across images with --sort sym; hex addresses are skipped:
// they are what neither tool could name).
std::map<std::string, double> perf_shares(const std::string& text) {
  std::map<std::string, double> out;
  static const std::regex row(R"(^\s+([0-9.]+)%\s+\[(.)\]\s+(.+?)\s*$)");
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    const std::string name = m[3];
    if (name.rfind("0x", 0) == 0) continue;
    out[name] += std::stod(m[1]);
  }
  return out;
}

// "ns::f(int, char const*) const" -> "ns::f": perf prints C++ names
// without their parameters, kprof with them.
std::string without_parameters(const std::string& name) {
  size_t end = name.size();
  const std::string konst = " const";
  if (end > konst.size() && name.compare(end - konst.size(), konst.size(), konst) == 0) {
    end -= konst.size();
  }
  if (end == 0 || name[end - 1] != ')') return name;
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return i > 0 ? name.substr(0, i) : name;
  }
  return name;
}

// Share per function name (summed over images) in `kprof report --csv -`,
// C++ names without their parameters, as perf prints them.
std::map<std::string, double> kprof_shares(const std::string& csv) {
  std::map<std::string, double> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // heading
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() < 5) continue;
    out[without_parameters(f[3])] += std::stod(f[1]);
  }
  return out;
}

std::string dump(const std::map<std::string, double>& m, size_t n = 15) {
  std::vector<std::pair<double, std::string>> v;
  for (const auto& [k, s] : m) v.emplace_back(-s, k);
  std::sort(v.begin(), v.end());
  std::string out;
  for (size_t i = 0; i < v.size() && i < n; ++i) {
    out += "  " + std::to_string(-v[i].first) + "  " + v[i].second + "\n";
  }
  return out;
}

class ImportE2E : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }

  // `perf record -e EVENTS -F 999 [extra] -o NAME -- workload`.
  std::string perf_record(const std::string& name, const std::vector<std::string>& extra,
                          const std::vector<std::string>& workload,
                          const std::string& events = "cpu-clock") {
    const std::string path = dir_.file(name);
    std::vector<std::string> argv = {kPerf, "record", "-e", events, "-F", "999", "-o", path};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.insert(argv.end(), workload.begin(), workload.end());
    RunResult r = run(argv, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return path;
  }

  RunResult kprof(const std::vector<std::string>& args, double timeout = 60) {
    std::vector<std::string> argv = {kprof_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, dir_.path(), timeout);
  }

  // perf's own count of the samples in `file` (every event).
  uint64_t perf_sample_count(const std::string& file, const std::string& event = "") {
    std::string cmd = std::string(kPerf) + " script -i '" + file + "' -F event 2>/dev/null";
    if (!event.empty())
      cmd += " | grep -c '^ *" + event + ":'";
    else
      cmd += " | wc -l";
    RunResult r = run({"/bin/sh", "-c", cmd}, dir_.path(), 60);
    return std::stoull(r.out.empty() ? "0" : r.out);
  }

  // The top functions perf names (share >= 2%) against kprof's shares.
  void expect_same_top(const std::string& file, const std::vector<std::string>& perf_extra = {}) {
    std::vector<std::string> argv = {kPerf, "report", "-i", file, "--stdio", "--sort", "sym"};
    argv.insert(argv.end(), perf_extra.begin(), perf_extra.end());
    RunResult pr = run(argv, dir_.path(), 120);
    ASSERT_EQ(pr.exit_code, 0) << pr.describe();
    RunResult kr = kprof({"report", file, "--csv", "-"});
    ASSERT_EQ(kr.exit_code, 0) << kr.describe();
    const auto perf = perf_shares(pr.out);
    const auto ours = kprof_shares(kr.out);
    size_t compared = 0;
    for (const auto& [name, share] : perf) {
      if (share < 2.0) continue;
      ++compared;
      const auto it = ours.find(name);
      const double mine = it == ours.end() ? 0 : it->second;
      EXPECT_NEAR(mine, share, kShareBound) << name << "\nperf:\n"
                                            << dump(perf) << "kprof:\n"
                                            << dump(ours);
    }
    EXPECT_GE(compared, 1u) << "perf named no function with >= 2% of the samples\n" << pr.out;
  }

  // The "# samples:" figure of kprof report's header.
  uint64_t kprof_samples(const std::string& file, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"report", file, "--top", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = kprof(args);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::smatch m;
    static const std::regex samples(R"(# samples:\s+([0-9,]+))");
    if (!std::regex_search(r.out, m, samples)) {
      ADD_FAILURE() << "no '# samples:' line\n" << r.out;
      return 0;
    }
    std::string digits = m[1];
    std::erase(digits, ',');
    return std::stoull(digits);
  }

  TempDir dir_;
};

TEST_F(ImportE2E, ReportMatchesPerfOnAPlainRecording) {
  const std::string f = perf_record("hotcold.data", {}, {program("kprof_prog_hotcold"), "1.5"});
  if (HasFailure()) return;
  EXPECT_EQ(kprof_samples(f), perf_sample_count(f));
  expect_same_top(f);
  RunResult r = kprof({"report", f});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("kprof_hot"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("imported from perf.data"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu-clock @ 999 Hz"), std::string::npos) << r.out;
}

TEST_F(ImportE2E, KernelFunctionsAreNamed) {
  const std::string f = perf_record("sys.data", {}, {program("kprof_prog_syscalls"), "1"});
  if (HasFailure()) return;
  expect_same_top(f);
  RunResult r = kprof({"report", f, "--csv", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  double kernel_named = 0, kernel_unknown = 0;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> fl = csv_fields(line);
    if (fl.size() < 5 || fl[4] != "kernel") continue;
    (fl[3] == "[unknown]" ? kernel_unknown : kernel_named) += std::stod(fl[1]);
  }
  EXPECT_GT(kernel_named, 30.0) << "a syscall loop spends most of its time in the kernel\n"
                                << r.out.substr(0, 3000);
  EXPECT_LT(kernel_unknown, 1.0) << r.out.substr(0, 3000);

  // What an import keeps of the kernel's symbols is what its samples need
  // (the functions they fall in and their neighbours), as kprof record keeps:
  // not the whole kallsyms, which every reader would parse again.
  const std::string out = dir_.file("sys.kprof");
  RunResult imp = kprof({"import", f, "-o", out});
  ASSERT_EQ(imp.exit_code, 0) << imp.describe();
  RunResult again = kprof({"report", out, "--csv", "-"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.out, r.out);
  RunResult info = kprof({"info", out});
  std::smatch m;
  static const std::regex kept(R"(kallsyms:\s+([0-9,]+) symbols)");
  ASSERT_TRUE(std::regex_search(info.out, m, kept)) << info.out;
  std::string digits = m[1];
  std::erase(digits, ',');
  EXPECT_GT(std::stoull(digits), 0u) << info.out;
  EXPECT_LT(std::stoull(digits), 5000u) << info.out;
}

TEST_F(ImportE2E, CallGraphRecordingMatchesPerfAndHasStacks) {
  const std::string f = perf_record("tree.data", {"-g"}, {program("kprof_prog_calltree"), "1.5"});
  if (HasFailure()) return;
  EXPECT_EQ(kprof_samples(f), perf_sample_count(f));
  expect_same_top(f, {"--no-children"});
  RunResult r = kprof({"report", f, "--children", "--top", "15"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("main"), std::string::npos) << "callers are in the stacks\n" << r.out;
  RunResult folded = kprof({"export", f, "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.describe();
  EXPECT_NE(folded.out.find(";main;"), std::string::npos) << folded.out.substr(0, 2000);
}

TEST_F(ImportE2E, SystemWideRecordingMatchesPerf) {
  const std::string f = perf_record("all.data", {"-a"}, {program("kprof_prog_hotcold"), "1.5"});
  if (HasFailure()) return;
  EXPECT_EQ(kprof_samples(f), perf_sample_count(f));
  expect_same_top(f);
  RunResult info = kprof({"info", f});
  ASSERT_EQ(info.exit_code, 0) << info.describe();
  EXPECT_NE(info.out.find("system-wide"), std::string::npos) << info.out;
}

// --sort tid and --sort cpu against perf's own --sort pid (perf's "pid" key
// is the thread) and --sort cpu, on a system-wide recording, imported: every
// thread or CPU perf gives >= 1% has kprof's share within kShareBound; the
// perf.data read directly gives the same table.
TEST_F(ImportE2E, SortByThreadAndCpuMatchPerf) {
  const std::string f = perf_record("wide.data", {"-a"}, {program("kprof_prog_hotcold"), "1.5"});
  if (HasFailure()) return;
  const std::string imported = dir_.file("wide.kprof");
  ASSERT_EQ(kprof({"import", f, "-o", imported}).exit_code, 0);
  struct Key {
    const char* perf_key;
    const char* kprof_key;
    std::regex perf_row;
  };
  const Key keys[] = {{"pid", "tid", std::regex(R"(^\s+([0-9.]+)%\s+(\d+):.*$)")},
                      {"cpu", "cpu", std::regex(R"(^\s+([0-9.]+)%\s+(\d+)\s*$)")}};
  for (const Key& k : keys) {
    RunResult pr = run({kPerf, "report", "-i", f, "--stdio", "--no-children", "--sort", k.perf_key},
                       dir_.path(), 120);
    ASSERT_EQ(pr.exit_code, 0) << pr.describe();
    std::map<uint32_t, double> perf;
    std::istringstream in(pr.out);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_match(line, m, k.perf_row)) perf[std::stoul(m[2])] += std::stod(m[1]);
    }
    RunResult kr = kprof({"report", imported, "--sort", k.kprof_key, "--csv", "-"});
    ASSERT_EQ(kr.exit_code, 0) << kr.describe();
    // The perf.data itself, its per-thread table counted as it is read.
    RunResult direct = kprof({"report", f, "--sort", k.kprof_key, "--csv", "-"});
    ASSERT_EQ(direct.exit_code, 0) << direct.describe();
    EXPECT_EQ(direct.out, kr.out);
    std::map<uint32_t, double> ours;
    std::istringstream kin(kr.out);
    std::string line;
    std::getline(kin, line);  // heading
    while (std::getline(kin, line)) {
      const std::vector<std::string> cells = csv_fields(line);
      if (cells.size() < 3) continue;
      std::string label = cells[2];
      if (label.rfind("cpu ", 0) == 0) label = label.substr(4);
      ours[std::stoul(label)] += std::stod(cells[1]);
    }
    size_t compared = 0;
    for (const auto& [id, share] : perf) {
      if (share < 1.0) continue;
      ++compared;
      EXPECT_NEAR(ours[id], share, kShareBound) << k.kprof_key << " " << id << "\n"
                                                << pr.out.substr(0, 3000) << kr.out;
    }
    EXPECT_GE(compared, 1u) << pr.out;
  }
}

TEST_F(ImportE2E, PipeModeStreamReportsAsTheFileWould) {
  const std::string f = dir_.file("pipe.data");
  RunResult rec = run({"/bin/sh", "-c",
                       std::string(kPerf) + " record -e cpu-clock -F 999 -o - -- " +
                           program("kprof_prog_hotcold") + " 1 > '" + f + "'"},
                      dir_.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  EXPECT_EQ(kprof_samples(f), perf_sample_count(f));
  expect_same_top(f);
  RunResult r = kprof({"report", f, "--top", "3"});
  EXPECT_NE(r.out.find("a pipe-mode stream"), std::string::npos) << r.out;
}

TEST_F(ImportE2E, SeveralEventsShowOneAndEventPicksAnother) {
  const std::string f =
      perf_record("two.data", {}, {program("kprof_prog_hotcold"), "1"}, "cpu-clock,task-clock");
  if (HasFailure()) return;
  RunResult r = kprof({"report", f, "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("holds 2 events: showing cpu-clock"), std::string::npos) << r.out;
  EXPECT_EQ(kprof_samples(f), perf_sample_count(f, "cpu-clock"));
  EXPECT_EQ(kprof_samples(f, {"--event", "task-clock"}), perf_sample_count(f, "task-clock"));
  RunResult task = kprof({"report", f, "--event", "task-clock", "--top", "3"});
  EXPECT_NE(task.out.find("showing task-clock"), std::string::npos) << task.out;
  RunResult bad = kprof({"report", f, "--event", "cycles"});
  EXPECT_EQ(bad.exit_code, 1) << bad.describe();
  ASSERT_EQ(bad.err_lines().size(), 1u) << bad.describe();
  EXPECT_NE(bad.err.find("no event 'cycles'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("cpu-clock, task-clock"), std::string::npos) << bad.err;
}

TEST_F(ImportE2E, PerfKilledMidRunIsReadToItsEnd) {
  const std::string f = dir_.file("killed.data");
  // A small ring (-m 4: 16 KiB) makes perf write its records out often.
  Process perf = Process::start({kPerf, "record", "-e", "cpu-clock", "-F", "999", "-m", "4", "-o",
                                 f, "--", program("kprof_prog_hotcold"), "20"},
                                dir_.path(), {.new_process_group = true});
  for (int i = 0; i < 100 && ::access(f.c_str(), F_OK) != 0; ++i) std::this_thread::sleep_for(50ms);
  std::this_thread::sleep_for(2500ms);
  ::kill(-perf.pid(), SIGKILL);
  perf.wait(10);
  RunResult r = kprof({"report", f, "--top", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("perf record did not finish"), std::string::npos) << r.out;
  EXPECT_GT(kprof_samples(f), 100u) << r.out;
  EXPECT_NE(r.out.find("kprof_hot"), std::string::npos) << r.out;
}

// Issue 23, item 12: the damage of a perf.data cut in its data section is
// said once (it was the "stopped:" line, a notice and the read notice).
TEST_F(ImportE2E, CutPerfDataSaysItsDamageOnce) {
  const std::string f = perf_record("whole.data", {}, {program("kprof_prog_hotcold"), "0.5"});
  if (HasFailure()) return;
  std::string bytes = read_text(f);
  const std::string cut = dir_.file("cut.data");
  write_text(cut, bytes.substr(0, bytes.size() * 2 / 3));
  RunResult r = kprof({"report", cut, "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(r.out, "perf.data damaged"), 1u) << r.out;
  EXPECT_NE(r.out.find("the samples read are shown"), std::string::npos) << r.out;
  const std::string page = dir_.file("cut.html");
  RunResult h = kprof({"report", cut, "--html", page});
  ASSERT_EQ(h.exit_code, 0) << h.describe();
  EXPECT_EQ(count(read_text(page), "perf.data damaged"), 1u);
}

TEST_F(ImportE2E, ImportWritesAProfileThatReportsTheSame) {
  const std::string f = perf_record("in.data", {}, {program("kprof_prog_hotcold"), "1"});
  if (HasFailure()) return;
  const std::string out = dir_.file("in.kprof");
  RunResult imp = kprof({"import", f, "-o", out});
  ASSERT_EQ(imp.exit_code, 0) << imp.describe();
  RunResult a = kprof({"report", f, "--csv", "-"});
  RunResult b = kprof({"report", out, "--csv", "-"});
  ASSERT_EQ(a.exit_code, 0) << a.describe();
  ASSERT_EQ(b.exit_code, 0) << b.describe();
  EXPECT_EQ(a.out, b.out);
  RunResult info = kprof({"info", out});
  EXPECT_NE(info.out.find("records"), std::string::npos) << "the records are kept\n" << info.out;
  RunResult again = kprof({"import", out, "-o", dir_.file("x.kprof")});
  EXPECT_EQ(again.exit_code, 1) << again.describe();
  EXPECT_NE(again.err.find("is not a perf.data file"), std::string::npos) << again.err;
}

// One kprof and one perf recording of the same program: the diff reads both
// alike, so nothing in the top rows is a real change (held to q >= 0.001 as
// the A/A test in diff_e2e_test.cpp), and different rates are warned about.
TEST_F(ImportE2E, DiffOfKprofAndPerfRecordingsIsNoise) {
  const std::string a = dir_.file("a.kprof");
  RunResult ra =
      kprof({"record", "-F", "499", "-o", a, "--", program("kprof_prog_hotcold"), "1.5"});
  ASSERT_EQ(ra.exit_code, 0) << ra.describe();
  const std::string b = dir_.file("b.data");
  RunResult rb = run({kPerf, "record", "-e", "cpu-clock", "-F", "999", "-o", b, "--",
                      program("kprof_prog_hotcold"), "1.5"},
                     dir_.path(), 60);
  ASSERT_EQ(rb.exit_code, 0) << rb.describe();
  RunResult d = kprof({"diff", a, b, "--json", "-"});
  ASSERT_EQ(d.exit_code, 0) << d.describe();
  const json j = json::parse(d.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << d.out;
  bool rate_warning = false;
  for (const json& w : j["warnings"]) {
    rate_warning |=
        w.get<std::string>().find("different sampling frequencies") != std::string::npos;
  }
  EXPECT_TRUE(rate_warning) << j["warnings"].dump();
  // Issue 24: the perf.data knows its CPU only; what it does not know is
  // no difference, and the CPU is the same.
  const json& env = j["environment"];
  EXPECT_EQ(env["recorded"], json({true, true}));
  EXPECT_EQ(env["config_recorded"][1], false) << env.dump();
  EXPECT_TRUE(env["facts"].empty()) << env["facts"].dump();
  EXPECT_FALSE(env["same"]) << "not the same: most of it is unknown on the perf.data's side";
  const size_t n = std::min<size_t>(30, j["rows"].size());
  for (size_t i = 0; i < n; ++i) {
    const json& cell = j["rows"][i]["sides"][1];
    EXPECT_TRUE(!cell["q"].is_number() || cell["q"].get<double>() >= 0.001)
        << j["rows"][i]["name"] << ": " << cell.dump();
  }
}

// The recording's build-ids check the binaries here: one replaced since
// (another program at the same path) is named in a warning and not read.
// A program rebuilt since perf recorded it: its file is not read (the build-id
// differs), and its functions are named from perf's build-id cache, where
// perf record left a copy, as perf report does (issue 23, item 7).
TEST_F(ImportE2E, ChangedBinaryIsNamedFromPerfsCacheAndNotRead) {
  const std::string prog = dir_.file("prog");
  std::filesystem::copy_file(program("kprof_prog_hotcold"), prog);
  const std::string home = "HOME=" + dir_.path();  // perf's cache: $HOME/.debug
  const std::string f = dir_.file("changed.data");
  RunResult rec = run({"/usr/bin/env", "-u", "PERF_BUILDID_DIR", home, kPerf, "record", "-e",
                       "cpu-clock", "-F", "999", "-o", f, "--", prog, "0.5"},
                      dir_.path(), 60);
  ASSERT_EQ(rec.exit_code, 0) << rec.describe();
  ASSERT_TRUE(std::filesystem::exists(dir_.path() + "/.debug" + prog))
      << "perf record left no copy in its build-id cache";
  std::filesystem::remove(prog);
  std::filesystem::copy_file(program("kprof_prog_syscalls"), prog);
  const std::string kprof_bin = kprof_binary();
  // No cache: the changed file is named and not read.
  RunResult bare =
      run({"/usr/bin/env", "PERF_BUILDID_DIR=" + dir_.file("no-cache"), kprof_bin, "report", f},
          dir_.path(), 60);
  ASSERT_EQ(bare.exit_code, 0) << bare.describe();
  EXPECT_NE(bare.out.find(prog + ": build-id differs from the recording's"), std::string::npos)
      << bare.out;
  EXPECT_EQ(bare.out.find("kprof_hot"), std::string::npos) << bare.out;
  // perf's cache in $HOME/.debug: the recorded build is read from it.
  RunResult cached = run({"/usr/bin/env", "-u", "PERF_BUILDID_DIR", home, kprof_bin, "report", f},
                         dir_.path(), 60);
  ASSERT_EQ(cached.exit_code, 0) << cached.describe();
  EXPECT_NE(cached.out.find("kprof_hot"), std::string::npos) << cached.out;
  EXPECT_EQ(cached.out.find("build-id differs"), std::string::npos) << cached.out;
}

TEST_F(ImportE2E, BadPerfDataIsOneLine) {
  const std::string good = perf_record("good.data", {}, {program("kprof_prog_hotcold"), "0.3"});
  if (HasFailure()) return;
  const std::string text = read_text(good);
  const std::string cut = dir_.file("cut.data");
  write_text(cut, text.substr(0, 40));  // inside the header's sections
  RunResult r = kprof({"report", cut});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err_lines().size(), 1u) << r.describe();
  const std::string other = dir_.file("notes.txt");
  write_text(other, "just some notes\nnothing to see\n");
  RunResult o = kprof({"report", other});
  EXPECT_EQ(o.exit_code, 1) << o.describe();
  EXPECT_NE(o.err.find("not a kprof profile, a perf.data file, or an opreport"), std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace kprof::e2e
