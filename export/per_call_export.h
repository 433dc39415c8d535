// Cost per system call (report/per_call.h) for the diff's page: the JSON
// object `kprof diff --per-call --json` writes, and the per-call diff of a
// DiffInput whose every run was recorded with -g --syscalls. Export-internal
// (the CSV/JSON writers are declared in tables.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "report/diff.h"
#include "report/per_call.h"

namespace kprof {

nlohmann::json per_call_diff_json(const PerCallDiff& d);

// nullopt unless every run of every side has stacks and system-call counts.
std::optional<PerCallDiff> per_call_diff_of(const DiffInput& in);

}  // namespace kprof
