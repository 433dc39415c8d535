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

// One chunk's records, kept by type and merged by time through `order`.
class Batch : public RecordSink {
 public:
  enum Kind : uint8_t { kSample, kMmap, kComm, kFork, kExit, kLost, kSwitch };
  struct Ref {
    uint64_t time;
    Kind kind;
    uint32_t index;
  };
  void on_sample(const Sample& s) override { add(s.time, kSample, samples_, s); }
  void on_mmap(const Mmap& m) override { add(m.time, kMmap, mmaps_, m); }
  void on_comm(const Comm& c) override { add(c.time, kComm, comms_, c); }
  void on_fork(const Fork& f) override { add(f.time, kFork, forks_, f); }
  void on_exit(const Fork& f) override { add(f.time, kExit, forks_, f); }
  void on_lost(const Lost& l) override { add(l.time, kLost, losts_, l); }
  void on_throttle(uint64_t t) override { throttles_.push_back(t); }
  void on_switch(const Switch& w) override { add(w.time, kSwitch, switches_, w); }

  // Marks the end of one ring's records: in time order already, so sort()
  // only merges these runs.
  void end_run() {
    if (runs_.empty() || runs_.back() != order_.size()) runs_.push_back(order_.size());
  }
  // Orders the records by time, stably (ties keep ring order): each run is
  // sorted if it is not already, then the runs are merged pairwise, in
  // O(n log runs) rather than O(n log n).
  void sort() {
    end_run();
    auto by_time = [](const Ref& a, const Ref& b) { return a.time < b.time; };
    size_t begin = 0;
    for (size_t end : runs_) {
      if (!std::is_sorted(order_.begin() + begin, order_.begin() + end, by_time)) {
        std::stable_sort(order_.begin() + begin, order_.begin() + end, by_time);
      }
      begin = end;
    }
    std::vector<size_t> bounds{0};
    bounds.insert(bounds.end(), runs_.begin(), runs_.end());
    while (bounds.size() > 2) {  // bounds[i]..bounds[i+1] are sorted runs
      std::vector<size_t> merged{0};
      for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
        const size_t lo = bounds[i], mid = bounds[i + 1];
        const size_t hi = i + 2 < bounds.size() ? bounds[i + 2] : mid;
        std::inplace_merge(order_.begin() + lo, order_.begin() + mid, order_.begin() + hi, by_time);
        merged.push_back(hi);
      }
      bounds = std::move(merged);
    }
  }
  void deliver(RecordSink& sink) const {
    for (uint64_t t : throttles_) sink.on_throttle(t);
    for (const Ref& r : order_) {
      switch (r.kind) {
        case kSample:
          sink.on_sample(samples_[r.index]);
          break;
        case kMmap:
          sink.on_mmap(mmaps_[r.index]);
          break;
        case kComm:
          sink.on_comm(comms_[r.index]);
          break;
        case kFork:
          sink.on_fork(forks_[r.index]);
          break;
        case kExit:
          sink.on_exit(forks_[r.index]);
          break;
        case kLost:
          sink.on_lost(losts_[r.index]);
          break;
        case kSwitch:
          sink.on_switch(switches_[r.index]);
          break;
      }
    }
  }

 private:
  template <typename T>
  void add(uint64_t time, Kind kind, std::vector<T>& v, const T& r) {
    order_.push_back({time, kind, static_cast<uint32_t>(v.size())});
    v.push_back(r);
  }
  std::vector<Ref> order_;
  std::vector<Sample> samples_;
  std::vector<Mmap> mmaps_;
  std::vector<Comm> comms_;
  std::vector<Fork> forks_;
  std::vector<Lost> losts_;
  std::vector<Switch> switches_;
  std::vector<uint64_t> throttles_;
  std::vector<size_t> runs_;  // end of each ring's records in order_
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
  if (rec.size() < sizeof(perf_event_header)) return;  // read_ring never gives one
  if (block_ == SIZE_MAX) {
    block_ = buf_.size();
    buf_.resize(buf_.size() + 4);
  }
  buf_.insert(buf_.end(), rec.begin(), rec.end());
  ++records_;
  uint32_t type;
  std::memcpy(&type, rec.data(), sizeof type);
  if (type == PERF_RECORD_SAMPLE) {
    ++samples;
  } else if (type == PERF_RECORD_LOST && rec.size() >= 24) {
    lost += load_u64(rec.data() + 16);  // header, id, lost
  } else if (type == PERF_RECORD_LOST_SAMPLES && rec.size() >= 16) {
    lost += load_u64(rec.data() + 8);  // header, lost
  } else if (type == PERF_RECORD_THROTTLE) {
    ++throttled;
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

void decode_spool(std::span<const uint8_t> payload, RecordSink& sink, uint64_t* damaged) {
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
  Batch batch;
  Sample scratch;
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
      try {
        decode_perf_record(block.first(size), layout, batch, scratch);
      } catch (const Error&) {
        if (damaged) ++*damaged;  // one bad record from the kernel costs that record only
      }
      block = block.subspan(size);
    }
    batch.end_run();
  }
  batch.sort();
  batch.deliver(sink);
}

}  // namespace kprof::perfabi
