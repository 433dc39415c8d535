#include "collector/events.h"

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "collector/perf_event.h"
#include "collector/tracefs.h"
#include "core/error.h"
#include "core/shared_library.h"

namespace kprof::collector {

struct PfmScope::Api {
#ifndef KPROF_LINKED_LIBS
  SharedLibrary lib{"libpfm.so." + std::to_string(PFM_MAJ_VERSION(LIBPFM_VERSION)),
                    "kprof resolves event names with it (apt-get install libpfm4)"};
#endif
  decltype(&pfm_initialize) initialize = KPROF_LIBRARY_FUNCTION(lib, pfm_initialize);
  decltype(&pfm_terminate) terminate = KPROF_LIBRARY_FUNCTION(lib, pfm_terminate);
  decltype(&pfm_strerror) strerror = KPROF_LIBRARY_FUNCTION(lib, pfm_strerror);
  decltype(&pfm_get_os_event_encoding) get_os_event_encoding =
      KPROF_LIBRARY_FUNCTION(lib, pfm_get_os_event_encoding);
  decltype(&pfm_get_pmu_info) get_pmu_info = KPROF_LIBRARY_FUNCTION(lib, pfm_get_pmu_info);
  decltype(&pfm_get_event_next) get_event_next = KPROF_LIBRARY_FUNCTION(lib, pfm_get_event_next);
  decltype(&pfm_get_event_info) get_event_info = KPROF_LIBRARY_FUNCTION(lib, pfm_get_event_info);
};

namespace {

struct Generic {
  const char* name;
  uint32_t type;
  uint64_t config;
  const char* description;
};

// perf's generic names; kprof reports these names, not libpfm4's spelling.
constexpr Generic kGeneric[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (unhalted)"},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (unhalted)"},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions retired"},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
     "last-level cache references"},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "last-level cache misses"},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches retired"},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches"},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles"},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles"},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "CPU clock timer (software)"},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task clock timer (software)"},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page faults (software)"},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
     "context switches (software)"},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
     "CPU migrations (software)"},
};

const Generic* find_generic(std::string_view name) {
  for (const Generic& g : kGeneric) {
    if (name == g.name) return &g;
  }
  return nullptr;
}

// libpfm4 encoding of `name`; false when libpfm4 does not know it.
bool pfm_encode(const PfmScope::Api& pfm, const std::string& name, perf_event_attr& attr,
                std::string* canonical) {
  std::memset(&attr, 0, sizeof attr);
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &attr;
  char* fstr = nullptr;
  arg.fstr = &fstr;
  int rc =
      pfm.get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (rc != PFM_SUCCESS) return false;
  if (canonical != nullptr && fstr != nullptr) {
    // "pmu::EVENT:u=1:k=1..." -> "pmu::EVENT"
    std::string s(fstr);
    size_t sep = s.find("::");
    size_t colon = s.find(':', sep == std::string::npos ? 0 : sep + 2);
    *canonical = s.substr(0, colon);
  }
  std::free(fstr);
  return true;
}

// Counting on this process, closed at once: does the event exist here?
int try_open(uint32_t type, uint64_t config, uint64_t config1, uint64_t config2) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.config1 = config1;
  attr.config2 = config2;
  attr.disabled = 1;
  attr.exclude_kernel = 1;  // opens under perf_event_paranoid 2 as well
  attr.exclude_hv = 1;
  int err = 0;
  Fd fd = open_perf_event(attr, 0, -1, -1, &err);
  return err;
}

}  // namespace

PfmScope::PfmScope() : api_(std::make_unique<Api>()) {
  int rc = api_->initialize();
  if (rc != PFM_SUCCESS) {
    throw Error(std::string("cannot initialize libpfm4: ") + api_->strerror(rc));
  }
}

PfmScope::~PfmScope() {
  api_->terminate();
}

EventSpec parse_event_spec(std::string_view spec) {
  EventSpec out;
  size_t colon = spec.rfind(':');
  std::string_view tail = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
  bool numeric = !tail.empty() &&
                 std::all_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (numeric && (colon == 0 || spec[colon - 1] != ':')) {
    uint64_t period = 0;
    auto [p, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), period);
    (void)p;
    if (ec != std::errc() || period == 0) {
      throw Error("event '" + std::string(spec) + "': period must be a number from 1 to 2^64-1");
    }
    out.period = period;
    spec = spec.substr(0, colon);
  }
  colon = spec.rfind(':');
  if (colon != std::string_view::npos && colon > 0 && spec[colon - 1] != ':') {
    std::string_view mod = spec.substr(colon + 1);
    if (mod == "u" || mod == "k") {
      out.exclude_kernel = mod == "u";
      out.exclude_user = mod == "k";
      spec = spec.substr(0, colon);
    }
  }
  if (spec.empty()) throw Error("empty event name (kprof events lists the events of this machine)");
  out.name = std::string(spec);
  return out;
}

