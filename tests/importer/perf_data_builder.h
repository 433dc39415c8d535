// perf.data files for the reader's tests: built byte by byte (a file's
// header, attribute section, data section and feature sections laid out as
// perf lays them out, or a pipe-mode stream; tests patch the built bytes to
// make them lie), and read back: by the reader, and by perf itself
// (perf_data_builder.cpp) for the files perf records.
#pragma once

#include <linux/perf_event.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "importer/perf_data.h"
#include "tests/support/cli_run.h"

namespace kprof::importer::test {

// Bytes appended little-endian.
class Bytes {
 public:
  Bytes& u16(uint16_t v) { return raw(&v, 2); }
  Bytes& u32(uint32_t v) { return raw(&v, 4); }
  Bytes& u64(uint64_t v) { return raw(&v, 8); }
  Bytes& raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  Bytes& raw(const std::vector<uint8_t>& v) { return raw(v.data(), v.size()); }
  Bytes& zeros(size_t n) {
    bytes_.insert(bytes_.end(), n, 0);
    return *this;
  }
  // perf_header_string: u32 length (NUL included, padded to `align`), bytes.
  Bytes& header_string(const std::string& s, size_t align = 64) {
    const size_t len = (s.size() + 1 + align - 1) / align * align;
    u32(static_cast<uint32_t>(len));
    raw(s.data(), s.size());
    return zeros(len - s.size());
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

inline void put_u64(std::vector<uint8_t>& b, size_t off, uint64_t v) {
  std::memcpy(&b[off], &v, 8);
}
inline uint64_t get_u64(const std::vector<uint8_t>& b, size_t off) {
  uint64_t v;
  std::memcpy(&v, &b[off], 8);
  return v;
}

// One record: header (size patched), then `body`.
inline std::vector<uint8_t> record(uint32_t type, uint16_t misc, const Bytes& body) {
  Bytes r;
  r.u32(type).u16(misc).u16(static_cast<uint16_t>(8 + body.size())).raw(body.bytes());
  return r.bytes();
}

// The layout the synthetic files use: samples IDENTIFIER, IP, TID, TIME,
// PERIOD; other records a trailer of TID, TIME, IDENTIFIER.
constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

inline std::vector<uint8_t> sample(uint64_t id, uint64_t time, uint64_t ip = 0x401000) {
  return record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                Bytes().u64(id).u64(ip).u32(7).u32(7).u64(time).u64(1000));
}
inline std::vector<uint8_t> comm(uint64_t id, uint64_t time, const std::string& name = "prog") {
  Bytes b;
  b.u32(7).u32(7).raw(name.data(), name.size());
  b.zeros(8 - name.size() % 8);
  b.u32(7).u32(7).u64(time).u64(id);
  return record(PERF_RECORD_COMM, 0, b);
}
inline std::vector<uint8_t> finished_round() {
  return record(68, 0, Bytes());
}

inline perf_event_attr attr(uint32_t type, uint64_t config, uint64_t sample_type = kSampleType) {
  perf_event_attr a{};
  a.type = type;
  a.size = sizeof a;
  a.config = config;
  a.sample_period = 1000;
  a.freq = 1;
  a.sample_type = sample_type;
  a.sample_id_all = 1;
  return a;
}

// A build_id record, as the BUILD_ID feature holds them.
inline std::vector<uint8_t> build_id(uint16_t cpumode, const std::vector<uint8_t>& id,
                                     const std::string& filename, bool size_bit = true) {
  Bytes b;
  b.u32(0xffffffff);  // pid
  uint8_t area[24] = {};
  std::memcpy(area, id.data(), std::min<size_t>(id.size(), 20));
  area[20] = static_cast<uint8_t>(id.size());
  b.raw(area, 24);
  b.raw(filename.data(), filename.size());
  b.zeros(64 - filename.size() % 64);
  return record(67, cpumode | (size_bit ? (1 << 15) : 0), b);
}

struct PerfFile {
  struct Attr {
    std::vector<uint8_t> bytes;  // the perf_event_attr as written
    std::vector<uint64_t> ids;
  };
  std::vector<Attr> attrs;
  size_t attr_size = sizeof(perf_event_attr) + 16;  // one attrs entry
  std::vector<uint8_t> data;
  std::map<int, std::vector<uint8_t>> features;  // bit -> payload

  void add_attr(const perf_event_attr& a, std::vector<uint64_t> ids) {
    std::vector<uint8_t> b(sizeof a);
    std::memcpy(b.data(), &a, sizeof a);
    attrs.push_back({std::move(b), std::move(ids)});
  }
  void add(const std::vector<uint8_t>& rec) { data.insert(data.end(), rec.begin(), rec.end()); }

  // Field offsets in the built file's header.
  static constexpr size_t kAttrSize = 16, kAttrs = 24, kData = 40, kEventTypes = 56, kBits = 72;

