// Each thread's name as perf keeps it: from its COMM record, else (after a
// fork) the name of the thread it was forked from; the idle task (tid 0,
// which has no COMM record) is "swapper". For the views that name each
// sample's thread (kprof script, --sort tid).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/model.h"

namespace kprof {

class ThreadNames {
 public:
  void on_comm(const Comm& c) { names_[c.tid] = c.comm; }
  void on_fork(const Fork& f) {
    if (auto parent = names_.find(f.ptid); parent != names_.end()) {
      std::string name = parent->second;
      names_[f.tid] = std::move(name);
    }
  }
  // "" for a thread never named.
  std::string_view of(uint32_t tid) const {
    const auto n = names_.find(tid);
    if (n != names_.end()) return n->second;
    return tid == 0 ? "swapper" : "";
  }

 private:
  std::unordered_map<uint32_t, std::string> names_;
};

}  // namespace kprof
