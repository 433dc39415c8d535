// Event names -> perf_event_attr fields, through libpfm4 and a table of
// perf's generic names.
//
// Accepted spellings: perf generic names (cycles, instructions, cpu-clock,
// task-clock, ...), any libpfm4 name for the PMUs of this machine
// ("amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", "perf::PERF_COUNT_HW_CPU_CYCLES"),
// and oprofile's NAME:PERIOD ("CPU_CLK_UNHALTED:100000"); what neither
// knows, a tracepoint "SUBSYSTEM:EVENT" ("sched:sched_switch:10": every
// tenth). CPU_CLK_UNHALTED, the default, is the CPU's unhalted-cycles event:
// perf's generic `cycles`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::collector {

inline constexpr const char* kDefaultEvent = "CPU_CLK_UNHALTED";

// Owns libpfm4, loaded for its lifetime (core/shared_library.h: only the
// commands that name events pay for its relocations), and its global state
// (pfm_initialize/pfm_terminate). Throws kprof::Error when libpfm4 cannot
// be loaded or initialize.
class PfmScope {
 public:
  PfmScope();
  ~PfmScope();
  PfmScope(const PfmScope&) = delete;
  PfmScope& operator=(const PfmScope&) = delete;
  struct Api;  // libpfm4's functions (events.cpp)
  const Api& api() const { return *api_; }

 private:
  std::unique_ptr<Api> api_;
};

// "NAME", "NAME:PERIOD" (the last ':'-separated part all digits), and perf's
// privilege modifiers before it: "NAME:u" (user only), "NAME:k" (kernel only),
// "NAME:u:100000".
struct EventSpec {
  std::string name;
  std::optional<uint64_t> period;
  bool exclude_kernel = false;  // ":u"
  bool exclude_user = false;    // ":k"
  auto operator<=>(const EventSpec&) const = default;
};
// Throws kprof::Error on an empty name or a zero/overflowing period.
EventSpec parse_event_spec(std::string_view spec);

struct ResolvedEvent {
  std::string name;   // "cycles", "cpu-clock", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS"
  uint32_t type = 0;  // perf_event_attr.type
  uint64_t config = 0, config1 = 0, config2 = 0;
  std::optional<uint64_t> period;                     // from NAME:PERIOD
  bool exclude_kernel = false, exclude_user = false;  // from NAME:u / NAME:k
  // A software event cannot fall back; anything else may be missing here.
  bool is_software() const;
  // A tracepoint (SUBSYSTEM:EVENT) is there or not: no fallback either.
  bool is_tracepoint() const;
};

// "SUBSYSTEM:EVENT" (sched:sched_switch, syscalls:sys_enter_openat) as a
// tracepoint through tracefs (mounted as root when it is not): nullopt when
// the name is not of that form; throws kprof::Error naming the fix when
// tracefs is missing or has no such tracepoint. Sampled with period 1
// unless one is given (kprof record).
std::optional<ResolvedEvent> resolve_tracepoint(std::string_view name);

// Throws Error("unknown event 'X' (kprof events lists the events of this
// machine)") when neither the generic table nor libpfm4 knows the name.
ResolvedEvent resolve_event(const PfmScope&, std::string_view spec);

// The event used when the requested one cannot be sampled here.
ResolvedEvent cpu_clock_event();

// Whether an open error means "this machine has no such PMU/event", the
// case where kprof falls back to cpu-clock.
bool is_missing_event_error(int err);

// "ENOENT", "EACCES", ... (the symbolic name of an errno value).
std::string errno_name(int err);

// One row of `kprof events`.
struct EventListing {
  std::string name;
  std::string pmu;  // "generic" for perf's names
  std::string description;
  bool opens = false;  // perf_event_open (counting, this process) succeeded
  std::string reason;  // errno name when it did not
};

// The generic events plus every event of the PMUs libpfm4 detects here; with
// `all`, also the PMUs libpfm4 supports but does not detect. Each event is
// tried once (counting on this process, closed at once).
std::vector<EventListing> list_events(const PfmScope&, bool all);

}  // namespace kprof::collector
