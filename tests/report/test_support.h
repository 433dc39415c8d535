// Helpers for the report tests: a builder that writes small profiles with
// chosen contents, and golden-file comparison.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/stacks.h"
#include "tests/support/text_files.h"

namespace kprof::test {

// Writes a profile chunk by chunk (uncompressed, so byte counts are stable).
struct ProfileBuilder {
  RunInfo run;
  std::string kallsyms;
  std::string modules;
  std::vector<std::vector<uint8_t>> records;  // Records chunk payloads (RecordEncoder::take())
  std::optional<Summary> summary;
  std::optional<Histogram> histogram;
  std::optional<Stacks> stacks;  // a Stacks chunk (-g profiles), written after the histogram
  bool end = true;

  // Writes to `path`; returns path.
  std::string write(const std::string& path) const;
};

// A RunInfo and Summary for a plain 2-second run of "./bench --iterations 3".
RunInfo sample_run();
Summary sample_summary();

// Fresh empty directory for one test under the test binary dir.
std::string temp_dir(const std::string& name);

// Compares `actual` against tests/report/golden/<name>. With KPROF_UPDATE_GOLDEN=1
// it rewrites the golden file instead. On mismatch writes <build dir>/<name>.actual
// and returns the `diff -u` output; returns "" when equal.
std::string golden_mismatch(const std::string& name, const std::string& actual);

}  // namespace kprof::test