  // Header, the attrs' ids, the attrs, the data, the feature table, the
  // feature payloads: perf's order.
  std::vector<uint8_t> build() const {
    Bytes ids;
    std::vector<uint64_t> ids_at;
    const size_t ids_start = 104;
    for (const auto& a : attrs) {
      ids_at.push_back(ids_start + ids.size());
      for (uint64_t id : a.ids) ids.u64(id);
    }
    const size_t attrs_off = ids_start + ids.size();
    Bytes section;
    for (size_t i = 0; i < attrs.size(); ++i) {
      std::vector<uint8_t> entry(attr_size - 16, 0);
      std::memcpy(entry.data(), attrs[i].bytes.data(),
                  std::min(entry.size(), attrs[i].bytes.size()));
      section.raw(entry).u64(ids_at[i]).u64(8 * attrs[i].ids.size());
    }
    const size_t data_off = attrs_off + section.size();
    uint64_t bits[4] = {};
    for (const auto& [bit, payload] : features) bits[bit / 64] |= 1ULL << (bit % 64);
    Bytes h;
    h.raw("PERFILE2", 8).u64(104).u64(attr_size);
    h.u64(attrs_off).u64(section.size());
    h.u64(data_off).u64(data.size());
    h.u64(0).u64(0);
    for (uint64_t b : bits) h.u64(b);
    h.raw(ids.bytes()).raw(section.bytes()).raw(data);
    size_t payload_at = h.size() + 16 * features.size();
    for (const auto& [bit, payload] : features) {
      h.u64(payload_at).u64(payload.size());
      payload_at += payload.size();
    }
    for (const auto& [bit, payload] : features) h.raw(payload);
    return h.bytes();
  }

  // A `perf record -o -` stream: the 16-byte header, then HEADER_ATTR and
  // HEADER_FEATURE records, then the data.
  std::vector<uint8_t> build_pipe() const {
    Bytes s;
    s.raw("PERFILE2", 8).u64(16);
    for (const auto& a : attrs) {
      Bytes body;
      body.raw(a.bytes);
      for (uint64_t id : a.ids) body.u64(id);
      s.raw(record(64, 0, body));
    }
    for (const auto& [bit, payload] : features) {
      Bytes body;
      body.u64(static_cast<uint64_t>(bit)).raw(payload);
      s.raw(record(80, 0, body));
    }
    s.raw(data);
    return s.bytes();
  }
};

// ------------------------------------------------------------------ reading

// What a walk delivered: the records' offsets into the file, their events
// and types, and the status. Checks that every record lies in the file.
struct Walk {
  std::vector<uint64_t> offsets;
  std::vector<size_t> events;
  std::vector<uint32_t> types;
  PerfDataStatus status;
};
Walk walk(const PerfDataReader& r, std::span<const uint8_t> file);

// The reader's error on `bytes` (named "t.data"), "" when there is none.
std::string error_of(const std::vector<uint8_t>& bytes);

// A recording read whole and walked.
struct Read {
  std::vector<uint8_t> bytes;
  std::unique_ptr<PerfDataReader> reader;
  Walk walk;
  uint64_t samples = 0;
  std::map<size_t, uint64_t> samples_by_event;
};
Read read_recording(const std::string& path);

// perf's own reading of a file, run through the shell in `dir`:
// the kernel records (types below 64) perf report delivers, in its order,
// as file offsets (perf report -D);
std::vector<uint64_t> perf_report_order(const std::string& path, bool pipe, const std::string& dir);
// the PERF_RECORD_SAMPLE lines of perf report -D;
uint64_t perf_report_samples(const std::string& path, const std::string& dir);
// perf script's samples per event name;
std::map<std::string, uint64_t> perf_script_events(const std::string& path, const std::string& dir);
// perf buildid-list's lines, "<build id> <file>".
std::set<std::string> perf_buildid_list(const std::string& path, const std::string& dir);

// ------------------------------------------------------------------ perf

// Tests of files perf itself records on this machine, compared with what
// perf reads from them. Skips where sampling is not permitted (or perf is
// not installed); perf failing otherwise fails the test. Each test gets its
// own directory under the test binary's.
class PerfRecorded : public ::testing::Test {
 protected:
  void SetUp() override;
  // kprof_prog_hotcold SECONDS: a user-space loop with a known profile.
  std::string workload(double seconds) const;
  std::string path(const std::string& file) const { return dir_ + "/" + file; }
  kprof::test::CliRun sh(const std::string& command) const;
  // `perf record -q OPTIONS -o FILE -- WHAT`; perf's failure fails the test.
  void record(const std::string& options, const std::string& file, const std::string& what);
  std::vector<uint64_t> perf_order(const std::string& file, bool pipe) const {
    return perf_report_order(path(file), pipe, dir_);
  }
  uint64_t perf_samples(const std::string& file) const {
    return perf_report_samples(path(file), dir_);
  }
  Read read(const std::string& file) const { return read_recording(path(file)); }

  std::string dir_;
};

// The features perf wrote describe this machine.
void expect_this_machine(const PerfDataHeader& h);

}  // namespace kprof::importer::test
