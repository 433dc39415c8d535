// A diff run read from a .kprof file, for tests (kprof itself loads inputs
// through importer/import.h and calls diff_run_of).
#pragma once

#include <string>
#include <vector>

#include "perfabi/load.h"
#include "report/diff.h"

namespace kprof {

inline DiffRun load_diff_run(const std::string& path, std::vector<std::string>& warnings,
                             const DiffView& view = {}) {
  return diff_run_of(perfabi::load_profile(path), warnings, view);
}

}  // namespace kprof
