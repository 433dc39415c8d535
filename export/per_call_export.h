// Cost per system call (report/per_call.h) for the diff's page: the JSON
// object `kprof diff --per-call --json` writes. Export-internal (the CSV/JSON
// writers are declared in tables.h).
#pragma once

#include <nlohmann/json.hpp>

#include "report/diff.h"
#include "report/per_call.h"

namespace kprof {

nlohmann::json per_call_diff_json(const PerCallDiff& d);

}  // namespace kprof
