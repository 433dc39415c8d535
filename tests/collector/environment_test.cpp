// Reading the environment fingerprint (collector/environment.h) from a fake
// /proc, /sys and /boot tree (every kind of bad input: a truncated gzip, a
// file that is no configuration, one far too large, binary garbage in a
// one-line fact, facts missing), and from this machine.
#include "collector/environment.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kprof::collector {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test under the test binary's (ctest runs tests side by side).
std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(KPROF_TEST_BINARY_DIR) / "env_tmp" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

const char* const kConfig =
    "# Linux/x86 6.1.0 Kernel Configuration\nCONFIG_PREEMPT_RT=y\nCONFIG_HZ=1000\n"
    "# CONFIG_KASAN is not set\n";

class FakeMachine : public ::testing::Test {
 protected:
  void SetUp() override {
    put("/proc/sys/kernel/osrelease", "6.1.0-50-rt-amd64\n");
    put("/proc/version", "Linux version 6.1.0-50-rt-amd64 (gcc 12.2.0)\n");
    put("/proc/cmdline", std::string("quiet mitigations=off \x01\x02\xff", 25) + "\n");
    put("/proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
        "model name\t: Test CPU\nstepping\t: 7\nmicrocode\t: 0x5003006\n"
        "flags\t\t: fpu pcid erms avx2 hypervisor md_clear\n\nprocessor\t: 1\n");
    put("/sys/devices/system/cpu/vulnerabilities/mds", "Mitigation: Clear CPU buffers\n");
    put("/sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
    put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
    put("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
    put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    put("/proc/modules", "kvm 1 0 - Live 0x0\nxfs 2 0 - Live 0x0\n");
  }
  void put(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(root_ + path).parent_path());
    std::ofstream(root_ + path, std::ios::binary) << text;
  }
  void gzip(const std::string& path, const std::string& text, size_t keep = SIZE_MAX) {
    fs::create_directories(fs::path(root_ + path).parent_path());
    gzFile f = ::gzopen((root_ + path).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ::gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    ::gzclose(f);
    if (keep != SIZE_MAX) fs::resize_file(root_ + path, keep);
  }
  Environment read(const std::string& kernel_config = "") {
    return read_environment({.kernel_config = kernel_config, .root = root_});
  }
  std::string value(const Environment& e, const std::string& key) {
    const EnvFact* f = e.find(key);
    if (f == nullptr) return "<no fact>";
    return f->available ? f->value : "<not available>";
  }
  std::string root_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
};

TEST_F(FakeMachine, ReadsEveryFactAndSaysWhatIsMissing) {
  gzip("/proc/config.gz", kConfig);
  const Environment e = read();
  EXPECT_EQ(e.config_source, "/proc/config.gz");
  EXPECT_EQ(e.config.at("PREEMPT_RT"), "y");
  EXPECT_EQ(value(e, "kernel.preempt"), "rt");
  EXPECT_EQ(value(e, "kernel.hz"), "1000");
  EXPECT_EQ(value(e, "clocksource"), "hpet");
  EXPECT_EQ(value(e, "cpu.vulnerabilities.mds"), "Mitigation: Clear CPU buffers");
  EXPECT_EQ(value(e, "cpu.vulnerabilities.meltdown"), "Not affected");
  EXPECT_EQ(value(e, "cpu.model"), "Test CPU");
  EXPECT_EQ(value(e, "cpu.family_model_stepping"), "6/85/7");
  EXPECT_EQ(value(e, "cpu.microcode"), "0x5003006");
  EXPECT_EQ(value(e, "cpu.flags"), "pcid md_clear erms avx2 hypervisor");
  EXPECT_EQ(value(e, "thp.enabled"), "madvise");
  EXPECT_EQ(value(e, "cpufreq.governor"), "performance x1, powersave x1");
  EXPECT_EQ(value(e, "modules").substr(0, 9), "2 loaded,");
  // Binary garbage in a one-line fact: kept printable, one line.
  const std::string cmdline = value(e, "kernel.cmdline");
  EXPECT_EQ(cmdline.find_first_of("\x01\x02\n"), std::string::npos) << cmdline;
  EXPECT_NE(cmdline.find("mitigations=off"), std::string::npos);
  // What this tree lacks: not available, with where it was looked for.
  const EnvFact* smt = e.find("cpu.smt");
  ASSERT_NE(smt, nullptr);
  EXPECT_FALSE(smt->available);
  EXPECT_NE(smt->source.find("/sys/devices/system/cpu/smt/active"), std::string::npos);
  EXPECT_EQ(value(e, "memory.total"), "<not available>");
  EXPECT_EQ(config_notice(e), "");
}

TEST_F(FakeMachine, ATruncatedGzipFallsBackToBoot) {
  gzip("/proc/config.gz", std::string(kConfig) + std::string(20000, '#'), 40);
  put("/boot/config-6.1.0-50-rt-amd64", kConfig);
  const Environment e = read();
  EXPECT_EQ(e.config_source, "/boot/config-6.1.0-50-rt-amd64");
  EXPECT_EQ(e.config.size(), 2u);  // KASAN is not set: absent
}

TEST_F(FakeMachine, NoConfigurationIsANoticeNotAFailure) {
  gzip("/proc/config.gz", kConfig, 30);  // truncated
  put("/boot/config-6.1.0-50-rt-amd64",
      "\x7f"
      "ELF garbage\n");  // not a configuration
  const Environment e = read();
  EXPECT_TRUE(e.config.empty());
  EXPECT_NE(e.config_source.find("/proc/config.gz: a truncated or damaged gzip file"),
            std::string::npos)
      << e.config_source;
  EXPECT_NE(e.config_source.find("not a Linux kernel configuration"), std::string::npos)
      << e.config_source;
  EXPECT_EQ(value(e, "kernel.preempt"), "<not available>");
  EXPECT_EQ(value(e, "clocksource"), "hpet") << "the other facts are read all the same";
  const std::string notice = config_notice(e);
  EXPECT_NE(notice.find("--kernel-config FILE"), std::string::npos) << notice;
}

TEST_F(FakeMachine, AKernelConfigFileGivenIsReadFirstAndAHugeOneIsRefused) {
  gzip("/proc/config.gz", kConfig);
  put("/given.config", "CONFIG_PREEMPT_NONE=y\nCONFIG_HZ=250\n");
  Environment e = read(root_ + "/given.config");
  EXPECT_EQ(e.config_source, root_ + "/given.config");
  EXPECT_EQ(value(e, "kernel.preempt"), "none");
  // A gzip'ed copy given by name is read too.
  gzip("/given.config.gz", "CONFIG_PREEMPT_VOLUNTARY=y\n");
  e = read(root_ + "/given.config.gz");
  EXPECT_EQ(value(e, "kernel.preempt"), "voluntary");
  // 9 MB: not a configuration; the machine's is recorded instead, and said.
  put("/huge.config", std::string(9u << 20, 'x'));
  e = read(root_ + "/huge.config");
  EXPECT_EQ(e.config.size(), 2u);  // KASAN is not set: absent
  const std::string notice = config_notice(e);
  EXPECT_NE(notice.find("larger than 8 MB"), std::string::npos) << notice;
  EXPECT_NE(notice.find("/proc/config.gz"), std::string::npos) << notice;
}

// This machine: what recording here stores (a VM without /proc/config.gz
// would lack the configuration, which is a notice, so only checked here
// where the file exists).
TEST(LiveEnvironment, ThisMachinesFactsAreRead) {
  const Environment e = read_environment({});
  const EnvFact* clock = e.find("clocksource");
  ASSERT_NE(clock, nullptr);
  EXPECT_TRUE(clock->available) << clock->source;
  EXPECT_FALSE(clock->value.empty());
  size_t vulnerabilities = 0;
  for (const EnvFact& f : e.facts) vulnerabilities += f.key.starts_with("cpu.vulnerabilities.");
  EXPECT_GT(vulnerabilities, 0u) << "/sys/devices/system/cpu/vulnerabilities";
  if (::access("/proc/config.gz", R_OK) == 0) {
    EXPECT_EQ(e.config_source, "/proc/config.gz");
    EXPECT_GT(e.config.size(), 100u);
  } else {
    EXPECT_FALSE(config_notice(e).empty());
  }
}

}  // namespace
}  // namespace kprof::collector
