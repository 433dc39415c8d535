// The environment fingerprint's model (issue 24): parsing a kernel .config,
// and the Environment chunk's codec with its damage checks.
#include "core/environment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace kprof {
namespace {

TEST(Environment, ParsesAKernelConfig) {
  const auto c = parse_kernel_config(
      "#\n# Automatically generated file; DO NOT EDIT.\n#\nCONFIG_PREEMPT_RT=y\n"
      "CONFIG_HZ=250\r\n# CONFIG_KASAN is not set\nCONFIG_LOCALVERSION=\"-rt\"\n"
      "CONFIG_EXT4_FS=m\nnot a line\n# CONFIG_ comment is not set\n");
  const std::map<std::string, std::string> want = {
      {"PREEMPT_RT", "y"}, {"HZ", "250"}, {"LOCALVERSION", "\"-rt\""}, {"EXT4_FS", "m"}};
  EXPECT_EQ(c, want) << "options not set are absent";
  EXPECT_TRUE(parse_kernel_config("# CONFIG_SMP is not set\n").empty()) << "a config all the same";
  EXPECT_THROW(parse_kernel_config("hello\nworld\n"), Error);
  EXPECT_THROW(parse_kernel_config(std::string("\x1f\x8b\x08\0garbage", 11)), Error);
  EXPECT_THROW(parse_kernel_config(""), Error);
}

Environment sample_environment() {
  Environment e;
  e.facts = {{"clocksource", "tsc", "/sys/devices/system/clocksource/clocksource0", true},
             {"cpu.microcode", "", "/proc/cpuinfo: no microcode field", false}};
  e.config = {{"PREEMPT_RT", "y"}, {"HZ", "1000"}};
  e.config_source = "/proc/config.gz";
  return e;
}

TEST(Environment, CodecRoundTripAndFind) {
  const Environment e = sample_environment();
  EXPECT_EQ(decode_environment(encode_environment(e)), e);
  EXPECT_EQ(decode_environment(encode_environment(Environment{})), Environment{});
  ASSERT_NE(e.find("clocksource"), nullptr);
  EXPECT_EQ(e.find("clocksource")->value, "tsc");
  EXPECT_EQ(e.find("nothing"), nullptr);
}

TEST(Environment, CodecRejectsDamage) {
  // Every truncation is an error or a shorter environment, never a crash.
  const std::vector<uint8_t> bytes = encode_environment(sample_environment());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    try {
      const Environment got = decode_environment(std::span<const uint8_t>(bytes.data(), cut));
      EXPECT_LE(got.facts.size(), 2u);
    } catch (const Error&) {
    }
  }
  // Every byte flipped: an error or an environment, never a crash.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> flipped = bytes;
    flipped[i] ^= 0xff;
    try {
      (void)decode_environment(flipped);
    } catch (const Error&) {
    }
  }
  // An availability flag other than 0 or 1 is named.
  Environment odd = sample_environment();
  std::vector<uint8_t> b = encode_environment(odd);
  bool replaced = false;
  for (size_t i = 0; i + 1 < b.size(); ++i) {
    // The first fact's flag follows its source string "…clocksource0".
    if (b[i] == '0' && b[i + 1] == 1) {
      b[i + 1] = 7;
      replaced = true;
      break;
    }
  }
  ASSERT_TRUE(replaced);
  try {
    (void)decode_environment(b);
    ADD_FAILURE() << "a flag of 7 decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("environment"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kprof
