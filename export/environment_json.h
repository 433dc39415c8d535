// The environment diff (report/environment_diff.h) as JSON: the diff's JSON
// export (tables.cpp) and the page's data island (html.cpp) carry the same
// object, every differing fact and option with its cost. Export-internal.
#pragma once

#include <nlohmann/json.hpp>

#include "report/environment_diff.h"

namespace kprof {

nlohmann::json environment_json(const EnvironmentDiff& e);

}  // namespace kprof
