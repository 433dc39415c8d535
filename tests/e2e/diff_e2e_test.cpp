// `kprof diff` on real recordings of kprof_prog_hotcold (kprof_hot ~75%,
// kprof_cold ~25% x COLD_FACTOR): the same workload on both sides (A/A) is
// marked as noise, a 30% slower kprof_cold (A/B) as a real change, and a
// recording cut short is still diffed, with a warning.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_helpers.h"

namespace kprof::e2e {
namespace {

using nlohmann::json;

// The text report's default --top: "nothing in the top 30" is what a reader sees.
constexpr size_t kTop = 30;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class DiffE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!can_sample(&why)) GTEST_SKIP() << why;
  }

  // Records kprof_prog_hotcold for `seconds` at `freq` Hz into `name`.
  std::string record(const std::string& name, const std::string& seconds, const std::string& freq,
                     const std::string& cold_factor = "1") {
    const std::string path = dir_.file(name);
    RunResult r = run({kprof_binary(), "record", "-F", freq, "-o", path, "--",
                       program("kprof_prog_hotcold"), seconds, cold_factor},
                      dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return path;
  }

  // Records `runs` profiles of each side, interleaved (A1 B1 A2 B2 ...) so a
  // drift in machine load lands on both sides alike.
  void record_sides(int runs, const std::string& seconds, const std::string& freq,
                    const std::string& new_cold_factor, std::vector<std::string>& base,
                    std::vector<std::string>& next) {
    base.clear();
    next.clear();
    const std::string tag = std::to_string(attempt_++);
    for (int i = 0; i < runs; ++i) {
      const std::string n = tag + "-" + std::to_string(i);
      base.push_back(record("a" + n + ".kprof", seconds, freq));
      next.push_back(record("b" + n + ".kprof", seconds, freq, new_cold_factor));
    }
  }

  // `kprof diff BASE... -- NEW...` (no "--" with one run per side); returns
  // its --json output, {} on failure (with the failure recorded).
  json diff(const std::vector<std::string>& base, const std::vector<std::string>& next) {
    const std::string out = dir_.file("diff" + std::to_string(diffs_++) + ".json");
    std::vector<std::string> argv = {kprof_binary(), "diff", "--json", out};
    argv.insert(argv.end(), base.begin(), base.end());
    if (base.size() > 1 || next.size() > 1) argv.push_back("--");
    argv.insert(argv.end(), next.begin(), next.end());
    RunResult r = run(argv, dir_.path(), 30);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    if (r.exit_code != 0) return {};
    json j = json::parse(read_text(out), nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "bad JSON in " << out;
    return j.is_discarded() ? json{} : j;
  }

  TempDir dir_;
  int attempt_ = 0, diffs_ = 0;
};

// 20000 Hz, or the kernel's kernel.perf_event_max_sample_rate when lower.
int high_freq() {
  int max_rate = 0;
  try {
    max_rate = std::stoi(read_text("/proc/sys/kernel/perf_event_max_sample_rate"));
  } catch (const std::exception&) {
  }
  return max_rate > 0 ? std::min(max_rate, 20000) : 20000;
}

std::string noise_method(const json& j) {
  if (!j.contains("profiles") || j["profiles"].size() < 2) return "";
  return j["profiles"][1].value("noise_method", "");
}

// The program's row for `function`, or nullptr.
const json* find_row(const json& j, const std::string& function) {
  if (!j.contains("rows")) return nullptr;
  for (const json& row : j["rows"]) {
    if (row["name"] == function && ends_with(row["image"].get<std::string>(), "kprof_prog_hotcold"))
      return &row;
  }
  return nullptr;
}

// "name: base% -> new% (q ...)" for each of the first kTop rows marked
// as a real change.
std::vector<std::string> changed_in_top(const json& j) {
  std::vector<std::string> out;
  if (!j.contains("rows")) return {"(no rows in the diff's JSON)"};
  const size_t n = std::min(kTop, j["rows"].size());
  for (size_t i = 0; i < n; ++i) {
    const json& row = j["rows"][i];
    const json& cell = row["sides"][1];
    if (cell["verdict"] != "changed") continue;
    out.push_back(row["name"].get<std::string>() + ": " +
                  std::to_string(row["sides"][0]["pct"].get<double>()) + "% -> " +
                  std::to_string(cell["pct"].get<double>()) + "% (q " + cell["q"].dump() + ")");
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "\n  " + x;
  return s;
}

// The program's own split must show up, or the diff had nothing to compare:
// kprof_cold's part of the program's two functions (kernel samples, which
// grow on a busy machine, dilute both shares alike, so not of all samples).
void expect_cold_part(const json& j, size_t side, double lo, double hi) {
  const json* hot = find_row(j, "kprof_hot");
  const json* cold = find_row(j, "kprof_cold");
  ASSERT_TRUE(hot && cold) << j.dump(1).substr(0, 2000);
  const double h = (*hot)["sides"][side]["pct"].get<double>();
  const double c = (*cold)["sides"][side]["pct"].get<double>();
  ASSERT_GT(h + c, 30.0) << "the program has too few of the samples";
  EXPECT_GT(c / (h + c), lo) << "side " << side;
  EXPECT_LT(c / (h + c), hi) << "side " << side;
}

// Index of the program's row for `function` among the rows, or npos.
size_t rank_of(const json& j, const std::string& function) {
  const json* row = find_row(j, function);
  for (size_t i = 0; row && i < j["rows"].size(); ++i) {
    if (&j["rows"][i] == row) return i;
  }
  return std::string::npos;
}

// The same workload on both sides: nothing in the top rows is a real change,
// with several runs per side (run-to-run variance) and with one (sampling).
//
// At a 5% false discovery rate a correct diff of two identical workloads
// still flags something in up to ~5% of A/A pairs (that is what the rate
// means), so a variant fails only when two fresh A/A pairs both flag rows:
// chance <= 0.25% when the statistics are right, near-certain when they are
// too eager (e.g. run-to-run variance ignored, or no multiple-test control).
TEST_F(DiffE2E, SameWorkloadMarksNothingAsChanged) {
  constexpr int kAttempts = 2;
  std::vector<std::string> base, next, multi_seen, single_seen;
  bool multi_clean = false, single_clean = false;
  for (int attempt = 0; attempt < kAttempts && !(multi_clean && single_clean); ++attempt) {
    record_sides(3, "1.5", "999", "1", base, next);
    if (HasFailure()) return;

    if (!multi_clean) {
      const json multi = diff(base, next);
      if (HasFailure()) return;
      EXPECT_EQ(noise_method(multi), "run-variance");
      for (size_t side = 0; side < 2; ++side) expect_cold_part(multi, side, 0.18, 0.33);
      const std::vector<std::string> changed = changed_in_top(multi);
      multi_clean = changed.empty();
      multi_seen.push_back("attempt " + std::to_string(attempt + 1) + ":" + joined(changed));
    }
    if (!single_clean) {
      const json single = diff({base[0]}, {next[0]});
      if (HasFailure()) return;
      EXPECT_EQ(noise_method(single), "sampling");
      const std::vector<std::string> changed = changed_in_top(single);
      single_clean = changed.empty();
      single_seen.push_back("attempt " + std::to_string(attempt + 1) + ":" + joined(changed));
    }
  }
  EXPECT_TRUE(multi_clean) << "A/A, 3 runs per side: rows marked as changed in every attempt"
                           << joined(multi_seen);
  EXPECT_TRUE(single_clean) << "A/A, 1 run per side: rows marked as changed in every attempt"
                            << joined(single_seen);
}

// kprof_cold 30% slower on the new side: its share goes from ~25% to ~30.3%
// (1.3 / 4.3) and kprof_hot's from ~75% to ~69.7%. At -F 999 a 1.5 s run has
// ~1000 samples, so one run's share has a sampling sd of ~1.4 pp, and with
// three runs per side the Welch test on a 5 pp shift has p ~0.01, which
// Benjamini-Hochberg over ~10-30 rows does not always keep under 5%. At
// -F 20000 a run has ~10000 samples when it gets the CPU (sd ~0.4 pp): t ~15,
// p ~1e-4, q well under 5% even over a few hundred rows. On a machine so
// overloaded that the program gets a fifth of a CPU, kernel samples (task
// switches, softirqs) reach 20-30% and vary from run to run, diluting both
// shares: the margin shrinks, hence the loose bands on the sizes below.
TEST_F(DiffE2E, SlowerColdFunctionIsMarkedAsARealChange) {
  std::vector<std::string> base, next;
  record_sides(3, "1", std::to_string(high_freq()), "1.3", base, next);
  if (HasFailure()) return;

  struct Variant {
    const char* what;
    std::vector<std::string> base, next;
    const char* method;
  };
  const Variant variants[] = {{"3 runs per side", base, next, "run-variance"},
                              {"1 run per side", {base[0]}, {next[0]}, "sampling"}};
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.what);
    const json j = diff(v.base, v.next);
    if (HasFailure()) return;
    EXPECT_EQ(noise_method(j), v.method);
    expect_cold_part(j, 0, 0.18, 0.31);
    expect_cold_part(j, 1, 0.25, 0.38);
    const json* cold = find_row(j, "kprof_cold");
    const json* hot = find_row(j, "kprof_hot");
    ASSERT_TRUE(cold && hot);
    const json& c = (*cold)["sides"][1];
    const json& h = (*hot)["sides"][1];
    // Expected +5.3 pp (less when kernel samples dilute the program's); a
    // generous band, so a wrong sign or a share over the wrong total fails.
    EXPECT_GT(c["delta_pp"].get<double>(), 1.0) << c.dump();
    EXPECT_LT(c["delta_pp"].get<double>(), 9.0) << c.dump();
    EXPECT_GT(c["ratio"].get<double>(), 1.05) << c.dump();
    EXPECT_EQ(c["verdict"], "changed") << c.dump();
    EXPECT_GT(c["ci_lo_pp"].get<double>(), 0.0) << c.dump();
    EXPECT_LT(h["delta_pp"].get<double>(), -1.0) << h.dump();
    EXPECT_EQ(h["verdict"], "changed") << h.dump();
    EXPECT_LT(h["ci_hi_pp"].get<double>(), 0.0) << h.dump();
    // Rows come largest |delta| first: both are in what the text report shows.
    EXPECT_LT(rank_of(j, "kprof_cold"), kTop);
    EXPECT_LT(rank_of(j, "kprof_hot"), kTop);
  }
}

// A real recording that lost its tail (the histogram / end marker) is still
// diffed from what could be recovered, with a warning naming the file.
TEST_F(DiffE2E, RecordingCutShortIsDiffedWithAWarning) {
  const std::string whole = record("whole.kprof", "0.5", "999");
  if (HasFailure()) return;
  const std::string text = read_text(whole);
  ASSERT_GT(text.size(), 200u);
  const std::string cut = dir_.file("cut.kprof");
  write_text(cut, text.substr(0, text.size() - 100));

  const std::string out = dir_.file("cut.json");
  RunResult r = run({kprof_binary(), "diff", whole, cut, "--json", out}, dir_.path(), 30);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("warning: " + cut + ": profile cut short"), std::string::npos) << r.describe();
  const json j = json::parse(read_text(out));
  ASSERT_EQ(j["profiles"].size(), 2u);
  EXPECT_GT(j["profiles"][1]["samples"].get<uint64_t>(), 0u) << "nothing recovered";
  bool warned = false;
  for (const json& w : j["warnings"]) warned |= w.get<std::string>().find(cut) == 0;
  EXPECT_TRUE(warned) << j["warnings"].dump();
}

}  // namespace
}  // namespace kprof::e2e