bool ResolvedEvent::is_software() const {
  return type == PERF_TYPE_SOFTWARE;
}

bool ResolvedEvent::is_tracepoint() const {
  return type == PERF_TYPE_TRACEPOINT;
}

namespace {

bool tracepoint_part(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

std::optional<ResolvedEvent> resolve_tracepoint(std::string_view name) {
  const size_t colon = name.find(':');
  if (colon == std::string_view::npos || !tracepoint_part(name.substr(0, colon)) ||
      !tracepoint_part(name.substr(colon + 1))) {
    return std::nullopt;
  }
  const std::string subsystem(name.substr(0, colon)), event(name.substr(colon + 1));
  bool mounted = false;
  const std::string tracefs = find_tracefs(&mounted);
  if (tracefs.empty()) {
    throw Error("event '" + std::string(name) +
                "' is a tracepoint, and tracefs is not mounted (as root: mount -t tracefs nodev "
                "/sys/kernel/tracing, or run kprof record as root)");
  }
  const auto id = tracepoint_id(tracefs, subsystem, event);
  if (!id) {
    throw Error("no tracepoint '" + std::string(name) + "' in " + tracefs + "/events (`ls " +
                tracefs + "/events/" + subsystem +
                "` lists that subsystem's; kprof events lists the other events)");
  }
  ResolvedEvent ev;
  ev.name = std::string(name);
  ev.type = PERF_TYPE_TRACEPOINT;
  ev.config = *id;
  return ev;
}

ResolvedEvent resolve_event(const PfmScope& pfm, std::string_view spec_text) {
  EventSpec spec = parse_event_spec(spec_text.empty() ? kDefaultEvent : spec_text);
  ResolvedEvent ev;
  ev.period = spec.period;
  ev.exclude_kernel = spec.exclude_kernel;
  ev.exclude_user = spec.exclude_user;
  std::string name = spec.name == kDefaultEvent ? "cycles" : spec.name;
  if (const Generic* g = find_generic(name)) {
    ev.name = g->name;
    ev.type = g->type;
    ev.config = g->config;
    return ev;
  }
  perf_event_attr attr;
  if (!pfm_encode(pfm.api(), name, attr, &ev.name)) {
    if (auto tp = resolve_tracepoint(name)) {
      tp->period = ev.period;
      tp->exclude_kernel = ev.exclude_kernel;
      tp->exclude_user = ev.exclude_user;
      return *tp;
    }
    throw Error("unknown event '" + spec.name +
                "' (kprof events lists the events of this machine)");
  }
  ev.type = attr.type;
  ev.config = attr.config;
  ev.config1 = attr.config1;
  ev.config2 = attr.config2;
  return ev;
}

ResolvedEvent cpu_clock_event() {
  ResolvedEvent ev;
  ev.name = "cpu-clock";
  ev.type = PERF_TYPE_SOFTWARE;
  ev.config = PERF_COUNT_SW_CPU_CLOCK;
  return ev;
}

bool is_missing_event_error(int err) {
  return err == ENOENT || err == EOPNOTSUPP || err == ENODEV;
}

std::string errno_name(int err) {
  const char* n = strerrorname_np(err);
  return n != nullptr ? n : "errno " + std::to_string(err);
}

std::vector<EventListing> list_events(const PfmScope& scope, bool all) {
  const PfmScope::Api& pfm = scope.api();
  std::vector<EventListing> out;
  for (const Generic& g : kGeneric) {
    int err = try_open(g.type, g.config, 0, 0);
    out.push_back({g.name, "generic", g.description, err == 0, err ? errno_name(err) : ""});
  }
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    const pfm_pmu_t pmu = static_cast<pfm_pmu_t>(p);
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm.get_pmu_info(pmu, &info) != PFM_SUCCESS) continue;
    if (!info.is_present && !all) continue;
    for (int i = info.first_event; i != -1; i = pfm.get_event_next(i)) {
      pfm_event_info_t ei;
      std::memset(&ei, 0, sizeof ei);
      ei.size = sizeof ei;
      if (pfm.get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS) continue;
      EventListing row{std::string(info.name) + "::" + ei.name, info.name,
                       ei.desc != nullptr ? ei.desc : "", false, ""};
      perf_event_attr attr;
      if (!info.is_present) {
        row.reason = "PMU not present";
      } else if (!pfm_encode(pfm, row.name, attr, nullptr)) {
        row.reason = "needs a unit mask";
      } else {
        int err = try_open(attr.type, attr.config, attr.config1, attr.config2);
        row.opens = err == 0;
        row.reason = err ? errno_name(err) : "";
      }
      out.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace kprof::collector
