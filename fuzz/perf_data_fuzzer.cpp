// Fuzzes the perf.data reader: header, attributes, features, the record walk
// and its ordering, then every delivered record decoded with its event's
// layout. Checks the reader's promises: records lie inside the input and
// start with their own size, each record is delivered once, event indexes
// are valid or SIZE_MAX, and the status adds up.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>

#include "core/error.h"
#include "core/model.h"
#include "importer/perf_data.h"
#include "perfabi/perf_record.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// Touches what it is given, so the sanitizers see every field read.
struct Sink : kprof::RecordSink {
  void on_sample(const kprof::Sample& s) override {
    n += s.ip + s.callchain.size();
    check(s.kernel_frames <= s.callchain.size());
  }
  void on_mmap(const kprof::Mmap& m) override { n += m.filename.size() + m.build_id.size(); }
  void on_comm(const kprof::Comm& c) override { n += c.comm.size(); }
  void on_fork(const kprof::Fork& f) override { n += f.pid; }
  void on_exit(const kprof::Fork& f) override { n += f.pid; }
  void on_lost(const kprof::Lost& l) override { n += l.count; }
  uint64_t n = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  try {
    kprof::importer::PerfDataReader reader(in, "fuzz");
    const auto& h = reader.header();
    check(kprof::importer::is_perf_data(in));
    for (const auto& b : h.build_ids) check(b.build_id.size() <= 40);
    Sink sink;
    std::set<const uint8_t*> seen;
    const auto status = reader.for_each_record([&](std::span<const uint8_t> rec, size_t event) {
      check(rec.data() >= data && rec.size() <= size &&
            static_cast<size_t>(rec.data() - data) <= size - rec.size());
      check(rec.size() >= 8);
      uint16_t rec_size;
      std::memcpy(&rec_size, rec.data() + 6, 2);
      check(rec_size == rec.size());
      uint32_t type;
      std::memcpy(&type, rec.data(), 4);
      check(type < 64);  // perf's own records are consumed
      check(seen.insert(rec.data()).second);
      check(event < h.events.size() || event == SIZE_MAX);
      if (event == SIZE_MAX) return;
      try {
        kprof::perfabi::decode_perf_record(rec, h.events[event].layout(), sink);
      } catch (const kprof::Error&) {
      }
    });
    check(status.records == seen.size());
    check(status.bytes_read <= status.data_bytes);
    check(status.data_bytes <= size);
    check(status.cut_short == (!h.pipe && h.data_size == 0));
  } catch (const kprof::Error&) {
  }
  return 0;
}
