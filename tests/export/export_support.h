// Helpers for the export tests: a -g profile made in code, profile files with
// a Stacks chunk, running commands, and a small pprof reader (gunzip with
// zlib, then a walk over the protobuf fields) to check kprof's own output.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model.h"
#include "core/stacks.h"
#include "tests/support/cli_run.h"

namespace kprof::test {

// Call stacks of a small -g run of "bench" (two processes) and "sh":
// 100 samples in six stacks, with a syscall (kernel frames), recursion and an
// "[unknown]" function in libc. Period: 1000 events per sample.
Stacks bench_stacks();

// Writes a complete profile (Meta, Summary, Histogram, [Stacks], End) to
// `path`; returns path.
std::string write_profile(const std::string& path, const RunInfo& run,
                          const std::optional<Summary>& summary, const Histogram& histogram,
                          const std::optional<Stacks>& stacks);

// Running commands: tests/support/cli_run.h.
using CommandResult = CliRun;

// ---------------------------------------------------------------- pprof reader

struct PprofLabel {
  std::string key, str;
  int64_t num = 0;
  bool has_num = false;
};
struct PprofSample {
  std::vector<uint64_t> location_ids;
  std::vector<int64_t> values;
  std::vector<PprofLabel> labels;
  const PprofLabel* label(const std::string& key) const;
};
struct PprofMapping {
  uint64_t id = 0;
  std::string filename, build_id;
  bool has_functions = false;
};
struct PprofLocation {
  uint64_t id = 0, mapping_id = 0;
  std::vector<uint64_t> function_ids;  // one per line
};
struct PprofFunction {
  uint64_t id = 0;
  std::string name, system_name, filename;
};
struct PprofProfile {
  std::vector<std::string> string_table;
  std::vector<std::pair<std::string, std::string>> sample_types;  // (type, unit)
  std::pair<std::string, std::string> period_type;
  int64_t period = 0, time_nanos = 0, duration_nanos = 0, default_sample_type = 0;
  std::vector<std::string> comments;
  std::vector<PprofSample> samples;
  std::vector<PprofMapping> mappings;
  std::vector<PprofLocation> locations;
  std::vector<PprofFunction> functions;

  const PprofLocation* location(uint64_t id) const;
  const PprofFunction* function(uint64_t id) const;
  // The name of the (first) function at location `id`; "" when missing.
  std::string function_name(uint64_t location_id) const;
};

// Decompresses gzip data; throws std::runtime_error when it is not gzip.
std::string gunzip(const std::string& gz);
// Parses a (decompressed) profile.proto message; throws std::runtime_error
// on a malformed message, a string index out of range, or an unknown wire type.
PprofProfile parse_pprof(const std::string& proto);

}  // namespace kprof::test
