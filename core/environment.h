// What the recording machine was besides the kernel's code (issue 24): an
// environment fingerprint read when recording starts, stored in one chunk,
// so a diff can say what differs besides the workload (mitigations,
// clocksource, preemption model, governor, ...) and which kernel
// configuration options differ. Each fact keeps where it came from, and a
// fact that could not be read says so ("not available"), never fails.
// The model and its chunk codec only; collector/environment.h reads the
// machine, report/environment_diff.h compares. No Linux dependency.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

struct EnvFact {
  std::string key;     // "clocksource", "cpu.vulnerabilities.spectre_v2", "sysctl.vm.swappiness"
  std::string value;   // "" when not available
  std::string source;  // where it was read ("/proc/cmdline"), or why it was not
  bool available = false;
  auto operator<=>(const EnvFact&) const = default;
};

struct Environment {
  std::vector<EnvFact> facts;  // in the order they were read
  // The kernel configuration's options that are set, name (CONFIG_ prefix
  // dropped) to value, as parse_kernel_config gives them; an option not set
  // is absent (as the kernel reads it), which halves what is stored. Empty
  // when none was found.
  std::map<std::string, std::string> config;
  std::string config_source;  // "/proc/config.gz", "/boot/config-6.1.0-50-amd64", or why none
  auto operator<=>(const Environment&) const = default;

  // The fact named `key`, or nullptr.
  const EnvFact* find(std::string_view key) const;
};

// A Linux .config's options that are set ("CONFIG_X=y" lines; quotes kept as
// written). Throws kprof::Error when `text` holds no option line at all, set
// or "# CONFIG_X is not set" ("not a Linux kernel configuration").
std::map<std::string, std::string> parse_kernel_config(std::string_view text);

// The Environment chunk (core/file_layout.h ChunkType::Environment): facts
// as blobs, then the config as one "NAME=value\n" text. decode throws
// kprof::Error on damage (bounds-checked; fuzzed through profile_reader).
std::vector<uint8_t> encode_environment(const Environment&);
Environment decode_environment(std::span<const uint8_t>);

}  // namespace kprof
