// perf.data: the file header (or a pipe-mode stream's header records), the
// attribute section, and the walk over the data section's records in perf's
// order. Feature sections and event names are perf_data_features.cpp.
#include "importer/perf_data.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "core/error.h"
#include "importer/record_order.h"

namespace kprof::importer {

namespace {

constexpr uint64_t kMagicBigEndian = 0x50455246494c4532ULL;  // "2ELIFREP" as read here
constexpr uint64_t kFileHeaderSize = 104;                    // magic .. the 256 feature bits
constexpr uint64_t kFileHeaderNoFeatures = 72;               // perf's older header, without them
constexpr uint64_t kPipeHeaderSize = 16;                     // magic, size
constexpr uint64_t kFileSection = 16;                        // perf_file_section: offset, size
constexpr uint64_t kAttrSizeVer0 = PERF_ATTR_SIZE_VER0;
constexpr uint64_t kFeatureCompressed = 27;

// perf's own record types (tools/lib/perf/include/perf/event.h), written by
// perf record among the kernel's; none is delivered.
enum : uint32_t {
  kHeaderAttr = 64,
  kHeaderTracingData = 66,  // followed by `size` bytes of tracing data
  kHeaderBuildId = 67,
  kFinishedRound = 68,
  kAuxtrace = 71,  // followed by `size` bytes of AUX area data
  kEventUpdate = 78,
  kHeaderFeature = 80,
  kCompressed = 81,
};
constexpr uint64_t kEventUpdateName = 2;  // PERF_EVENT_UPDATE__NAME

const char kCompressedMessage[] =
    "perf.data compressed with 'perf record -z' is not supported yet; record without -z";

uint64_t u64_at(std::span<const uint8_t> b, uint64_t off) {
  uint64_t v;
  std::memcpy(&v, b.data() + off, 8);
  return v;
}
uint32_t u32_at(std::span<const uint8_t> b, uint64_t off) {
  uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}

std::string num(uint64_t v) {
  return std::to_string(v);
}

// The 8 magic bytes, printable: "ELF" bytes become \x7fELF...
std::string shown_magic(std::span<const uint8_t> b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < std::min<size_t>(b.size(), 8); ++i) {
    const uint8_t c = b[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      s += static_cast<char>(c);
    } else {
      s += "\\x";
      s += kDigits[c >> 4];
      s += kDigits[c & 15];
    }
  }
  return s;
}

// One step of a walk over the records in [pos, end) of `bytes`.
struct Step {
  std::span<const uint8_t> rec;  // empty at the end, or on damage (damage_at says what)
  uint32_t type = 0;
  uint64_t next = 0;  // where the next record starts (after any payload)
};

// Two of perf's records carry a payload after themselves, not counted in
// their size.
uint64_t payload_after(std::span<const uint8_t> bytes, uint64_t pos, uint32_t type, uint16_t size) {
  if (type == kHeaderTracingData && size >= 12) return u32_at(bytes, pos + 8);
  if (type == kAuxtrace && size >= 16) return u64_at(bytes, pos + 8);
  return 0;
}

// Runs once per record: no message is built here (damage_at does that).
Step next_record(std::span<const uint8_t> bytes, uint64_t pos, uint64_t end) {
  Step s;
  if (pos >= end || end - pos < sizeof(perf_event_header)) return s;
  s.type = u32_at(bytes, pos);
  uint16_t size;
  std::memcpy(&size, bytes.data() + pos + 6, 2);
  if (size < sizeof(perf_event_header) || size > end - pos) return s;
  const uint64_t payload = payload_after(bytes, pos, s.type, size);
  if (payload > end - pos - size) return s;
  s.rec = bytes.subspan(pos, size);
  s.next = pos + size + payload;
  return s;
}

// Why next_record found no record at `pos`: "" at the end of the records.
std::string damage_at(std::span<const uint8_t> bytes, uint64_t pos, uint64_t end) {
  if (pos >= end) return "";
  auto past = [&] {
    return end == bytes.size() ? std::string("the end of the file")
                               : "the end of the data section (offset " + num(end) + ")";
  };
  const std::string at = "record at offset " + num(pos);
  if (end - pos < sizeof(perf_event_header)) return at + " runs past " + past();
  uint16_t size;
  std::memcpy(&size, bytes.data() + pos + 6, 2);
  if (size < sizeof(perf_event_header)) {
    return at + " has an impossible size of " + num(size) + " bytes";
  }
  if (size > end - pos) return at + " (" + num(size) + " bytes) runs past " + past();
  const uint64_t payload = payload_after(bytes, pos, u32_at(bytes, pos), size);
  return at + " is followed by " + num(payload) + " bytes of data that run past " + past();
}

std::string section_text(uint64_t off, uint64_t size) {
  return num(off) + "+" + num(size);
}

}  // namespace

