// What counting a recording's samples by address costs (AddressAggregator,
// core/aggregate.h: the hot loop of a report that reads the records again,
// --time, --event, a cut-short file): a profile's records are decoded into
// memory once, then replayed into a fresh aggregator RUNS times. Prints
// the minimum and median, and ns per sample. No perf counterpart (perf
// report's whole cost is bench/report_speed.sh).
//   kprof_aggregate_speed FILE [RUNS]   (bench/aggregate_speed.sh runs it)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <variant>
#include <vector>

#include "core/aggregate.h"
#include "perfabi/load.h"

namespace {

struct Exit {
  kprof::Fork f;
};
using Record = std::variant<kprof::Sample, kprof::Mmap, kprof::Comm, kprof::Fork, Exit>;

// Every record the aggregator reads, in file order.
class Keep final : public kprof::RecordSink {
 public:
  std::vector<Record> records;
  uint64_t samples = 0;
  void on_sample(const kprof::Sample& s) override {
    records.emplace_back(s);
    ++samples;
  }
  void on_mmap(const kprof::Mmap& m) override { records.emplace_back(m); }
  void on_comm(const kprof::Comm& c) override { records.emplace_back(c); }
  void on_fork(const kprof::Fork& f) override { records.emplace_back(f); }
  void on_exit(const kprof::Fork& f) override { records.emplace_back(Exit{f}); }
};

struct Replay {
  kprof::AddressAggregator& a;
  void operator()(const kprof::Sample& s) const { a.on_sample(s); }
  void operator()(const kprof::Mmap& m) const { a.on_mmap(m); }
  void operator()(const kprof::Comm& c) const { a.on_comm(c); }
  void operator()(const kprof::Fork& f) const { a.on_fork(f); }
  void operator()(const Exit& e) const { a.on_exit(e.f); }
};

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.kprof [RUNS]\n", argv[0]);
    return 2;
  }
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 21;
  Keep keep;
  kprof::perfabi::load_profile(argv[1],
                               {.records = &keep, .tables = false, .kernel_symbols = false});
  if (keep.samples == 0) {
    std::fprintf(stderr, "%s holds no samples in its records\n", argv[1]);
    return 1;
  }
  std::vector<double> ms;
  size_t addresses = 0;
  for (int i = 0; i < runs; ++i) {
    kprof::AddressAggregator a;
    const auto t0 = std::chrono::steady_clock::now();
    for (const Record& r : keep.records) std::visit(Replay{a}, r);
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    addresses = a.counts().counts.size();
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf(
      "%llu samples, %zu addresses, %d runs: min %.2f ms, median %.2f ms, %.2f ns a sample\n",
      static_cast<unsigned long long>(keep.samples), addresses, runs, ms.front(), median,
      median * 1e6 / static_cast<double>(keep.samples));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kprof_aggregate_speed: %s\n", e.what());
  return 1;
}
