// Perf records built by hand for the perfabi tests: the layout the
// collector asks for, a record builder, and a sink that keeps what it gets.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/model.h"
#include "perfabi/perf_record.h"

namespace kprof::perfabi::testing {

constexpr uint64_t kSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
inline const SampleLayout kLayout{kSampleType, true};
inline const SampleLayout kLayoutCallchain{kSampleType | PERF_SAMPLE_CALLCHAIN, true};

// Builds one perf record: header, fields, then (for non-samples) the
// sample_id trailer of kLayout (pid, tid, time, cpu).
class PerfRecord {
 public:
  PerfRecord(uint32_t type, uint16_t misc = 0) {
    u32(type);
    bytes_.push_back(static_cast<uint8_t>(misc));
    bytes_.push_back(static_cast<uint8_t>(misc >> 8));
    bytes_.push_back(0);  // size, patched by done()
    bytes_.push_back(0);
  }
  PerfRecord& u32(uint32_t v) { return raw(&v, 4); }
  PerfRecord& u64(uint64_t v) { return raw(&v, 8); }
  PerfRecord& str(const std::string& s) {  // NUL-terminated, padded to 8
    raw(s.data(), s.size());
    do bytes_.push_back(0);
    while (bytes_.size() % 8 != 0);
    return *this;
  }
  PerfRecord& trailer(uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu) {
    return u32(pid).u32(tid).u64(time).u32(cpu).u32(0);
  }
  std::vector<uint8_t> done() {
    uint16_t size = static_cast<uint16_t>(bytes_.size());
    std::memcpy(&bytes_[6], &size, 2);
    return bytes_;
  }

 private:
  PerfRecord& raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  std::vector<uint8_t> bytes_;
};

struct Collect : RecordSink {
  void on_sample(const Sample& s) override { samples.push_back(s); }
  void on_mmap(const Mmap& m) override { mmaps.push_back(m); }
  void on_comm(const Comm& c) override { comms.push_back(c); }
  void on_fork(const Fork& f) override { forks.push_back(f); }
  void on_exit(const Fork& f) override { exits.push_back(f); }
  void on_lost(const Lost& l) override { lost.push_back(l); }
  void on_switch(const Switch& w) override { switches.push_back(w); }
  std::vector<Sample> samples;
  std::vector<Switch> switches;
  std::vector<Mmap> mmaps;
  std::vector<Comm> comms;
  std::vector<Fork> forks, exits;
  std::vector<Lost> lost;
};

inline std::vector<uint8_t> sample_record(uint64_t ip, uint64_t time, uint16_t misc) {
  return PerfRecord(PERF_RECORD_SAMPLE, misc)
      .u64(ip)
      .u32(10)
      .u32(11)
      .u64(time)
      .u32(1)
      .u32(0)
      .u64(2000)
      .done();
}

}  // namespace kprof::perfabi::testing
