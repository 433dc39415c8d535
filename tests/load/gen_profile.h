// A synthetic profile as big as you like, written chunk by chunk the way the
// recorder writes it (Meta, Kallsyms, Records..., Summary, Histogram, End),
// so the writer never holds more than one Records chunk in memory.
//
// Addresses are spread like a real system-wide run: a few thousand kernel
// functions and, per process, an executable and two libraries, each with a
// few hundred functions; which function a sample hits follows a skewed
// (roughly Zipf) law, and the ip lands anywhere inside the function, so the
// number of distinct addresses grows with the sample count the way it does
// in real profiles (tens to hundreds of thousands).
#pragma once

#include <cstdint>
#include <string>

#include "core/model.h"

namespace kprof::load {

struct GenOptions {
  uint64_t samples = 1'000'000;
  uint64_t seed = 1;
  bool histogram = true;   // write the Summary/Histogram/End chunks as `kprof record` does
  bool end = true;         // write the End chunk (false: a cut-short file)
  uint32_t processes = 8;  // user processes sampled (plus the kernel)
  uint32_t samples_per_chunk = 65536;
};

struct GenResult {
  uint64_t samples = 0;
  uint64_t bytes = 0;               // file size
  std::string top_kernel_function;  // the most sampled kernel function, by construction
};

// Writes the profile to `path` (mode 0600, through ProfileWriter). Throws
// kprof::Error when the file cannot be written.
GenResult generate_profile(const std::string& path, const GenOptions& options);

}  // namespace kprof::load
