// Fixed costs of kprof record, on this machine's /proc/kallsyms: taking the
// kallsyms snapshot afresh (the kernel prints it, zstd packs it) against
// copying this boot's cached one (collector/kallsyms_cache.h), parsing it to
// name kernel addresses, and the CRC-32 every chunk gets. Medians of RUNS.
//   kprof_core_speed [RUNS]      (bench/core_speed.sh builds and runs it)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "collector/kallsyms_cache.h"
#include "collector/procfs.h"
#include "core/bytes.h"
#include "core/kallsyms_subset.h"
#include "core/kernel_symbols.h"

namespace {

double median_ms(int runs, const std::function<void()>& fn) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    const auto b = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kprof;
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  const std::string text = collector::read_kallsyms();
  if (text.empty()) {
    std::fprintf(stderr, "kprof_core_speed: /proc/kallsyms is not readable\n");
    return 1;
  }
  char tmpl[] = "/tmp/kprof-core-speed-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return 1;
  const collector::KallsymsCache cache(std::string(tmpl) + "/kprof");
  const std::string modules = collector::read_modules();
  cache.store(collector::read_kallsyms_snapshot().chunk, modules);

  size_t symbols = 0;
  const double read_ms = median_ms(runs, [] { (void)collector::read_kallsyms(); });
  const double fresh_ms = median_ms(runs, [] { (void)collector::read_kallsyms_snapshot(); });
  const double cached_ms = median_ms(runs, [&] {
    if (!cache.load(modules)) std::abort();  // the cache must hit here
  });
  const double parse_ms =
      median_ms(runs, [&] { symbols = KernelSymbols::parse(text, modules).size(); });
  // What finishing a recording does with it: the index, then the lines its addresses need.
  const double index_ms = median_ms(runs, [&] {
    const KallsymsIndex index(text, modules);
    (void)index.subset({});
  });
  const std::span<const uint8_t> mb = bytes_of(text).first(std::min<size_t>(text.size(), 1 << 20));
  const double crc_ms = median_ms(runs, [&] { (void)crc32(mb); });
  std::filesystem::remove_all(tmpl);

  std::printf("# core speed, %zu bytes of kallsyms, %zu function symbols, median of %d\n",
              text.size(), symbols, runs);
  std::printf("read /proc/kallsyms              %8.2f ms\n", read_ms);
  std::printf("snapshot afresh (read + zstd)    %8.2f ms\n", fresh_ms);
  std::printf("snapshot from this boot's cache  %8.2f ms\n", cached_ms);
  std::printf("parse kallsyms                   %8.2f ms\n", parse_ms);
  std::printf("index kallsyms (KallsymsIndex)   %8.2f ms\n", index_ms);
  std::printf("crc32 of 1 MiB                   %8.3f ms\n", crc_ms * (1 << 20) / mb.size());
  return 0;
}
