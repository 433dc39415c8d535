// What differs besides the workload (issue 24): two hand-made fingerprints
// and configurations, every kind of difference, curated options first, the
// counts right; alike environments in one line; sides that recorded none.
#include "report/environment_diff.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace kprof {
namespace {

Environment generic() {
  Environment e;
  e.facts = {{"kernel.version", "Linux version 6.1.0-50-amd64", "/proc/version", true},
             {"clocksource", "tsc", "/sys/…/current_clocksource", true},
             {"cpu.model", "Test CPU", "/proc/cpuinfo", true},
             {"cpu.vulnerabilities.mds", "Mitigation: Clear CPU buffers", "/sys/…/mds", true},
             {"cpu.microcode", "", "/proc/cpuinfo: no microcode field", false},
             {"kernel.preempt", "none (dynamic)", "kernel configuration", true}};
  e.config = {{"PREEMPT_NONE", "y"},    {"PREEMPT_DYNAMIC", "y"}, {"HZ", "250"},
              {"SECURITY_TOMOYO", "y"}, {"EXT4_FS", "y"},         {"DEBUG_INFO_BTF", "y"},
              {"XFS_FS", "m"},          {"USB_SERIAL", "m"}};
  e.config_source = "/boot/config-6.1.0-50-amd64";
  return e;
}

Environment rt() {
  Environment e = generic();
  e.facts[0].value = "Linux version 6.1.0-50-rt-amd64";
  e.facts[1].value = "hpet";
  e.facts[3].value = "Mitigation: Clear CPU buffers";  // alike
  e.facts[4] = {"cpu.microcode", "0x5003006", "/proc/cpuinfo", true};
  e.facts[5].value = "rt";
  e.config.erase("PREEMPT_NONE");
  e.config.erase("PREEMPT_DYNAMIC");
  e.config["PREEMPT_RT"] = "y";
  e.config["HZ"] = "1000";
  e.config.erase("SECURITY_TOMOYO");
  e.config.erase("DEBUG_INFO_BTF");  // differs, but costs nothing at run time
  e.config["XFS_FS"] = "y";          // differs, not curated
  return e;
}

TEST(EnvironmentDiff, CostMovingFactsAndOptionsFirstWithCounts) {
  const EnvironmentDiff d = diff_environments({generic(), rt()});
  ASSERT_EQ(d.facts.size(), 3u);
  // cpu.model and the mds mitigation alike; the microcode not available on
  // one side: unknown, not a difference.
  EXPECT_EQ(d.same_facts, 3u);
  // clocksource and the preemption model move costs; the version does not say how.
  EXPECT_EQ(d.facts[0].key, "clocksource");
  EXPECT_EQ(d.facts[0].values, (std::vector<std::string>{"tsc", "hpet"}));
  EXPECT_FALSE(d.facts[0].cost.empty());
  EXPECT_EQ(d.facts[1].key, "kernel.preempt");
  EXPECT_EQ(d.facts[2].key, "kernel.version");
  EXPECT_TRUE(d.facts[2].cost.empty());
  // Options: 9 in the union, 7 differ; PREEMPT_RT first, the uncurated last.
  EXPECT_EQ(d.config_options, 9u);
  ASSERT_EQ(d.config.size(), 7u);
  EXPECT_EQ(d.config[0].option, "PREEMPT_RT");
  EXPECT_EQ(d.config[0].values, (std::vector<std::string>{"-", "y"}));
  EXPECT_EQ(d.config[1].option, "PREEMPT_NONE");
  EXPECT_EQ(d.config[2].option, "PREEMPT_DYNAMIC");
  EXPECT_EQ(d.config[3].option, "HZ");
  EXPECT_EQ(d.config[4].option, "SECURITY_TOMOYO");
  EXPECT_NE(d.config[4].cost.find("tomoyo"), std::string::npos);
  EXPECT_TRUE(d.config[5].cost.empty()) << d.config[5].option;  // DEBUG_INFO_BTF, XFS_FS
  EXPECT_TRUE(d.config[6].cost.empty()) << d.config[6].option;
  EXPECT_FALSE(d.same);

  std::ostringstream out;
  write_environment_diff(out, d, {"generic", "rt"});
  const std::string text = out.str();
  EXPECT_NE(text.find("What differs besides the workload (3 facts differ, 2 alike, 1 known on "
                      "one side only)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Kernel configuration: 7 of 9 options differ (5 known to move costs"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("PREEMPT_RT"), text.find("HZ")) << text;
  EXPECT_EQ(text.find("XFS_FS"), std::string::npos) << "the rest is a count\n" << text;
  EXPECT_NE(text.find("… and 2 more options differ"), std::string::npos) << text;
  std::ostringstream all;
  write_environment_diff(all, d, {"generic", "rt"}, /*all_options=*/true);
  EXPECT_NE(all.str().find("XFS_FS"), std::string::npos);
}

TEST(EnvironmentDiff, MemorySizesWithinOnePercentAreAlike) {
  Environment a = generic(), b = generic(), c = generic();
  a.facts.push_back({"memory.total", "983492 kB", "/proc/meminfo", true});
  b.facts.push_back({"memory.total", "983520 kB", "/proc/meminfo", true});
  c.facts.push_back({"memory.total", "2097152 kB", "/proc/meminfo", true});
  EXPECT_TRUE(diff_environments({a, b}).same);
  const EnvironmentDiff d = diff_environments({a, c});
  ASSERT_EQ(d.facts.size(), 1u);
  EXPECT_EQ(d.facts[0].key, "memory.total");
}

TEST(EnvironmentDiff, AlikeIsOneLineAndMissingIsSaid) {
  const EnvironmentDiff same = diff_environments({generic(), generic()});
  EXPECT_TRUE(same.same);
  std::ostringstream one;
  write_environment_diff(one, same, {"a", "b"});
  EXPECT_EQ(one.str(),
            "What differs besides the workload: nothing: same environment (6 facts and 8 kernel "
            "options alike)\n");
  // A side without an environment (an older file) is not a difference.
  const EnvironmentDiff half = diff_environments({generic(), std::nullopt});
  std::ostringstream h;
  write_environment_diff(h, half, {"old", "new"});
  EXPECT_NE(h.str().find("not known (only old recorded its environment"), std::string::npos)
      << h.str();
  // Three sides, one without: compared among the two that have one.
  const EnvironmentDiff three = diff_environments({generic(), std::nullopt, rt()});
  EXPECT_EQ(three.facts.size(), 3u);
  EXPECT_EQ(three.facts[0].values[1], "(not recorded)");
  EXPECT_EQ(three.config[0].values, (std::vector<std::string>{"-", "?", "y"}));
  std::ostringstream t;
  write_environment_diff(t, three, {"a", "b", "c"});
  EXPECT_NE(t.str().find("not recorded by b"), std::string::npos) << t.str();
  // No configuration on one side: not compared, and said.
  Environment bare = rt();
  bare.config.clear();
  bare.config_source = "not available (/proc/config.gz: absent)";
  std::ostringstream nc;
  write_environment_diff(nc, diff_environments({generic(), bare}), {"a", "b"});
  EXPECT_NE(nc.str().find("Kernel configuration: not compared (1 of 2 profiles recorded one)"),
            std::string::npos)
      << nc.str();
}

}  // namespace
}  // namespace kprof