// ------------------------------------------------------------------ header

PerfDataReader::PerfDataReader(std::span<const uint8_t> bytes, std::string name)
    : bytes_(bytes), name_(std::move(name)) {
  if (bytes_.size() < 8 || std::memcmp(bytes_.data(), "PERFILE2", 8) != 0) {
    if (bytes_.size() >= 8 && u64_at(bytes_, 0) == kMagicBigEndian)
      fail("big-endian perf.data is not supported");
    if (bytes_.size() >= 8 && std::memcmp(bytes_.data(), "PERFFILE", 8) == 0)
      fail("perf.data version 1 (magic PERFFILE) is not supported");
    fail("not a perf.data file (magic '" + shown_magic(bytes_) + "', expected 'PERFILE2')");
  }
  if (bytes_.size() < 16) fail("perf.data header is cut short (" + num(bytes_.size()) + " bytes)");
  const uint64_t size = u64_at(bytes_, 8);
  if (size == kPipeHeaderSize) {
    read_pipe_header();
  } else if (size == kFileHeaderSize || size == kFileHeaderNoFeatures) {
    if (bytes_.size() < size)
      fail("perf.data header of " + num(size) + " bytes is cut short (" + num(bytes_.size()) +
           " bytes)");
    read_file_header();
  } else {
    fail("perf.data header size " + num(size) + " is not one perf writes (" + num(kFileHeaderSize) +
         ", or " + num(kPipeHeaderSize) + " for a pipe)");
  }
  event_by_id_.clear();
  for (size_t i = 0; i < header_.events.size(); ++i)
    for (uint64_t id : header_.events[i].ids) event_by_id_.emplace_back(id, i);
  // The first event holding an id wins, as in perf's id hash.
  std::stable_sort(event_by_id_.begin(), event_by_id_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  event_by_id_.erase(std::unique(event_by_id_.begin(), event_by_id_.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; }),
                     event_by_id_.end());
  name_events();
  for (const PerfEvent& e : header_.events) {
    layouts_.push_back(e.layout());
    time_at_.push_back(perfabi::time_position(layouts_.back()));
  }
}

void PerfDataReader::fail(const std::string& what) const {
  throw Error(name_ + ": " + what);
}

