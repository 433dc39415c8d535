// What a walk over perf.data's records in perf's order needs beyond the
// format (importer/perf_data.cpp): a bounded queue of batches between the
// scanning thread and the delivering one, with spent batches handed back;
// a merge of ascending runs through a kept scratch vector; and a toucher
// that reads each page of a mapping once ahead of the scan. Generic: they
// know nothing of perf records.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

namespace kprof::importer {

// Batches handed from the scanning thread to the delivering one, at most
// `limit` waiting (so a slow reader holds the scanner back, not memory).
// close(): no more will come; cancel(): the reader stopped, drop the rest
// (a push then throws Cancelled, which ends the scan).
template <typename T>
class BatchQueue {
 public:
  struct Cancelled {};
  explicit BatchQueue(size_t limit) : limit_(limit) {}
  void push(T&& batch) {
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return cancelled_ || items_.size() < limit_; });
    if (cancelled_) throw Cancelled{};
    items_.push_back(std::move(batch));
    ready_.notify_one();
  }
  std::optional<T> pop() {
    std::unique_lock lock(mu_);
    ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T out = std::move(items_.front());
    items_.pop_front();
    room_.notify_one();
    return out;
  }
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    ready_.notify_all();
  }
  void cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    items_.clear();
    room_.notify_all();
  }
  // A delivered batch handed back, emptied, for the next push to reuse: a
  // fresh vector per batch cost a page fault per 4 KiB of it.
  void recycle(T&& spent) {
    spent.clear();
    std::lock_guard lock(mu_);
    if (spare_.size() < limit_) spare_.push_back(std::move(spent));
  }
  T spare() {
    std::lock_guard lock(mu_);
    if (spare_.empty()) return T{};
    T out = std::move(spare_.back());
    spare_.pop_back();
    return out;
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<T> items_;
  std::vector<T> spare_;
  size_t limit_;
  bool closed_ = false, cancelled_ = false;
};

// Sorts `v`, whose [0, sorted) is in order, by merging its ascending runs
// pairwise until one is left, through `scratch` (kept between calls, so a
// round allocates nothing): a round holds one run per CPU buffer written,
// so this costs n log(runs), where a plain sort costs n log n.
template <typename T>
void merge_runs(std::vector<T>& v, size_t sorted, std::vector<T>& scratch) {
  std::vector<size_t> bounds = {0};
  if (sorted > 0) bounds.push_back(sorted);
  for (size_t i = sorted; i < v.size(); ++i) {
    if (i + 1 == v.size() || v[i + 1] < v[i]) bounds.push_back(i + 1);
  }
  while (bounds.size() > 2) {
    scratch.resize(v.size());
    std::vector<size_t> merged = {0};
    size_t k = 0;
    for (; k + 2 < bounds.size(); k += 2) {
      std::merge(v.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                 v.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                 v.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                 v.begin() + static_cast<std::ptrdiff_t>(bounds[k + 2]),
                 scratch.begin() + static_cast<std::ptrdiff_t>(bounds[k]));
      merged.push_back(bounds[k + 2]);
    }
    if (k + 1 < bounds.size()) {  // an odd run out: copied as it is
      std::copy(v.begin() + static_cast<std::ptrdiff_t>(bounds[k]), v.end(),
                scratch.begin() + static_cast<std::ptrdiff_t>(bounds[k]));
      merged.push_back(bounds.back());
    }
    v.swap(scratch);
    bounds = std::move(merged);
  }
}

// The first read of each 4 KiB page of a mapping costs ~2.6 us on this kind
// of VM (its shadow page tables are filled on first touch, which
// MAP_POPULATE does not do): more than the scan spends on a page's records.
// So a third thread reads one byte a page of `data` (at `base` in the file)
// from its end backwards, until it meets the scan (`scanned`) or `stop`:
// each page is touched first by one of the two. Where touching is cheap
// (no shadow paging) this costs ~3 ms per 100 MB.
inline void touch_pages_backwards(std::span<const uint8_t> data, uint64_t base,
                                  const std::atomic<uint64_t>& scanned,
                                  const std::atomic<bool>& stop) {
  constexpr uint64_t kPage = 4096;
  const volatile uint8_t* bytes = data.data();
  for (uint64_t off = data.size() / kPage * kPage; off >= kPage;) {
    off -= kPage;
    if (off % (16 * kPage) == 0 && (stop.load(std::memory_order_relaxed) ||
                                    base + off <= scanned.load(std::memory_order_relaxed))) {
      return;
    }
    (void)bytes[off];
  }
}

// Joins a thread when it goes out of scope, telling it to stop first.
struct StopAndJoin {
  std::atomic<bool>& stop;
  std::thread& thread;
  ~StopAndJoin() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

}  // namespace kprof::importer
