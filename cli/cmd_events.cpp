// kprof events: what this machine can sample, as a table.
#include <algorithm>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/parse.h"
#include "collector/events.h"

namespace kprof::cli {

namespace {

std::string clip(const std::string& s, size_t width) {
  std::string one_line = s.substr(0, s.find('\n'));
  return one_line.size() <= width ? one_line : one_line.substr(0, width - 3) + "...";
}

}  // namespace

int cmd_events(int argc, char** argv) {
  CLI::App app{
      "List the events kprof knows here (perf's generic names and libpfm4's events of the "
      "detected PMUs) and whether each opens on this machine."};
  bool all = false;
  app.add_flag("--all", all, "also the PMUs libpfm4 supports but did not detect here");
  if (auto code = parse_args(app, argc, argv)) return *code;
  collector::PfmScope pfm;
  const auto rows = collector::list_events(pfm, all);
  size_t name_w = 4, pmu_w = 3;
  for (const auto& r : rows) {
    name_w = std::min<size_t>(std::max(name_w, r.name.size()), 48);
    pmu_w = std::max(pmu_w, r.pmu.size());
  }
  size_t usable = 0;
  std::printf("%-*s  %-*s  %-22s  %s\n", int(name_w), "NAME", int(pmu_w), "PMU", "OPENS HERE",
              "DESCRIPTION");
  for (const auto& r : rows) {
    std::string opens = r.opens ? "yes" : "no (" + r.reason + ")";
    std::printf("%-*s  %-*s  %-22s  %s\n", int(name_w), clip(r.name, 48).c_str(), int(pmu_w),
                r.pmu.c_str(), opens.c_str(), clip(r.description, 60).c_str());
    usable += r.opens;
  }
  std::printf("\n%zu of %zu events open here.", usable, rows.size());
  if (usable > 0 && std::none_of(rows.begin(), rows.end(),
                                 [](const auto& r) { return r.opens && r.name == "cycles"; })) {
    std::printf(" No hardware cycles: kprof record samples cpu-clock instead.");
  }
  std::printf("\n");
  return 0;
}

}  // namespace kprof::cli
