#include "core/thread_counts.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "core/bytes.h"

namespace kprof {
namespace {

uint32_t u32_varint(ByteReader& r, std::string_view what) {
  const uint64_t v = r.varint();
  if (v > UINT32_MAX) r.fail(std::string(what) + " beyond 32 bits");
  return static_cast<uint32_t>(v);
}

}  // namespace

size_t ThreadTally::KeyHash::operator()(const Key& k) const noexcept {
  uint64_t h = (uint64_t{k.thread} << 40) ^ (uint64_t{k.cpu} << 28) ^ k.leaf;
  h ^= h >> 29;  // splitmix64's finaliser: the map indexes by the low bits
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

uint32_t ThreadTally::thread_of(const Sample& s) {
  const uint32_t slot = current_.slot(s.tid);
  uint32_t& index = current_.entry(slot).second.index;
  if (index < counts_.threads.size() && counts_.threads[index].pid == s.pid) [[likely]]
    return index;
  // A thread's first sample, or its first under a new name or process.
  auto [it, fresh] = thread_ids_.try_emplace({s.tid, s.pid, std::string(names_.of(s.tid))},
                                             static_cast<uint32_t>(counts_.threads.size()));
  if (fresh) counts_.threads.push_back({s.tid, s.pid, std::get<2>(it->first)});
  index = it->second;
  return index;
}

void ThreadTally::add(const Sample& s, uint32_t leaf, uint64_t period) {
  const Key key{thread_of(s), s.cpu, leaf};
  const uint32_t row = row_ids_.slot(key);
  if (row == counts_.rows.size()) counts_.rows.push_back({key.thread, key.cpu, key.leaf, 0, 0});
  ++counts_.rows[row].samples;
  counts_.rows[row].period += period;
}

std::vector<uint32_t> flat_order(const Histogram& flat) {
  static const std::string kNone;
  const auto image = [&](const FunctionCount& r) -> const std::string& {
    return r.image < flat.images.size() ? flat.images[r.image].name : kNone;
  };
  std::vector<uint32_t> order(flat.rows.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const FunctionCount &x = flat.rows[a], &y = flat.rows[b];
    return std::tie(image(x), x.function, x.mode, a) < std::tie(image(y), y.function, y.mode, b);
  });
  return order;
}

std::optional<std::vector<uint32_t>> ThreadCounts::rows_of(const Histogram& flat) const {
  std::vector<uint32_t> order = flat_order(flat);
  std::vector<uint64_t> sums(order.size());
  for (const ThreadCpuRow& r : rows) {
    if (r.thread >= threads.size() || r.leaf >= sums.size()) return std::nullopt;
    sums[r.leaf] += r.samples;
  }
  for (size_t i = 0; i < sums.size(); ++i) {
    if (sums[i] != flat.rows[order[i]].samples) return std::nullopt;
  }
  return order;
}

std::vector<uint8_t> encode_thread_counts(const ThreadCounts& t) {
  FieldWriter f;
  ByteWriter& threads = f.field();
  threads.varint(t.threads.size());
  for (const CountedThread& th : t.threads) {
    threads.varint(th.tid);
    threads.varint(th.pid);
    threads.str(th.name);
  }
  ByteWriter& rows = f.field();
  rows.varint(t.rows.size());
  for (const ThreadCpuRow& r : t.rows) {
    rows.varint(r.thread);
    rows.varint(r.cpu);
    rows.varint(r.leaf);
    rows.varint(r.samples);
    rows.varint(r.period);
  }
  return f.take();
}

ThreadCounts decode_thread_counts(std::span<const uint8_t> data) {
  ThreadCounts t;
  FieldReader f(data, "profile chunk 'thread counts'");
  if (f.next()) {
    const uint64_t n = f.r.count(3);  // tid, pid, name length
    t.threads.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      CountedThread th;
      th.tid = u32_varint(f.r, "a thread id");
      th.pid = u32_varint(f.r, "a process id");
      th.name = f.r.str();
      t.threads.push_back(std::move(th));
    }
  }
  if (f.next()) {
    const uint64_t n = f.r.count(5);
    t.rows.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      ThreadCpuRow r;
      r.thread = u32_varint(f.r, "a thread index");
      if (r.thread >= t.threads.size()) f.r.fail("a row of a thread not listed");
      r.cpu = u32_varint(f.r, "a CPU");
      r.leaf = u32_varint(f.r, "a leaf index");
      r.samples = f.r.varint();
      r.period = f.r.varint();
      t.rows.push_back(r);
    }
  }
  return t;
}

}  // namespace kprof
