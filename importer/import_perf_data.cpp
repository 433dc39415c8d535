// import_perf_data (import.h): a perf.data's bytes to a Profile, in the
// order the steps run: the header's run facts and the event to show
// (perf_run_info.h); one walk of the records, fanned out to the aggregator
// and, for kprof import, the writer (import_sink.h, import_writer.h); the
// kernel symbols (perf_kernel_symbols.h); every address named (the
// symbolizer); then the summary and how far the file read.
#include <linux/perf_event.h>

#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "importer/import.h"
#include "importer/import_sink.h"
#include "importer/import_writer.h"
#include "importer/perf_data.h"
#include "importer/perf_kernel_symbols.h"
#include "importer/perf_run_info.h"
#include "perfabi/perf_record.h"
#include "symbolizer/profile_symbols.h"
#include "unwind/unwinder.h"

namespace kprof::importer {

namespace {

// One walk of the data section: the chosen event's records decoded into
// `sink`; the others' samples only counted.
struct RecordWalk {
  PerfDataStatus status;
  std::vector<uint64_t> samples_by_event;  // of the events not shown
  uint64_t unmatched = 0;                  // samples with an id no attribute lists
  uint64_t undecoded = 0;                  // records that failed to decode
  std::string first_undecoded;
};

RecordWalk walk_records(const PerfDataReader& reader, size_t chosen, RecordSink& sink) {
  const PerfDataHeader& h = reader.header();
  RecordWalk w;
  Sample scratch;
  w.samples_by_event.resize(h.events.size());
  w.status = reader.for_each_record([&](std::span<const uint8_t> rec, size_t ev) {
    uint32_t type = 0;
    std::memcpy(&type, rec.data(), sizeof type);
    if (type == PERF_RECORD_SAMPLE && ev != chosen) {
      if (ev < w.samples_by_event.size()) {
        ++w.samples_by_event[ev];
      } else {
        ++w.unmatched;
      }
      return;
    }
    try {
      perfabi::decode_perf_record(rec, reader.layout(ev < h.events.size() ? ev : chosen), sink,
                                  scratch);
    } catch (const Error& e) {
      if (w.undecoded++ == 0) w.first_undecoded = e.what();
    }
  });
  return w;
}

// What the walk did not show: other events' samples, unmatched ids, records
// that did not decode.
void note_walk(const PerfDataHeader& h, size_t chosen, const RecordWalk& w, uint64_t samples,
               std::vector<std::string>& notices) {
  if (std::string others = other_events_notice(h, chosen, samples, w.samples_by_event);
      !others.empty()) {
    notices.push_back(std::move(others));
  }
  if (w.unmatched) {
    notices.push_back(std::to_string(w.unmatched) +
                      " samples carry an event id no attribute lists: skipped");
  }
  if (w.undecoded) {
    notices.push_back(std::to_string(w.undecoded) +
                      " perf records did not decode and were skipped (first: " + w.first_undecoded +
                      ")");
  }
}

// The summary, and why reading stopped.
Summary summarize(const ImportSink& sink, const PerfDataStatus& st) {
  Summary sm;
  sm.samples = sink.samples;
  sm.lost = sink.lost;
  sm.throttled = sink.throttled;
  sm.duration_ns = sink.samples ? sink.last_time - sink.first_time : 0;
  if (st.cut_short) {
    sm.stop_reason = "perf record did not finish (the file's data size is 0): read " +
                     std::to_string(st.bytes_read) + " bytes of records" +
                     (st.problem.empty() ? "" : "; " + st.problem);
  } else if (!st.problem.empty()) {
    sm.stop_reason = "perf.data damaged: " + st.problem;
  } else {
    sm.stop_reason = "perf record finished";
  }
  return sm;
}

// How far the file read, as a .kprof's ReadStatus says it.
ReadStatus read_status(uint64_t file_bytes, const PerfDataHeader& h, const PerfDataStatus& st,
                       const Summary& sm) {
  ReadStatus s;
  s.file_bytes = file_bytes;
  s.good_bytes = h.data_offset + st.bytes_read;
  s.complete = !st.cut_short && st.problem.empty();
  if (!s.complete) s.problem = sm.stop_reason;
  return s;
}

}  // namespace

Profile import_perf_data(std::span<const uint8_t> bytes, const std::string& name,
                         const ImportOptions& options, ProfileWriter* writer) {
  const PerfDataReader reader(bytes, name);
  const PerfDataHeader& h = reader.header();
  const size_t chosen = pick_event(h, options.event, name);

  Profile p;
  p.path = name;
  p.run = perf_run_info(h, h.events[chosen]);
  p.environment = perf_environment(h);
  std::optional<ImportWriter> out;
  if (writer) {
    out.emplace(*writer);
    out->begin(p.run);
  }

  const std::unordered_map<std::string, std::string> ids = build_ids_by_file(h);
  // The user images the header lists (perf keeps the build-ids of what was
  // sampled) are read on a second thread while the records are walked, so
  // naming what the walk counted only looks names up.
  ElfResolverOptions elf_options;
  elf_options.buildid_cache = options.buildid_dir;
  ElfResolver elf(std::move(elf_options));
  // (Declared after `elf`: the future waits for its thread when it goes.)
  // So is the kernel's kallsyms (this machine's is ~5 MB of text to read).
  std::future<std::unique_ptr<const FoundKernelSymbols>> preloaded =
      std::async(std::launch::async, [&elf, &h, &options, id = p.run.kernel_build_id] {
        auto found = find_kernel_symbols(h, id, options);
        for (const PerfBuildId& b : h.build_ids) {
          if (!b.kernel) elf.preload(b.filename, b.build_id);
        }
        return found;
      });
  AddressAggregator agg(p.run.event.callchains);
  if (out || options.per_thread) agg.count_threads();  // kprof import: the .kprof keeps them
  ImportSink sink(agg, out ? &*out : nullptr);
  // perf record --call-graph dwarf: its stack copies unwound on the way in
  // (unwind/unwinder.h), as kprof's own are when recording ends.
  std::optional<unwind::Unwinder> unwinder;
  const PerfEvent& event = h.events[chosen];
  if (event.stack_user != 0 && (event.sample_type & PERF_SAMPLE_STACK_USER)) {
    unwinder.emplace(sink, event.stack_user);
    p.run.event.user_stack_bytes = event.stack_user;
  }
  BuildIdFiller filled(unwinder ? static_cast<RecordSink&>(*unwinder) : sink, ids);
  const RecordWalk walk = walk_records(reader, chosen, filled);
  if (unwinder) p.unwind = unwinder->stats();
  note_walk(h, chosen, walk, sink.samples, p.run.notices);

  const AddressCounts& counts = agg.counts();
  const std::unique_ptr<const FoundKernelSymbols> found = preloaded.get();
  PerfKernelSymbols kernel = perf_kernel_symbols(*found, options, counts, sink.kernel_text);
  if (std::string notice = kernel_symbols_notice(kernel, counts); !notice.empty()) {
    p.run.notices.push_back(std::move(notice));
  }
  p.kallsyms = std::move(kernel.kallsyms);
  p.modules = std::move(kernel.modules);

  const KernelSymbols ks = KernelSymbols::parse(p.kallsyms, p.modules);
  ProfileSymbols named = symbolize_profile(counts, ks, nullptr, elf);
  for (const std::string& w : named.warnings) p.run.notices.push_back(w);
  p.threads = std::move(named.threads);
  if (named.stacks) {
    p.stacks = std::move(named.stacks);
  } else {
    p.histogram = std::move(named.histogram);
  }

  const Summary sm = summarize(sink, walk.status);
  p.run.start_monotonic_ns = sink.first_time;
  p.status = read_status(bytes.size(), h, walk.status, sm);
  p.summary = sm;

  if (out) out->finish(p);
  return p;
}

}  // namespace kprof::importer
