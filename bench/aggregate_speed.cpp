// What a report that reads the records again (--time, --event, a cut-short
// file) spends a sample on, step by step: decoding the Records chunks'
// payloads (decompressed once, held in memory), decoding them through the
// SelectingSink --time uses, and counting by address (AddressAggregator,
// core/aggregate.h; the decoded records held in memory and replayed into a
// fresh aggregator). Each RUNS times: the median, and ns per sample. No
// perf counterpart (perf report's whole cost is bench/report_speed.sh).
//   kprof_aggregate_speed FILE [RUNS]   (bench/aggregate_speed.sh runs it)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <variant>
#include <vector>

#include "core/aggregate.h"
#include "core/file_layout.h"
#include "core/profile_reader.h"
#include "core/records_chunk.h"
#include "core/sample_selection.h"
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

// Takes every record and keeps nothing.
class Drop final : public kprof::RecordSink {};

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
  const bool run_has_stacks = kprof::read_run_info(argv[1]).event.callchains;
  std::vector<std::vector<uint8_t>> payloads;
  kprof::ProfileReader reader = kprof::ProfileReader::open(argv[1]);
  reader.for_each_chunk(
      [](uint16_t type) { return type == static_cast<uint16_t>(kprof::ChunkType::Records); },
      [&](const kprof::Chunk& c) { payloads.emplace_back(c.payload.begin(), c.payload.end()); });
  // The median of `runs` timings of `step`, in ms.
  const auto median_ms = [runs](const auto& step) {
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      step();
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  const auto print = [&](const char* what, double ms) {
    std::printf("%-40s %8.2f ms %6.2f ns a sample\n", what, ms,
                ms * 1e6 / static_cast<double>(keep.samples));
  };
  std::printf("%llu samples in %zu Records chunks, %d runs each, medians:\n",
              static_cast<unsigned long long>(keep.samples), payloads.size(), runs);
  print("decode", median_ms([&] {
          Drop drop;
          for (const auto& p : payloads) kprof::decode_records(p, drop);
        }));
  print("decode through --time's SelectingSink", median_ms([&] {
          Drop drop;
          kprof::SampleSelection all;
          all.time = "0%,100%";
          kprof::SelectingSink select(drop, all, kprof::TimeRange{});
          for (const auto& p : payloads) kprof::decode_records(p, select);
        }));
  size_t addresses = 0;
  print("count by address (AddressAggregator)", median_ms([&] {
          kprof::AddressAggregator a;
          for (const Record& r : keep.records) std::visit(Replay{a}, r);
          addresses = a.counts().counts.size();
        }));
  std::printf("(%zu distinct addresses counted)\n", addresses);
  if (run_has_stacks) {  // a -g recording: its stacks counted too (the stack cache's path)
    size_t stacks = 0;
    print("count by address and stack (-g)", median_ms([&] {
            kprof::AddressAggregator a(/*stacks=*/true);
            for (const Record& r : keep.records) std::visit(Replay{a}, r);
            stacks = a.counts().stacks.size();
          }));
    std::printf("(%zu distinct stacks counted)\n", stacks);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kprof_aggregate_speed: %s\n", e.what());
  return 1;
}
