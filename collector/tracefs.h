// Where the kernel's tracepoints are named: tracefs, mounted by kprof as root
// when it is not (the syscall counter, the off-CPU wakeups and `-e
// SUBSYSTEM:EVENT` all open tracepoints by the id tracefs gives each).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kprof::collector {

// The mount point of tracefs ("/sys/kernel/tracing", or debugfs's
// "/sys/kernel/debug/tracing"), mounting it as root when it is not mounted
// (*mounted set then); "" when it is not mounted and cannot be.
std::string find_tracefs(bool* mounted);

// The perf_event_attr.config of tracepoint SUBSYSTEM:EVENT (its
// events/SUBSYSTEM/EVENT/id under `tracefs`), or nullopt.
std::optional<uint64_t> tracepoint_id(const std::string& tracefs, const std::string& subsystem,
                                      const std::string& event);

}  // namespace kprof::collector
