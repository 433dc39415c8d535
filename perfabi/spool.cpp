#include "perfabi/spool.h"

#include <algorithm>
#include <cstring>

#include "core/bytes.h"
#include "core/error.h"

namespace kprof::perfabi {

namespace {

uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Where a record lies in the payload, and the time its delivery carries:
// what decode_perf_record puts in the record it gives (a fork's or exit's
// own time; every other record's from its sample fields or sample_id
// trailer; 0 where the layout carries none).
struct Ref {
  uint64_t time;
  uint64_t offset;
};

uint64_t delivery_time(std::span<const uint8_t> rec, uint32_t type, const TimePosition& at) {
  if (type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) {
    constexpr size_t kTime = sizeof(perf_event_header) + 16;  // after pid, ppid, tid, ptid
    return rec.size() >= kTime + 8 ? load_u64(rec.data() + kTime) : 0;
  }
  return record_time_at(rec, at).value_or(0);
}

// Orders one chunk's refs by time, stably (ties keep ring order): `runs`
// end each ring's refs, already in time order as the ring wrote them, so
// each is sorted only if it is not, then the runs are merged pairwise, in
// O(n log runs) rather than O(n log n).
void merge_runs(std::vector<Ref>& order, const std::vector<size_t>& runs) {
  auto by_time = [](const Ref& a, const Ref& b) { return a.time < b.time; };
  size_t begin = 0;
  for (size_t end : runs) {
    if (!std::is_sorted(order.begin() + begin, order.begin() + end, by_time)) {
      std::stable_sort(order.begin() + begin, order.begin() + end, by_time);
    }
    begin = end;
  }
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), runs.begin(), runs.end());
  while (bounds.size() > 2) {  // bounds[i]..bounds[i+1] are sorted runs
    std::vector<size_t> merged{0};
    for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
      const size_t lo = bounds[i], mid = bounds[i + 1];
      const size_t hi = i + 2 < bounds.size() ? bounds[i + 2] : mid;
      std::inplace_merge(order.begin() + lo, order.begin() + mid, order.begin() + hi, by_time);
      merged.push_back(hi);
    }
    bounds = std::move(merged);
  }
}

// Passes records on to `to`, saying whether the one being decoded reached
// it: an error after that is the sink's own, not the record's damage.
class Forward : public RecordSink {
 public:
  explicit Forward(RecordSink& to) : to_(to) {}
  bool reached = false;
  void on_sample(const Sample& s) override {
    reached = true;
    to_.on_sample(s);
  }
  void on_mmap(const Mmap& m) override {
    reached = true;
    to_.on_mmap(m);
  }
  void on_comm(const Comm& c) override {
    reached = true;
    to_.on_comm(c);
  }
  void on_fork(const Fork& f) override {
    reached = true;
    to_.on_fork(f);
  }
  void on_exit(const Fork& f) override {
    reached = true;
    to_.on_exit(f);
  }
  void on_lost(const Lost& l) override {
    reached = true;
    to_.on_lost(l);
  }
  void on_throttle(uint64_t t) override {
    reached = true;
    to_.on_throttle(t);
  }
  void on_switch(const Switch& w) override {
    reached = true;
    to_.on_switch(w);
  }

 private:
  RecordSink& to_;
};

}  // namespace

void Spool::start() {
  buf_.clear();
  ByteWriter w;
  const bool kinds = !layout_.kinds.empty();
  const bool regs = layout_.regs_user != 0;
  w.u64(layout_.sample_type | (kinds ? kLayoutHasKinds : 0) | (regs ? kLayoutHasRegs : 0));
  w.u8(layout_.sample_id_all ? 1 : 0);
  w.u64(layout_.read_format);
  if (kinds) {
    w.u32(static_cast<uint32_t>(layout_.kinds.size()));
    for (const EventId& e : layout_.kinds) {
      w.u64(e.id);
      w.u8(static_cast<uint8_t>(e.kind));
      if (e.kind == SampleKind::Event) w.u32(e.event);
    }
    w.u32(layout_.wakee_offset);
  }
  if (regs) w.u64(layout_.regs_user);
  buf_ = w.take();
  records_ = 0;
  block_ = SIZE_MAX;
}

void Spool::add(std::span<const uint8_t> rec) {
  if (rec.size() < sizeof(perf_event_header)) return;  // ring_records never gives one
  add(RingBytes{rec, {}});
}

void Spool::add(const RingBytes& bytes) {
  if (bytes.first.empty() && bytes.second.empty()) return;
  if (block_ == SIZE_MAX) {
    block_ = buf_.size();
    buf_.resize(buf_.size() + 4);
  }
  size_t at = buf_.size();
  buf_.insert(buf_.end(), bytes.first.begin(), bytes.first.end());
  buf_.insert(buf_.end(), bytes.second.begin(), bytes.second.end());
  // Counted from the headers of the bytes just copied (whole records: their
  // sizes were checked by ring_records).
  while (buf_.size() - at >= sizeof(perf_event_header)) {
    const uint8_t* rec = buf_.data() + at;
    uint32_t type;
    uint16_t size;
    std::memcpy(&type, rec, sizeof type);
    std::memcpy(&size, rec + 6, sizeof size);
    if (size < sizeof(perf_event_header) || size > buf_.size() - at) break;
    ++records_;
    if (type == PERF_RECORD_SAMPLE) {
      ++samples;
    } else if (type == PERF_RECORD_LOST && size >= 24) {
      lost += load_u64(rec + 16);  // header, id, lost
    } else if (type == PERF_RECORD_LOST_SAMPLES && size >= 16) {
      lost += load_u64(rec + 8);  // header, lost
    } else if (type == PERF_RECORD_THROTTLE) {
      ++throttled;
    }
    at += size;
  }
}