void PerfDataReader::read_file_header() {
  const uint64_t file = bytes_.size();
  const uint64_t attr_size = u64_at(bytes_, 16);
  const uint64_t attrs_off = u64_at(bytes_, 24), attrs_size = u64_at(bytes_, 32);
  const uint64_t data_off = u64_at(bytes_, 40), data_size = u64_at(bytes_, 48);
  const uint64_t types_off = u64_at(bytes_, 56), types_size = u64_at(bytes_, 64);
  auto check = [&](const char* what, uint64_t off, uint64_t size) {
    if (off > file || size > file - off)
      fail(std::string(what) + " section at " + section_text(off, size) +
           " runs past the end of the file (" + num(file) + " bytes)");
  };
  check("attribute", attrs_off, attrs_size);
  check("event type", types_off, types_size);
  header_.data_offset = data_off;
  header_.data_size = data_size;
  if (data_off > file)
    fail("data section at " + section_text(data_off, data_size) +
         " starts past the end of the file (" + num(file) + " bytes)");
  data_begin_ = data_off;
  if (data_size == 0) {
    cut_short_ = true;  // perf writes the data size at exit only
    data_end_ = file;
  } else if (data_size > file - data_off) {
    data_end_ = file;
    data_problem_ = "data section at " + section_text(data_off, data_size) +
                    " runs past the end of the file (" + num(file) + " bytes)";
  } else {
    data_end_ = data_off + data_size;
  }

  // Attributes: perf_event_attr (attr.size bytes of it, in an entry sized
  // for the writer's struct), then the (offset, size) of its u64 ids.
  if (attrs_size > 0) {
    if (attr_size < kAttrSizeVer0 + kFileSection)
      fail("attribute entry size " + num(attr_size) + " is too small (at least " +
           num(kAttrSizeVer0 + kFileSection) + ")");
    if (attrs_size % attr_size != 0)
      fail("attribute section at " + section_text(attrs_off, attrs_size) +
           " is truncated: not a whole number of " + num(attr_size) + "-byte entries");
  }
  const uint64_t nr_attrs = attrs_size == 0 ? 0 : attrs_size / attr_size;
  for (uint64_t i = 0; i < nr_attrs; ++i) {
    const auto entry = bytes_.subspan(attrs_off + i * attr_size, attr_size);
    const uint64_t ids_off = u64_at(entry, attr_size - kFileSection);
    const uint64_t ids_size = u64_at(entry, attr_size - kFileSection + 8);
    if (ids_off > file || ids_size > file - ids_off)
      fail("ids of attribute " + num(i) + " at " + section_text(ids_off, ids_size) +
           " run past the end of the file (" + num(file) + " bytes)");
    std::vector<uint64_t> ids(ids_size / 8);
    for (size_t k = 0; k < ids.size(); ++k) ids[k] = u64_at(bytes_, ids_off + 8 * k);
    add_event(entry.first(attr_size - kFileSection), std::move(ids));
  }

  if (u64_at(bytes_, 8) == kFileHeaderNoFeatures) return;
  uint64_t bits[4];
  for (int i = 0; i < 4; ++i) bits[i] = u64_at(bytes_, 72 + 8 * i);
  if (bits[kFeatureCompressed / 64] & (1ULL << (kFeatureCompressed % 64))) fail(kCompressedMessage);
  // A file perf did not finish has the feature bits but not the sections.
  if (cut_short_) return;
  read_features(bits, data_off + data_size);
}

void PerfDataReader::add_event(std::span<const uint8_t> attr, std::vector<uint64_t> ids) {
  // attr.size may be smaller (an older perf) or larger (a newer one) than
  // this build's struct: read what both know, the rest stays zero.
  uint64_t size = u32_at(attr, 4);
  if (size == 0) size = kAttrSizeVer0;
  perf_event_attr a{};
  std::memcpy(&a, attr.data(), std::min<uint64_t>({size, attr.size(), sizeof a}));
  PerfEvent e;
  e.type = a.type;
  e.config = a.config;
  e.freq = a.freq;
  e.sample = a.sample_period;
  e.sample_type = a.sample_type;
  e.read_format = a.read_format;
  e.sample_id_all = a.sample_id_all;
  e.exclude_kernel = a.exclude_kernel;
  e.exclude_user = a.exclude_user;
  e.regs_user = a.sample_regs_user;
  e.stack_user = a.sample_stack_user;
  e.ids = std::move(ids);
  header_.events.push_back(std::move(e));
}

