// Fuzzes the ring-buffer reader and the perf record decoder together, and
// the period dither's sample count (collector/period_dither.h), which reads
// the same two parts of the ring the recorder hands it.
// Input: byte 0 picks a sample layout, bytes 1-2 the tail offset; the rest is
// the ring (cut to a power of two) whose records are all decoded.
#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collector/period_dither.h"
#include "core/error.h"
#include "perfabi/perf_record.h"

namespace {

constexpr uint64_t kBase =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
const kprof::perfabi::SampleLayout kLayouts[] = {
    {kBase, true},
    {kBase | PERF_SAMPLE_CALLCHAIN, true},
    {kBase, false},
    {PERF_SAMPLE_IDENTIFIER | kBase | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_ADDR |
         PERF_SAMPLE_CALLCHAIN,
     true},
    {PERF_SAMPLE_IP, true},
    {kBase | PERF_SAMPLE_READ, true},
};

struct Sink : kprof::RecordSink {
  void on_sample(const kprof::Sample& s) override { n += s.callchain.size() + 1; }
  void on_mmap(const kprof::Mmap& m) override { n += m.filename.size(); }
  void on_comm(const kprof::Comm& c) override { n += c.comm.size(); }
  size_t n = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const auto& layout = kLayouts[data[0] % std::size(kLayouts)];
  const uint64_t tail = data[1] | (uint64_t{data[2]} << 8);
  std::span<const uint8_t> rest(data + 3, size - 3);
  Sink sink;
  auto decode = [&](std::span<const uint8_t> rec) {
    try {
      kprof::perfabi::decode_perf_record(rec, layout, sink);
    } catch (const kprof::Error&) {
    }
  };
  decode(rest);  // the input as one record
  size_t ring = 1;
  while (ring * 2 <= rest.size()) ring *= 2;
  if (rest.empty()) return 0;
  // The ring's records as kprof record keeps them, then each decoded.
  auto read = [&](uint64_t head) {
    kprof::perfabi::RingBytes bytes;
    const kprof::perfabi::RingRead r =
        kprof::perfabi::ring_records(rest.first(ring), tail, head, bytes);
    std::vector<uint8_t> all(bytes.first.begin(), bytes.first.end());
    all.insert(all.end(), bytes.second.begin(), bytes.second.end());
    size_t records = 0;
    for (size_t at = 0; at + 8 <= all.size(); ++records) {
      const size_t n = all[at + 6] | (all[at + 7] << 8);
      if (n < 8 || n > all.size() - at) __builtin_trap();  // ring_records gives whole records only
      decode(std::span<const uint8_t>(all).subspan(at, n));
      at += n;
    }
    if (records != r.records) __builtin_trap();
    // Every task on ring 0, and one thread (the tid of the first sample
    // layout's test records, 11): counted without reading past the parts.
    kprof::collector::PeriodDither dither({{-1, 0, -1}, {-1, 0, 11}}, 1'000'000, layout, 1,
                                          [](int, uint64_t) { return 0; });
    dither.saw(0, bytes.first, bytes.second);
    dither.saw(1, bytes.first, bytes.second);  // a ring without targets
    dither.restart_due();
  };
  // Head at every distance up to the ring size exercises wrap and damage paths.
  read(tail + ring);
  read(tail + (tail % (ring + 1)));
  return 0;
}
