// The clock's period dithered (collector/period_dither.h) on a real
// recording: kprof_prog_alias spends the first 30% of every millisecond of
// CLOCK_MONOTONIC in kprof_alias_a and the rest in kprof_alias_b, and
// cpu-clock at -F 1000 is a 1 ms timer on that same clock. A fixed period
// samples the same point of every round (all a or all b, by the phase the
// run started at); the dithered one sees each function at its share.
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::e2e {
namespace {

class Dither : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }

  // Records the alias program for 1 s on cpu-clock (which a hardware PMU
  // would not replace), with `extra` options (the rate among them); with
  // `as_child`, run by a shell (a process the workload starts).
  Profile record(const std::string& name, const std::vector<std::string>& extra,
                 bool as_child = false) {
    path_ = dir_.file(name);
    std::vector<std::string> argv = {kprof_binary(), "record", "-e", "cpu-clock", "-o", path_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    if (as_child) {
      argv.insert(argv.end(), {"--", "sh", "-c", "\"$0\" 1; true", program("kprof_prog_alias")});
    } else {
      argv.insert(argv.end(), {"--", program("kprof_prog_alias"), "1"});
    }
    const RunResult r = run(argv, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return perfabi::load_profile(path_);
  }

  // kprof_alias_a's part of the two functions' samples.
  static double share_a(const Profile& p) {
    const auto f = by_function(*p.histogram, Mode::User, "/kprof_prog_alias");
    const double a = f.count("kprof_alias_a") ? f.at("kprof_alias_a") : 0;
    const double b = f.count("kprof_alias_b") ? f.at("kprof_alias_b") : 0;
    return a + b > 0 ? a / (a + b) : -1;
  }

  // The part of the gaps between consecutive samples (kprof script's
  // times) within 1% of the nominal 1 ms.
  double nominal_gaps() {
    const RunResult r = run({kprof_binary(), "script", path_}, dir_.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    static const std::regex time(R"( ([0-9]+\.[0-9]{6}): )");
    std::vector<double> times;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), time);
         it != std::sregex_iterator(); ++it) {
      times.push_back(std::stod((*it)[1]));
    }
    size_t near = 0;
    for (size_t i = 1; i < times.size(); ++i) {
      if (std::abs((times[i] - times[i - 1]) * 1e3 - 1.0) < 0.01) ++near;
    }
    return times.size() > 1 ? static_cast<double>(near) / static_cast<double>(times.size() - 1)
                            : -1;
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(Dither, ALoopInStepWithTheClockIsSeenAtItsShare) {
  const Profile dithered = record("dithered.kprof", {"-F", "1000"});
  ASSERT_TRUE(dithered.histogram.has_value()) << dithered.status.problem;
  EXPECT_EQ(dithered.run.event.dither_pct, 50u);
  // ~1,000 samples: binomial SD 1.5 pp around 30%.
  const double a = share_a(dithered);
  EXPECT_NEAR(a, 0.30, 0.08) << dump(*dithered.histogram);
  EXPECT_LT(nominal_gaps(), 0.25);
  // The dither is said where the event is.
  const RunResult info = run({kprof_binary(), "info", path_}, dir_.path(), 60);
  EXPECT_NE(info.out.find("period dither:"), std::string::npos) << info.describe();
}

// A process the workload starts is dithered too: its tasks are followed in a
// cgroup of their own by per-CPU events kprof retunes
// (collector/workload_cgroup.h). Inherited per-task events could not be:
// there the child sampled at the fixed period and kprof_alias_a was absent.
TEST_F(Dither, AProcessTheWorkloadStartsIsDitheredToo) {
  const Profile p = record("child.kprof", {"-F", "1000"}, /*as_child=*/true);
  ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
  for (const std::string& n : p.run.notices) {
    if (n.find("sample at a fixed period") != std::string::npos) GTEST_SKIP() << n;
  }
  EXPECT_EQ(p.run.event.dither_pct, 50u);
  EXPECT_NEAR(share_a(p), 0.30, 0.08) << dump(*p.histogram);
  EXPECT_LT(nominal_gaps(), 0.25);
}

// A workload followed in its cgroup is sampled from its exec on. Before the
// exec the forked child runs kprof's code and drops its copy of kprof's
// memory: kprof's work, which stop 57's recordings counted as the workload's
// (a few user samples at addresses no mapping named, at 20000 Hz 2-6 a run
// here, and in an ASan build 8 ms of kernel unmapping, which made the diff
// tests' runs disagree). What the exec mapped before the events were on is
// read from /proc, with build-ids, so every user sample is named.
TEST_F(Dither, AWorkloadInItsCgroupIsSampledFromItsExecOn) {
  uint64_t unnamed = 0, user = 0;
  std::string rows;
  for (int i = 0; i < 3; ++i) {
    const Profile p = record("exec" + std::to_string(i) + ".kprof", {"-F", "20000"});
    ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
    for (const std::string& n : p.run.notices) {
      if (n.find("sample at a fixed period") != std::string::npos) GTEST_SKIP() << n;
    }
    for (const FunctionCount& row : p.histogram->rows) {
      if (row.mode != Mode::User) continue;
      user += row.samples;
      const Image& image = p.histogram->images.at(row.image);
      if (image.name == "[unknown]") unnamed += row.samples;
      if (image.name.ends_with("/kprof_prog_alias") && image.build_id.empty()) {
        ADD_FAILURE() << "no build-id for " << image.name;
      }
    }
    rows += dump(*p.histogram);
  }
  EXPECT_GT(user, 1000u);
  EXPECT_EQ(unnamed, 0u) << "user samples no mapping names: before the exec?\n" << rows;
}

// --no-dither keeps perf's fixed period: the samples come a millisecond
// apart (the program is what shows why that is not kept by default).
TEST_F(Dither, NoDitherKeepsTheFixedPeriod) {
  const Profile fixed = record("fixed.kprof", {"-F", "1000", "--no-dither"});
  ASSERT_TRUE(fixed.histogram.has_value()) << fixed.status.problem;
  EXPECT_EQ(fixed.run.event.dither_pct, 0u);
  EXPECT_GT(nominal_gaps(), 0.6);
  RecordProperty("kprof_alias_a share at a fixed period", std::to_string(share_a(fixed)));
}

// A period the user fixed (-c) is kept as asked.
TEST_F(Dither, AFixedPeriodIsNotDithered) {
  const Profile p = record("period.kprof", {"-c", "1000000"});
  EXPECT_EQ(p.run.event.dither_pct, 0u);
}

}  // namespace
}  // namespace kprof::e2e
