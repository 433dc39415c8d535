// Which samples a recount of a profile's records keeps: perf's --tid, --cpu
// and --time (issue 29). A profile's stored histogram and stacks do not keep
// threads, CPUs or times, but a complete profile keeps its records (Records
// chunks), so these keys read the records again through a SelectingSink and
// name what it keeps anew (cli/inputs.h: load_filtered). The keys the stored
// tables do keep (--comm, --pid, --dso, --symbol) are report/filter.h.
// No Linux or libdw dependency.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/dense_hash_map.h"
#include "core/model.h"

namespace kprof {

struct SampleSelection {
  std::vector<uint32_t> tids;
  std::vector<uint32_t> cpus;
  std::string time;  // --time START,END as typed; "" for the whole recording
  bool empty() const { return tids.empty() && cpus.empty() && time.empty(); }
  // Whether --tid and --cpu keep a sample of thread `tid` on `cpu`.
  bool keeps(uint32_t tid, uint32_t cpu) const {
    const auto in = [](const std::vector<uint32_t>& v, uint32_t x) {
      return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
    };
    return in(tids, tid) && in(cpus, cpu);
  }
  // "--tid 12 --cpu 0,1 --time 1,2.5", as typed.
  std::string describe() const;
};

// "12,13": numbers as a list option takes them.
std::string join_numbers(const std::vector<uint32_t>& v);

// perf's CPU list: "0-3,7" (items comma-separated, ranges inclusive). Throws
// kprof::Error (exit 2) on anything else.
std::vector<uint32_t> parse_cpu_list(const std::vector<std::string>& items);

// [from_ns, to_ns) in perf time (CLOCK_MONOTONIC ns, as Sample::time).
struct TimeRange {
  uint64_t from_ns = 0;
  uint64_t to_ns = UINT64_MAX;
  bool contains(uint64_t t) const { return t >= from_ns && t < to_ns; }
};

// --time START,END as perf report takes it: seconds from the recording's
// start ("1.5,3"; either end may be left out: "5," and ",10"), or percent
// of its length ("10%,20%", or perf's "10%-20%"). `start_ns`: the recording's start in perf
// time; `length_ns`: its length (0 when unknown: percent is then refused).
// Throws kprof::Error (exit 2) for a malformed or empty range.
TimeRange parse_time_range(std::string_view spec, uint64_t start_ns, uint64_t length_ns);

// Passes every record on to `next` except the samples the selection does
// not keep: those of other events than `event` (0: the first event's,
// SampleKind::Cpu; k: SampleKind::Event samples of event k, passed on as
// Cpu samples so every counter counts them) and those outside the
// selection's threads, CPUs and time; off-CPU samples and side-band
// records always pass (mappings, names and switches must stay whole).
// Counts what exists of the event, for an error that names it when nothing
// is kept.
class SelectingSink final : public ForwardingSink {
 public:
  struct Seen {
    uint64_t total = 0, kept = 0;  // CPU samples
    // Counted only when the selection names threads or CPUs: what exists
    // when none of those match.
    std::map<uint32_t, uint64_t> tids, cpus;
    uint64_t first_ns = UINT64_MAX, last_ns = 0;  // of the CPU samples
    std::map<uint32_t, std::string> names;        // tid -> its comm, as last seen
  };
  SelectingSink(RecordSink& next, const SampleSelection& selection, TimeRange range,
                uint32_t event = 0)
      : ForwardingSink(next),
        tids_(selection.tids),
        cpus_(selection.cpus),
        range_(range),
        event_(event),
        by_task_(!tids_.empty() || !cpus_.empty()) {}
  void on_sample(const Sample& s) override;
  void on_comm(const Comm& c) override {
    seen_.names[c.tid] = c.comm;
    next_.on_comm(c);
  }
  void on_fork(const Fork& f) override;
  // What went by so far.
  Seen seen() const;

 private:
  std::vector<uint32_t> tids_, cpus_;
  TimeRange range_;
  uint32_t event_;
  bool by_task_;  // --tid or --cpu: count what each thread and CPU holds
  Sample copy_;   // an Event sample passed on as a Cpu one
  Seen seen_;     // all but its tids and cpus, counted below (once per sample: no tree)
  // Each CPU's samples, and its current run of samples of one thread: a
  // thread's samples come in runs on a CPU, so a sample costs a compare and
  // an add, and the thread's count is looked up once a run (flush_run).
  struct CpuCount {
    uint64_t samples = 0;
    uint32_t tid = 0;
    uint64_t run = 0;  // samples of `tid` not yet in tid_counts_
  };
  void flush_run(CpuCount& c);  // adds c's run to tid_counts_
  DenseHashMap<uint32_t, uint64_t, IdHash> tid_counts_;
  ById<CpuCount> cpu_counts_;
};

}  // namespace kprof
