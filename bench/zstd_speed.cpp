// zstd's speed on a profile's own Records chunks, for bench/storm.sh: each
// round compresses every Records payload of FILE once (at LEVEL), and the
// program prints the median MB/s over the rounds of SECONDS seconds. Run
// alone it gives the quiet speed; run while a profiler samples every CPU at
// a high rate, what compressing inside a profiler's drain loop would get.
//   kprof_zstd_speed FILE [SECONDS] [LEVEL]     (defaults: 5, kZstdFast)
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile_reader.h"

int main(int argc, char** argv) {
  using namespace kprof;
  if (argc < 2) {
    std::fprintf(stderr, "usage: kprof_zstd_speed FILE [SECONDS] [LEVEL]\n");
    return 2;
  }
  const double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  const int level = argc > 3 ? std::atoi(argv[3]) : kZstdFast;
  std::vector<std::vector<uint8_t>> payloads;
  size_t bytes = 0;
  try {
    ProfileReader reader = ProfileReader::open(argv[1]);
    reader.for_each_chunk(
        [](uint16_t type) { return type == static_cast<uint16_t>(ChunkType::Records); },
        [&](const Chunk& c) {
          payloads.emplace_back(c.payload.begin(), c.payload.end());
          bytes += c.payload.size();
        });
  } catch (const Error& e) {
    std::fprintf(stderr, "kprof_zstd_speed: %s\n", e.what());
    return 1;
  }
  if (bytes == 0) {
    std::fprintf(stderr, "kprof_zstd_speed: %s has no Records chunks\n", argv[1]);
    return 1;
  }
  std::vector<uint8_t> out;
  std::vector<double> mbps;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end || mbps.size() < 3) {
    const auto a = std::chrono::steady_clock::now();
    for (const auto& p : payloads) {
      out.resize(ZSTD_compressBound(p.size()));
      ZSTD_compress(out.data(), out.size(), p.data(), p.size(), level);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    mbps.push_back(static_cast<double>(bytes) / 1e6 / s);
  }
  std::sort(mbps.begin(), mbps.end());
  std::printf("%.1f MB/s median of %zu rounds (%zu bytes of Records, zstd level %d)\n",
              mbps[mbps.size() / 2], mbps.size(), bytes, level);
  return 0;
}
