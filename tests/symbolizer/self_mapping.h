// The mapping of this test process that holds an address, as a recording
// would have it (an Mmap), for the symbolizer tests that name or read their
// own code.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "core/model.h"

namespace kprof {

inline std::optional<Mmap> mapping_of(const void* addr) {
  auto a = reinterpret_cast<uintptr_t>(addr);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    unsigned long long start = 0, end = 0, off = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
                    &path_at) < 4) {
      continue;
    }
    if (a < start || a >= end) continue;
    Mmap m;
    m.start = start;
    m.len = end - start;
    m.pgoff = off;
    m.filename = path_at > 0 ? line.substr(path_at) : "";
    return m;
  }
  return std::nullopt;
}

}  // namespace kprof