// A pipe-mode stream: no sections; what a file's header holds arrives as
// perf's records. The whole stream is in memory, so one pass collects them
// before any record is delivered. Damage ends the pass quietly: the walk in
// for_each_record reports it.
void PerfDataReader::read_pipe_header() {
  header_.pipe = true;
  header_.data_offset = data_begin_ = kPipeHeaderSize;
  header_.data_size = bytes_.size() - kPipeHeaderSize;
  data_end_ = bytes_.size();
  for (uint64_t pos = data_begin_;;) {
    const Step s = next_record(bytes_, pos, data_end_);
    if (s.rec.empty()) break;
    const auto body = s.rec.subspan(sizeof(perf_event_header));
    switch (s.type) {
      case kHeaderAttr: {
        // perf_event_attr of attr.size bytes, then u64 ids to the end.
        uint64_t size = body.size() >= 8 ? u32_at(body, 4) : 0;
        if (size == 0) size = kAttrSizeVer0;
        if (body.size() < size || size < kAttrSizeVer0) {
          header_.notices.push_back("attribute record at offset " + num(pos) + " of " +
                                    num(s.rec.size()) + " bytes is too short; skipped");
          break;
        }
        std::vector<uint64_t> ids((body.size() - size) / 8);
        for (size_t k = 0; k < ids.size(); ++k) ids[k] = u64_at(body, size + 8 * k);
        add_event(body.first(size), std::move(ids));
        break;
      }
      case kHeaderFeature:
        if (body.size() < 8) break;
        if (u64_at(body, 0) == kFeatureCompressed) fail(kCompressedMessage);
        // An empty one marks the end of the features (HEADER_LAST_FEATURE).
        if (body.size() > 8) read_feature(u64_at(body, 0), body.subspan(8), pos + 16);
        break;
      case kHeaderBuildId:  // one entry of the BUILD_ID feature
        read_feature(2, s.rec, pos);
        break;
      case kEventUpdate:
        if (body.size() > 16 && u64_at(body, 0) == kEventUpdateName) {
          const auto text = body.subspan(16);
          const void* nul = std::memchr(text.data(), 0, text.size());
          const size_t n = nul ? static_cast<const uint8_t*>(nul) - text.data() : text.size();
          if (n > 0)
            pending_names_.push_back(
                {{u64_at(body, 8)}, std::string(reinterpret_cast<const char*>(text.data()), n)});
        }
        break;
      case kCompressed:
        fail(kCompressedMessage);
    }
    pos = s.next;
  }
}

// ------------------------------------------------------------------ records

size_t PerfDataReader::event_of(std::span<const uint8_t> rec) const {
  const auto& events = header_.events;
  if (events.size() <= 1) return events.empty() ? SIZE_MAX : 0;
  // As perf's evlist__event2evsel: the id's position comes from the first
  // event (perf requires every event to agree); id 0 is a record perf
  // synthesized, which goes to the first event.
  const PerfEvent& first = events[0];
  if (u32_at(rec, 0) != PERF_RECORD_SAMPLE && !first.sample_id_all) return 0;
  const std::optional<uint64_t> id = perfabi::record_event_id(rec, layouts_[0]);
  if (!id) return SIZE_MAX;
  if (*id == 0) return 0;
  auto it = std::lower_bound(event_by_id_.begin(), event_by_id_.end(), *id,
                             [](const auto& e, uint64_t v) { return e.first < v; });
  return it != event_by_id_.end() && it->first == *id ? it->second : SIZE_MAX;
}

namespace {

// Records delivered in one batch at most: 64 KiB of Queued, below malloc's
// mmap threshold, so the few batches in flight are allocated once and reused.
constexpr size_t kBatch = 2048;
// From this many bytes of records, they are scanned on a second thread, and
// so many batches may wait for delivery.
constexpr uint64_t kScanAsideFrom = 8u << 20;
constexpr size_t kBatchesAhead = 8;

}  // namespace

// perf's order (util/ordered-events.c, as perf report uses it): a record
// with a time (not 0 or ~0) is queued; one without is delivered as it is
// read. perf record writes a FINISHED_ROUND after each pass over its per-CPU
// buffers; on one, the queued records up to the largest time queued by the
// previous round marker are delivered in time order (ties in file order):
// a buffer's records older than that were all written by the end of the
// round after. At the end of the data everything left is delivered, sorted.
void PerfDataReader::scan_records(const std::function<void(std::vector<Queued>&)>& emit,
                                  ScanEnd& out, std::atomic<uint64_t>* at) const {
  std::vector<Queued> queue;    // records with a time, waiting for their round
  std::vector<Queued> scratch;  // merge_runs' room
  size_t sorted = 0;            // queue[0, sorted) is in order
  std::vector<Queued> ready;    // in delivery order, not yet emitted
  uint64_t max_time = 0, next_flush = 0;
  ready.reserve(kBatch);
  auto emit_ready = [&] {
    if (!ready.empty()) emit(ready);
  };
  auto put = [&](const Queued& q) {
    ready.push_back(q);
    if (ready.size() == kBatch) emit(ready);
  };
  auto flush = [&](uint64_t limit) {
    merge_runs(queue, sorted, scratch);
    // What is left waits for the next round: usually the newer, smaller part.
    const auto n = std::partition_point(queue.begin(), queue.end(),
                                        [limit](const Queued& q) { return q.time <= limit; });
    for (auto q = queue.begin(); q != n; ++q) put(*q);
    queue.erase(queue.begin(), n);
    sorted = queue.size();
    emit_ready();
  };

  uint64_t pos = data_begin_;
  for (;;) {
    const Step s = next_record(bytes_, pos, data_end_);
    if (s.rec.empty()) {
      out.problem = damage_at(bytes_, pos, data_end_);
      break;
    }
    if (at != nullptr) at->store(pos, std::memory_order_relaxed);
    if (s.type >= 64) {  // perf's own records
      if (s.type == kCompressed) fail(kCompressedMessage);
      // perf's OE_FLUSH__ROUND; an empty queue leaves the limit as it was.
      if (s.type == kFinishedRound && !queue.empty()) {
        if (next_flush != 0) flush(next_flush);
        next_flush = max_time;
      }
    } else {
      const size_t event = event_of(s.rec);
      std::optional<uint64_t> time;
      if (event < header_.events.size()) time = perfabi::record_time_at(s.rec, time_at_[event]);
      if (!time || *time == 0 || *time == ~0ULL) {
        put({0, pos, s.rec.size(), event});
      } else {
        // perf's max_timestamp: the time of the newest record at the tail.
        max_time = queue.empty() ? *time : std::max(max_time, *time);
        queue.push_back({*time, pos, s.rec.size(), event});
      }
    }
    pos = s.next;
  }
  flush(~0ULL);
  out.pos = pos;
}

