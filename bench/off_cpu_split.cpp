// Issue 26: how well record --off-cpu-freq's sampled wakeups estimate the
// blocked / run-queue split (core/off_cpu_builder.h). A storm recording
// with every wakeup, cut short so that it keeps its spooled records
// (bench/off_cpu_split.sh makes them), is read once; its records go to one
// OffCpuBuilder per KEEP, which sees only every KEEP-th wakeup of each CPU,
// its period made KEEP (what the kernel's frequency mode writes), and
// everything else. KEEP 1 is the recording as made: the truth the others
// estimate. Prints per KEEP the wakeups kept, the followed threads' blocked
// and run-queue ms, and the blocked share of their off-CPU time with its
// error against KEEP 1, in percentage points.
//   kprof_off_cpu_split FILE.kprof [KEEP...]   (default KEEP: 10 100 1000)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <vector>

#include "core/off_cpu_builder.h"
#include "perfabi/load.h"

namespace {

// Every record to each builder, the wakeups thinned per builder and CPU.
class Thinning final : public kprof::RecordSink {
 public:
  explicit Thinning(const std::vector<uint64_t>& keep) : keep_(keep), kept_(keep.size(), 0) {
    for (size_t i = 0; i < keep.size(); ++i)
      builders_.push_back(std::make_unique<kprof::OffCpuBuilder>());
  }
  void on_sample(const kprof::Sample& s) override {
    if (s.kind != kprof::SampleKind::Wakeup) {
      for (auto& b : builders_) b->on_sample(s);
      return;
    }
    uint64_t& seen = seen_[s.cpu];
    ++seen;
    for (size_t i = 0; i < builders_.size(); ++i) {
      if (seen % keep_[i] != 0) continue;
      kprof::Sample kept = s;
      kept.period = keep_[i];
      builders_[i]->on_sample(kept);
      ++kept_[i];
    }
  }
  void on_switch(const kprof::Switch& w) override {
    for (auto& b : builders_) b->on_switch(w);
  }
  void on_mmap(const kprof::Mmap& m) override {
    for (auto& b : builders_) b->on_mmap(m);
  }
  void on_comm(const kprof::Comm& c) override {
    for (auto& b : builders_) b->on_comm(c);
  }
  void on_fork(const kprof::Fork& f) override {
    for (auto& b : builders_) b->on_fork(f);
  }
  void on_exit(const kprof::Fork& f) override {
    for (auto& b : builders_) b->on_exit(f);
  }
  void on_lost(const kprof::Lost& l) override {
    for (auto& b : builders_) b->on_lost(l);
  }
  std::vector<std::unique_ptr<kprof::OffCpuBuilder>>& builders() { return builders_; }
  uint64_t kept(size_t i) const { return kept_[i]; }

 private:
  std::vector<uint64_t> keep_;
  std::vector<std::unique_ptr<kprof::OffCpuBuilder>> builders_;
  std::map<uint32_t, uint64_t> seen_;  // wakeups per CPU
  std::vector<uint64_t> kept_;         // wakeups kept, per builder
};

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.kprof [KEEP...]\n", argv[0]);
    return 2;
  }
  std::vector<uint64_t> keep = {1};
  for (int i = 2; i < argc; ++i)
    keep.push_back(std::max(1ull, std::strtoull(argv[i], nullptr, 10)));
  if (keep.size() == 1) keep.insert(keep.end(), {10, 100, 1000});
  Thinning sink(keep);
  kprof::perfabi::load_profile(argv[1],
                               {.records = &sink, .tables = false, .kernel_symbols = false});
  double truth = NAN;
  std::printf("%8s %10s %12s %12s %9s %9s\n", "keep", "wakeups", "blocked_ms", "runq_ms",
              "blocked%", "error_pp");
  for (size_t i = 0; i < keep.size(); ++i) {
    const kprof::OffCpuCounts c = std::move(*sink.builders()[i]).finish();
    uint64_t blocked = 0, runq = 0;
    for (const kprof::OffCpuThread& t : c.threads) {
      blocked += t.blocked_ns;
      runq += t.runq_ns;
    }
    if (blocked + runq == 0) {
      std::fprintf(stderr, "%s: no off-CPU time in its records (recorded with --off-cpu?)\n",
                   argv[1]);
      return 1;
    }
    const double share = 100.0 * static_cast<double>(blocked) / static_cast<double>(blocked + runq);
    if (i == 0) truth = share;
    std::printf("%8llu %10llu %12.1f %12.1f %9.2f %+9.2f\n",
                static_cast<unsigned long long>(keep[i]),
                static_cast<unsigned long long>(sink.kept(i)), blocked / 1e6, runq / 1e6, share,
                share - truth);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kprof_off_cpu_split: %s\n", e.what());
  return 1;
}
