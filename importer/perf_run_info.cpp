// perf_run_info.h: the event to show and the run facts, from a perf.data's
// header (attributes and feature sections).
#include "importer/perf_run_info.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "core/error.h"
#include "core/file_layout.h"

namespace kprof::importer {

namespace {

// "cpu-clock:pppH" -> "cpu-clock": perf's modifiers after the last ':'.
std::string_view without_modifiers(std::string_view name) {
  const size_t colon = name.rfind(':');
  if (colon == std::string_view::npos) return name;
  const std::string_view mods = name.substr(colon + 1);
  const bool all_modifiers = std::all_of(
      mods.begin(), mods.end(), [](char c) { return std::strchr("ukhIGHpPSDWeb", c) != nullptr; });
  return all_modifiers ? name.substr(0, colon) : name;
}

// What perf was asked to do, from its command line: the workload after
// "--" (or after the options), and -a / -p.
void describe_command(const std::vector<std::string>& cmdline, RunInfo& run) {
  bool system_wide = false;
  std::string pid;
  size_t i = 0;
  while (i < cmdline.size() && cmdline[i] != "record") ++i;
  for (++i; i < cmdline.size(); ++i) {
    const std::string& a = cmdline[i];
    if (a == "--") {
      run.command.assign(cmdline.begin() + static_cast<long>(i) + 1, cmdline.end());
      break;
    }
    if (a == "-a" || a == "--all-cpus") system_wide = true;
    if ((a == "-p" || a == "--pid") && i + 1 < cmdline.size()) pid = cmdline[i + 1];
  }
  run.target = system_wide ? "system-wide" : !pid.empty() ? "pid " + pid : "command";
}

}  // namespace

bool is_dummy(const PerfEvent& e) {
  return e.type == PERF_TYPE_SOFTWARE && e.config == PERF_COUNT_SW_DUMMY;
}

size_t pick_event(const PerfDataHeader& h, const std::string& wanted, const std::string& name) {
  if (h.events.empty()) throw Error(name + ": perf.data has no events in its attribute section");
  if (wanted.empty()) {
    for (size_t i = 0; i < h.events.size(); ++i) {
      if (!is_dummy(h.events[i])) return i;
    }
    return 0;
  }
  for (size_t i = 0; i < h.events.size(); ++i) {
    if (h.events[i].name == wanted) return i;
  }
  for (size_t i = 0; i < h.events.size(); ++i) {
    if (without_modifiers(h.events[i].name) == without_modifiers(wanted)) return i;
  }
  std::string names;
  for (const PerfEvent& e : h.events) names += (names.empty() ? "" : ", ") + e.name;
  throw Error(name + " has no event '" + wanted + "'; it holds: " + names +
              " (pick one with --event NAME)");
}

RunInfo perf_run_info(const PerfDataHeader& h, const PerfEvent& event) {
  RunInfo run;
  run.format_version = kFormatVersion;
  run.source_format = "perf.data";
  run.event.name = event.name;
  run.event.type = event.type;
  run.event.config = event.config;
  run.event.use_freq = event.freq;
  run.event.rate = event.sample;
  run.event.exclude_kernel = event.exclude_kernel;
  run.event.callchains = (event.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
  run.kernel_release = h.os_release;
  run.hostname = h.hostname;
  run.cpu_model = h.cpu_desc;
  run.ncpus = h.nr_cpus_online;
  describe_command(h.cmdline, run);
  for (const PerfBuildId& b : h.build_ids) {
    if (b.kernel && b.filename == "[kernel.kallsyms]") run.kernel_build_id = b.build_id;
  }
  run.notices.push_back(
      "imported from perf.data" +
      (h.perf_version.empty() ? std::string() : " (perf " + h.perf_version + ")") +
      (h.pipe ? ", a pipe-mode stream" : ""));
  for (const std::string& n : h.notices) run.notices.push_back("perf.data: " + n);
  return run;
}

std::unordered_map<std::string, std::string> build_ids_by_file(const PerfDataHeader& h) {
  std::unordered_map<std::string, std::string> ids;
  for (const PerfBuildId& b : h.build_ids) ids.emplace(b.filename, b.build_id);
  return ids;
}

std::string other_events_notice(const PerfDataHeader& h, size_t chosen, uint64_t chosen_samples,
                                const std::vector<uint64_t>& samples_by_event) {
  std::string others;
  size_t sampling_events = 1;
  for (size_t i = 0; i < h.events.size(); ++i) {
    if (i == chosen || (is_dummy(h.events[i]) && samples_by_event[i] == 0)) continue;
    ++sampling_events;
    others += (others.empty() ? "" : ", ") + h.events[i].name + " (" +
              std::to_string(samples_by_event[i]) + " samples)";
  }
  if (others.empty()) return "";
  return "perf.data holds " + std::to_string(sampling_events) + " events: showing " +
         h.events[chosen].name + " (" + std::to_string(chosen_samples) + " samples); also " +
         others + "; pick one with --event NAME";
}

Environment perf_environment(const PerfDataHeader& h) {
  Environment env;
  auto fact = [&](const char* key, const std::string& value) {
    if (value.empty()) {
      env.facts.push_back({key, "", "not in this perf.data's header", false});
    } else {
      env.facts.push_back({key, value, "perf.data header", true});
    }
  };
  fact("cpu.model", h.cpu_desc);
  fact("cpu.cpuid", h.cpuid);
  fact("cpu.count", h.nr_cpus_online ? std::to_string(h.nr_cpus_online) : "");
  env.config_source = "not available (a perf.data holds no kernel configuration)";
  return env;
}

}  // namespace kprof::importer
