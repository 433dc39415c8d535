// What a perf.data's header says of its run, for import_perf_data
// (import.h): the event to show, the run facts kprof keeps (event, kernel,
// machine, what perf was asked to run), the build-ids the file lists, and
// the notice naming the events not shown. Header facts only: no records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/environment.h"
#include "core/model.h"
#include "importer/perf_data.h"

namespace kprof::importer {

// perf's "dummy" software event (perf record -a adds one for side-band
// records): it never samples, so it is not offered as the event to show.
bool is_dummy(const PerfEvent& e);

// The index in h.events of the event to show: `wanted` by its name, else by
// its name without perf's modifiers ("cpu-clock:pppH" is "cpu-clock"); with
// `wanted` "", the first event that is not perf's dummy. Throws kprof::Error
// naming `name` for a file without events, or without `wanted` (listing the
// events it holds).
size_t pick_event(const PerfDataHeader& h, const std::string& wanted, const std::string& name);

// The run facts of `event`'s samples: the event, the kernel's release and
// build-id, host, CPU, perf's command line (the workload after "--", -a,
// -p); notices: "imported from perf.data (perf V)", then the header's own.
RunInfo perf_run_info(const PerfDataHeader& h, const PerfEvent& event);

// What a perf.data header says of the machine (issue 24): the CPU's
// description and CPUID, the online CPUs; the rest of the fingerprint is not
// in it (no kernel configuration, mitigations, clocksource, ...), which
// the diff reads as unknown, not as a difference.
Environment perf_environment(const PerfDataHeader& h);

// The BUILD_ID feature by file name, for mappings whose records carry none.
std::unordered_map<std::string, std::string> build_ids_by_file(const PerfDataHeader& h);

// "perf.data holds N events: showing X (n samples); also Y (m samples), ...;
// pick one with --event NAME" when events other than `chosen` sampled (a
// dummy event without samples does not count); "" otherwise.
// `samples_by_event`: samples per index of h.events, as the records had them.
std::string other_events_notice(const PerfDataHeader& h, size_t chosen, uint64_t chosen_samples,
                                const std::vector<uint64_t>& samples_by_event);

}  // namespace kprof::importer
