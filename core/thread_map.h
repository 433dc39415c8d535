// ThreadMap: per-thread state by tid, for record sinks that look a thread up
// at every record (off-CPU following, CPU-time weights). An unordered_map,
// whose entries stay put, with the two threads last found in front of it:
// a context-switch storm's records alternate between two threads, and a hit
// is two compares instead of a hash lookup. A copy or move starts without
// the two (they point into the map they were found in).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>

namespace kprof {

template <class T>
class ThreadMap {
 public:
  ThreadMap() = default;
  ThreadMap(const ThreadMap& o) : map_(o.map_) {}
  ThreadMap(ThreadMap&& o) noexcept : map_(std::move(o.map_)) { o.recent_ = {}; }
  ThreadMap& operator=(const ThreadMap&) = delete;
  ThreadMap& operator=(ThreadMap&&) = delete;

  // The thread's entry, or null.
  T* find(uint32_t tid) {
    for (const Recent& r : recent_) {
      if (r.value != nullptr && r.tid == tid) return r.value;
    }
    auto it = map_.find(tid);
    if (it == map_.end()) return nullptr;
    remember(tid, it->second);
    return &it->second;
  }
  // The thread's entry, made (T{}) when it has none; and whether it was made.
  std::pair<T&, bool> get(uint32_t tid) {
    if (T* known = find(tid)) return {*known, false};
    auto [it, made] = map_.try_emplace(tid);
    remember(tid, it->second);
    return {it->second, made};
  }
  void erase(uint32_t tid) {
    map_.erase(tid);
    recent_ = {};
  }
  auto begin() { return map_.begin(); }
  auto end() { return map_.end(); }

 private:
  void remember(uint32_t tid, T& value) {
    recent_[1] = recent_[0];
    recent_[0] = {tid, &value};
  }
  struct Recent {
    uint32_t tid = 0;
    T* value = nullptr;
  };
  std::unordered_map<uint32_t, T> map_;
  std::array<Recent, 2> recent_{};
};

}  // namespace kprof
