// Event spellings: perf names, libpfm4 names, oprofile NAME:PERIOD.
#include <linux/perf_event.h>

#include <gtest/gtest.h>

#include "collector/events.h"
#include "collector/tracefs.h"
#include "core/error.h"

namespace kprof::collector {
namespace {

TEST(EventSpec, NameAndPeriod) {
  EXPECT_EQ(parse_event_spec("CPU_CLK_UNHALTED:100000"), (EventSpec{"CPU_CLK_UNHALTED", 100000}));
  EXPECT_EQ(parse_event_spec("cycles"), (EventSpec{"cycles", std::nullopt}));
  // libpfm4 modifiers are not periods.
  EXPECT_EQ(parse_event_spec("INST_RETIRED:ANY_P"),
            (EventSpec{"INST_RETIRED:ANY_P", std::nullopt}));
  EXPECT_EQ(parse_event_spec("perf::cycles"), (EventSpec{"perf::cycles", std::nullopt}));
  EXPECT_THROW(parse_event_spec("cycles:0"), Error);
  EXPECT_THROW(parse_event_spec("cycles:99999999999999999999999"), Error);
  EXPECT_THROW(parse_event_spec(":100"), Error);
}

TEST(EventSpec, PrivilegeModifiers) {
  EventSpec u = parse_event_spec("cpu-clock:u");
  EXPECT_EQ(u.name, "cpu-clock");
  EXPECT_TRUE(u.exclude_kernel);
  EXPECT_FALSE(u.exclude_user);
  EventSpec k = parse_event_spec("CPU_CLK_UNHALTED:k:100000");
  EXPECT_EQ(k.name, "CPU_CLK_UNHALTED");
  EXPECT_EQ(k.period, std::optional<uint64_t>(100000));
  EXPECT_TRUE(k.exclude_user);
  EXPECT_FALSE(k.exclude_kernel);
  // A libpfm4 unit mask that merely starts with u is not a modifier.
  EXPECT_EQ(parse_event_spec("X:umask").name, "X:umask");
}

TEST(ResolveEvent, DefaultIsUnhaltedCycles) {
  PfmScope pfm;
  for (const char* spec : {"", "CPU_CLK_UNHALTED", "cycles"}) {
    ResolvedEvent e = resolve_event(pfm, spec);
    EXPECT_EQ(e.name, "cycles") << spec;
    EXPECT_EQ(e.type, uint32_t{PERF_TYPE_HARDWARE});
    EXPECT_EQ(e.config, uint64_t{PERF_COUNT_HW_CPU_CYCLES});
    EXPECT_FALSE(e.period.has_value());
    EXPECT_FALSE(e.is_software());
  }
}

TEST(ResolveEvent, OprofilePeriod) {
  PfmScope pfm;
  ResolvedEvent e = resolve_event(pfm, "CPU_CLK_UNHALTED:100000");
  EXPECT_EQ(e.name, "cycles");
  ASSERT_TRUE(e.period.has_value());
  EXPECT_EQ(*e.period, 100000u);
}

TEST(ResolveEvent, GenericSoftware) {
  PfmScope pfm;
  ResolvedEvent e = resolve_event(pfm, "task-clock");
  EXPECT_EQ(e.type, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(e.config, uint64_t{PERF_COUNT_SW_TASK_CLOCK});
  EXPECT_TRUE(e.is_software());
  EXPECT_EQ(cpu_clock_event().config, uint64_t{PERF_COUNT_SW_CPU_CLOCK});
}

// SUBSYSTEM:EVENT names a tracepoint through tracefs (mounted as root when
// it is not), its id read from there; anything else is not a tracepoint.
TEST(ResolveEvent, Tracepoints) {
  EXPECT_FALSE(resolve_tracepoint("cycles"));
  EXPECT_FALSE(resolve_tracepoint("perf::cycles"));
  EXPECT_FALSE(resolve_tracepoint("a:b:c"));
  bool mounted = false;
  const std::string tracefs = find_tracefs(&mounted);
  if (tracefs.empty()) GTEST_SKIP() << "tracefs is not mounted and cannot be here (not root)";
  const auto id = tracepoint_id(tracefs, "sched", "sched_switch");
  if (!id) GTEST_SKIP() << "this kernel has no sched:sched_switch tracepoint";
  PfmScope pfm;
  const ResolvedEvent e = resolve_event(pfm, "sched:sched_switch");
  EXPECT_EQ(e.name, "sched:sched_switch");
  EXPECT_EQ(e.type, uint32_t{PERF_TYPE_TRACEPOINT});
  EXPECT_EQ(e.config, *id);
  EXPECT_TRUE(e.is_tracepoint());
  EXPECT_FALSE(e.is_software());
  EXPECT_EQ(resolve_event(pfm, "sched:sched_switch:u").exclude_kernel, true);
  try {
    resolve_event(pfm, "sched:no_such_tracepoint");
    ADD_FAILURE() << "a tracepoint that does not exist was accepted";
  } catch (const Error& err) {
    EXPECT_NE(
        std::string(err.what()).find("no tracepoint 'sched:no_such_tracepoint' in " + tracefs),
        std::string::npos)
        << err.what();
  }
}

TEST(ResolveEvent, LibpfmName) {
  PfmScope pfm;
  ResolvedEvent e = resolve_event(pfm, "perf::PERF_COUNT_HW_INSTRUCTIONS");
  EXPECT_EQ(e.type, uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(e.config, uint64_t{PERF_COUNT_HW_INSTRUCTIONS});
  EXPECT_EQ(e.name, "perf::PERF_COUNT_HW_INSTRUCTIONS");
}

TEST(ResolveEvent, UnknownEventNamesItAndTheFix) {
  PfmScope pfm;
  try {
    resolve_event(pfm, "NO_SUCH_EVENT:1000");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown event 'NO_SUCH_EVENT' (kprof events lists the events of this machine)");
  }
}

TEST(Events, MissingEventErrors) {
  EXPECT_TRUE(is_missing_event_error(ENOENT));
  EXPECT_TRUE(is_missing_event_error(EOPNOTSUPP));
  EXPECT_TRUE(is_missing_event_error(ENODEV));
  EXPECT_FALSE(is_missing_event_error(EACCES));
  EXPECT_EQ(errno_name(ENOENT), "ENOENT");
}

TEST(Events, ListHasGenericEventsAndCpuClockOpens) {
  PfmScope pfm;
  auto rows = list_events(pfm, false);
  bool cpu_clock = false;
  for (const auto& r : rows) {
    if (r.name == "cpu-clock") {
      cpu_clock = true;
      EXPECT_TRUE(r.opens) << r.reason;
      EXPECT_EQ(r.pmu, "generic");
    }
    if (!r.opens) EXPECT_FALSE(r.reason.empty()) << r.name;
  }
  EXPECT_TRUE(cpu_clock);
}

}  // namespace
}  // namespace kprof::collector