// perf's order (util/ordered-events.c, as perf report uses it): a record
// with a time (not 0 or ~0) is queued; one without is delivered as it is
// read. perf record writes a FINISHED_ROUND after each pass over its per-CPU
// buffers; on one, the queued records up to the largest time queued by the
// previous round marker are delivered in time order (ties in file order):
// a buffer's records older than that were all written by the end of the
// round after. At the end of the data everything left is delivered, sorted.
//
// A large data section is scanned and ordered on a second thread while this
// one delivers what is ordered already: the scan is the first to touch the
// file's pages, which costs as much as decoding them.
PerfDataStatus PerfDataReader::for_each_record(
    const std::function<void(std::span<const uint8_t> record, size_t event)>& fn) const {
  PerfDataStatus status;
  status.cut_short = cut_short_;
  status.data_bytes = data_end_ - data_begin_;
  auto deliver = [&](const std::vector<Queued>& batch) {
    for (const Queued& q : batch) {
      fn(bytes_.subspan(q.offset, q.size), q.event);
      ++status.records;
    }
  };
  ScanEnd end;
  if (status.data_bytes < kScanAsideFrom) {
    scan_records(
        [&](std::vector<Queued>& batch) {
          deliver(batch);
          batch.clear();
        },
        end);
  } else {
    std::atomic<uint64_t> scanned{data_begin_};
    std::atomic<bool> stop_touching{false};
    std::thread toucher([&] {
      touch_pages_backwards(bytes_.subspan(data_begin_, data_end_ - data_begin_), data_begin_,
                            scanned, stop_touching);
    });
    const StopAndJoin toucher_joined{stop_touching, toucher};
    BatchQueue<std::vector<Queued>> batches(kBatchesAhead);
    std::exception_ptr scan_error;
    std::thread scanner([&] {
      try {
        scan_records(
            [&](std::vector<Queued>& b) {
              batches.push(std::move(b));
              b = batches.spare();
              b.reserve(kBatch);
            },
            end, &scanned);
      } catch (...) {
        scan_error = std::current_exception();
      }
      batches.close();
    });
    try {
      while (std::optional<std::vector<Queued>> b = batches.pop()) {
        deliver(*b);
        batches.recycle(std::move(*b));
      }
    } catch (...) {
      batches.cancel();
      scanner.join();
      throw;
    }
    scanner.join();
    if (scan_error) std::rethrow_exception(scan_error);
  }
  status.bytes_read = end.pos - data_begin_;
  status.problem = data_problem_;
  if (!end.problem.empty()) status.problem += (status.problem.empty() ? "" : "; ") + end.problem;
  return status;
}

bool is_perf_data(std::span<const uint8_t> head) {
  return head.size() >= 8 && std::memcmp(head.data(), "PERFILE2", 8) == 0;
}

}  // namespace kprof::importer
