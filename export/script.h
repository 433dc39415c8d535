// `kprof script`: a recording's CPU samples one by one, as `perf script`
// prints them, so that what reads perf's output (FlameGraph's
// stackcollapse-perf.pl, scripts written for perf) reads kprof's too.
//
// A sample without a call chain is one line:
//   COMM   TID [CPU] SECONDS.MICROS:     PERIOD EVENT:  IP FUNCTION (IMAGE)
// With call chains (-g, --call-graph dwarf) the line ends after "EVENT:",
// each frame follows on its own line, leaf first, and an empty line ends the
// sample:
//   \t    IP FUNCTION (IMAGE)
// COMM is right-aligned in 16 columns (not aligned with call chains), TID in
// 5 ("PID/TID" with both), the period in 10, each IP in 16 (perf 6.1's
// widths); functions print without perf's "+0xOFFSET" (readers strip it);
// times are CLOCK_MONOTONIC, as perf's; IPs are hex without 0x; a caller's
// IP is its return address (perf's too) and it is named by its call site.
// The kernel's image is "[kernel.kallsyms]" and a module's "[NAME]", as
// perf names them; what is not named is "[unknown]". Fields can be chosen
// (parse_script_fields); they print in the order above whatever the order
// asked for, as perf's -F.
//
// Names come from an AddressNames built over the same records (the first
// pass: core/aggregate.h); the writer replays the records' mappings to key
// each sample's addresses as that pass did (AddressAggregator::keys_of), so
// it must be given exactly the records (and the same leave_out) the names
// were built from.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/aggregate.h"
#include "core/model.h"
#include "core/thread_names.h"
#include "report/filter.h"

namespace kprof {

struct ScriptFields {
  bool comm = true, pid = false, tid = true, cpu = true, time = true, period = true, event = true,
       ip = true, sym = true, dso = true;
};

// perf script -F's syntax over these fields (comm, pid, tid, cpu, time,
// period, event, ip, sym, dso): "comm,tid,sym" prints exactly those;
// "+pid" or "-period,-cpu" changes the default by those. Throws
// kprof::Error (exit 2) naming the fields there are.
ScriptFields parse_script_fields(std::string_view text);

struct ScriptOptions {
  ScriptFields fields;
  std::string event;             // the event's name as recorded ("cpu-clock")
  bool callchains = false;       // the records hold call chains (the aggregation's `stacks`)
  uint32_t leave_out_pid = 0;    // RunInfo::recorder_pid, as the names' aggregation
  const SampleFilter* filter{};  // its table keys: --comm, --pid, and the leaf's --dso, --symbol
};

class ScriptWriter final : public RecordSink {
 public:
  // `out` and `names` must outlive the writer.
  ScriptWriter(std::FILE* out, const AddressNames& names, ScriptOptions options);
  ScriptWriter(const ScriptWriter&) = delete;
  ScriptWriter& operator=(const ScriptWriter&) = delete;
  ~ScriptWriter() override;

  void on_sample(const Sample& s) override;
  void on_mmap(const Mmap& m) override { agg_.on_mmap(m); }
  void on_comm(const Comm& c) override;
  void on_fork(const Fork& f) override;
  void on_exit(const Fork& f) override { agg_.on_exit(f); }

  // Writes what is buffered; throws kprof::Error when the output cannot be
  // written (a full disk).
  void finish();
  uint64_t printed() const { return printed_; }
  uint64_t seen() const { return seen_; }  // CPU samples the filter was asked about

 private:
  bool wanted(const Sample& s, const AddressCounts::Key& leaf, std::string_view comm) const;
  void frame(uint64_t ip, const AddressCounts::Key& key, bool own_line);
  // " FUNCTION (IMAGE)\n" of `key` (as the fields ask), from a small
  // direct-mapped cache: most frames repeat a few hot addresses.
  const std::string& name_text(const AddressCounts::Key& key);
  void flush_if_full();

  std::FILE* out_;
  const AddressNames& names_;
  ScriptOptions options_;
  AddressAggregator agg_;  // the processes' mappings, to key each sample's addresses
  // Whether a field or filter shows names: if not, no address is keyed.
  bool names_needed_ = true;
  std::vector<AddressCounts::Key> keys_;
  struct NameText {
    bool used = false;
    AddressCounts::Key key{};
    std::string text;
  };
  static constexpr size_t kTexts = 4096;  // a power of two
  std::vector<NameText> texts_ = std::vector<NameText>(kTexts);
  ThreadNames threads_;
  std::string buf_;
  uint64_t printed_ = 0, seen_ = 0;
};

}  // namespace kprof