void Spool::end_block() {
  if (block_ == SIZE_MAX) return;
  const uint32_t n = static_cast<uint32_t>(buf_.size() - block_ - 4);
  std::memcpy(buf_.data() + block_, &n, sizeof n);  // little-endian hosts (x86-64, arm64)
  block_ = SIZE_MAX;
}

std::vector<uint8_t> Spool::take() {
  end_block();
  std::vector<uint8_t> out = std::move(buf_);
  start();
  return out;
}

void decode_spool(std::span<const uint8_t> payload, RecordSink& sink, uint64_t* damaged,
                  SpoolRecords which) {
  ByteReader r(payload, "profile chunk 'perf-records'");
  SampleLayout layout;
  layout.sample_type = r.u64();
  layout.sample_id_all = r.u8() != 0;
  layout.read_format = r.u64();
  if (layout.sample_type & kLayoutHasKinds) {
    layout.sample_type &= ~kLayoutHasKinds;
    const uint32_t n = r.u32();
    if (n > r.left() / 9) r.fail("event table of " + std::to_string(n) + " entries");
    for (uint32_t i = 0; i < n; ++i) {
      EventId e;
      e.id = r.u64();
      const uint8_t kind = r.u8();
      if (kind > static_cast<uint8_t>(SampleKind::Event)) r.fail("unknown sample kind");
      e.kind = static_cast<SampleKind>(kind);
      if (e.kind == SampleKind::Event) {
        e.event = r.u32();
        if (e.event == 0) r.fail("event sample of event 0 (the first is not stored so)");
      }
      layout.kinds.push_back(e);
    }
    layout.wakee_offset = r.u32();
  }
  if (layout.sample_type & kLayoutHasRegs) {
    layout.sample_type &= ~kLayoutHasRegs;
    layout.regs_user = r.u64();
  }
  // First where each record lies and when (no decoding, no copies), then
  // each decoded in time order straight into the sink through one scratch
  // Sample. Throttles come first, as they always have.
  const TimePosition at = time_position(layout);
  // kKept: the ids of the samples a Records chunk drops (sorted); an id's
  // first entry decides its kind, as in decoding.
  std::vector<uint64_t> dropped;
  if (which == SpoolRecords::kKept && (layout.sample_type & PERF_SAMPLE_IDENTIFIER)) {
    for (auto e = layout.kinds.begin(); e != layout.kinds.end(); ++e) {
      const bool first = std::none_of(layout.kinds.begin(), e,
                                      [&](const EventId& before) { return before.id == e->id; });
      if (first && (e->kind == SampleKind::SwitchOut || e->kind == SampleKind::Wakeup)) {
        dropped.push_back(e->id);
      }
    }
    std::sort(dropped.begin(), dropped.end());
  }
  auto kept = [&](std::span<const uint8_t> rec, uint32_t type) {
    if (which == SpoolRecords::kAll) return true;
    if (type == PERF_RECORD_SWITCH || type == PERF_RECORD_SWITCH_CPU_WIDE) return false;
    if (type != PERF_RECORD_SAMPLE || dropped.empty() || rec.size() < 16) return true;
    return !std::binary_search(dropped.begin(), dropped.end(), load_u64(rec.data() + 8));
  };
  std::vector<Ref> order;
  std::vector<uint64_t> throttles;
  std::vector<size_t> runs;  // end of each ring's refs in order
  order.reserve(payload.size() / 64);
  while (!r.done()) {
    const uint32_t n = r.u32();
    if (n > r.left()) r.fail("block of " + std::to_string(n) + " bytes is longer than the chunk");
    std::span<const uint8_t> block = r.raw(n);
    while (!block.empty()) {
      if (block.size() < sizeof(perf_event_header)) r.fail("truncated perf record header");
      uint16_t size;
      std::memcpy(&size, block.data() + 6, sizeof size);
      if (size < sizeof(perf_event_header) || size > block.size()) {
        r.fail("perf record of " + std::to_string(size) + " bytes does not fit its block");
      }
      uint32_t type;
      std::memcpy(&type, block.data(), sizeof type);
      const auto offset = static_cast<uint64_t>(block.data() - payload.data());
      if (type == PERF_RECORD_THROTTLE || type == PERF_RECORD_UNTHROTTLE) {
        throttles.push_back(offset);
      } else if (kept(block.first(size), type)) {
        order.push_back({delivery_time(block.first(size), type, at), offset});
      }
      block = block.subspan(size);
    }
    if (runs.empty() || runs.back() != order.size()) runs.push_back(order.size());
  }
  merge_runs(order, runs);

  Forward forward(sink);
  Sample scratch;
  auto decode_at = [&](uint64_t offset) {
    uint16_t size;
    std::memcpy(&size, payload.data() + offset + 6, sizeof size);
    forward.reached = false;
    try {
      decode_perf_record(payload.subspan(offset, size), layout, forward, scratch);
    } catch (const Error&) {
      if (forward.reached) throw;
      if (damaged) ++*damaged;  // one bad record from the kernel costs that record only
    }
  };
  for (uint64_t offset : throttles) decode_at(offset);
  for (const Ref& ref : order) decode_at(ref.offset);
}

}  // namespace kprof::perfabi
