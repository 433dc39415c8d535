// Reads the environment fingerprint (core/environment.h) of this machine when
// recording starts: the kernel configuration, /proc/version and cmdline, the
// preemption model, HZ and NO_HZ, the CPU (model, family/model/stepping,
// microcode, the flags that matter for cycles and a digest of the rest,
// every /sys/devices/system/cpu/vulnerabilities entry, SMT, online CPUs,
// NUMA nodes, hypervisor), clocksource, cpufreq driver and governor, cpuidle,
// transparent huge pages, memory size, a few sysctls (kSysctls in the .cpp,
// a reason each) and a digest of the loaded modules. Only what recording
// already may read; a fact that cannot be read is kept as "not available"
// with the reason, never an error.
#pragma once

#include <string>

#include "core/environment.h"

namespace kprof::collector {

struct EnvironmentOptions {
  // --kernel-config FILE: read first; else /proc/config.gz, else
  // /boot/config-<release>.
  std::string kernel_config;
  // Prefix of /proc, /sys and /boot ("" on the machine itself; a directory
  // tree for tests).
  std::string root;
};

Environment read_environment(const EnvironmentOptions& options);

// Why no configuration was recorded, or why not the --kernel-config file,
// for one notice; "" when all went as asked.
std::string config_notice(const Environment& env);

}  // namespace kprof::collector
