// The environment diff (report/environment_diff.h) for other tools: as JSON
// (the diff's JSON export in tables.cpp and the page's data island in
// html.cpp carry the same object) and as CSV (`kprof diff --env-csv`), every
// differing fact and option with its cost.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report/environment_diff.h"

namespace kprof {

nlohmann::json environment_json(const EnvironmentDiff& e);

// RFC 4180: kind,name,<one column per label>,cost — a row per differing fact
// (kind "fact"), then per differing kernel option (kind "option", curated
// first, every one), then one "alike" row per kind whose value column for
// the first label is the count of alike facts / options compared.
void write_environment_csv(std::ostream& out, const EnvironmentDiff& e,
                           const std::vector<std::string>& labels);

}  // namespace kprof
