// read_profile: one walk, what report, diff and info need.
#include "core/profile.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/aggregate.h"
#include "core/chunk_codecs.h"
#include "core/environment.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/off_cpu.h"
#include "core/records_chunk.h"
#include "core/records_index.h"

namespace kprof {

bool Profile::histogram_usable() const {
  if (stacks) return true;
  // A -g profile holds Stacks, not a Histogram; one whose Stacks chunk did not
  // read (damaged, so skipped) is rebuilt from its records like any cut-short
  // file. An intact -g file of an older kprof holds a Histogram only: it is used.
  const bool stacks_damaged = std::any_of(
      status.damaged.begin(), status.damaged.end(),
      [](const DamagedChunk& d) { return d.type == static_cast<uint16_t>(ChunkType::Stacks); });
  return histogram && !(run.event.callchains && (!status.complete || stacks_damaged));
}

namespace {

// From the chunk headers alone: whether the file lacks a histogram a report
// could use, so its records must be counted.
bool records_needed(const std::vector<uint16_t>& types) {
  bool end = false, histogram = false, stacks = false;
  for (uint16_t t : types) {
    end |= t == static_cast<uint16_t>(ChunkType::End);
    histogram |= t == static_cast<uint16_t>(ChunkType::Histogram) ||
                 t == static_cast<uint16_t>(ChunkType::HistogramColumns);
    stacks |= t == static_cast<uint16_t>(ChunkType::Stacks);
  }
  return !(stacks || (histogram && end));
}

std::string text(const Chunk& c) {
  return std::string(reinterpret_cast<const char*>(c.payload.data()), c.payload.size());
}

// The Records chunks outside `range` by the file's RecordsIndex chunks
// (their entries in file order); none when it has none, or for a stream.
RecordsOutside records_outside_of(ProfileReader& reader, const TimeRange& range) {
  const auto headers = reader.chunk_headers();
  if (!headers) return {};
  RecordsIndex index;
  for (const ChunkHeaderInfo& h : *headers) {
    if (h.type != static_cast<uint16_t>(ChunkType::RecordsIndex)) continue;
    // A damaged index is no index: every chunk is read.
    const std::string damage = reader.read_chunk(h, [&](const Chunk& c) {
      const RecordsIndex more = decode_records_index(c.payload);
      index.chunks.insert(index.chunks.end(), more.chunks.begin(), more.chunks.end());
    });
    if (!damage.empty()) return {};
  }
  return records_outside(*headers, index, range.from_ns, range.to_ns);
}

}  // namespace

Profile read_profile(ProfileReader& reader, const PerfRecordsDecoder& perf_records,
                     const LoadOptions& options) {
  Profile p;
  p.path = reader.name();
  bool have_meta = false;
  // Whether to count the records as they go by: asked for, or the headers say
  // there is no histogram, or (a stream, read once) they cannot tell.
  bool count = options.count_records && options.tables;
  if (!count && options.records == nullptr && options.tables) {
    const auto types = reader.chunk_types();
    count = !types || records_needed(*types);
  }
  std::optional<AddressAggregator> agg;  // made at the first Records chunk: after Meta
  auto decode = [&](const Chunk& c, RecordSink& sink) {
    if (c.type == static_cast<uint16_t>(ChunkType::Records)) {
      decode_records(c.payload, sink);
    } else {
      perf_records.decode(c.payload, sink);
    }
  };
  auto count_records = [&](const Chunk& c) {
    // Counted for a report (user addresses by mapping: this file's user
    // functions are not named) unless asked for every address.
    if (!agg) {
      agg.emplace(p.run.event.callchains, !options.count_records);
      agg->leave_out(p.run.recorder_pid);
      if (options.count_records) agg->count_threads();            // for kprof symbolize to store
      if (is_clock_event(p.run.event)) agg->weigh_by_cpu_time();  // as kprof record does
    }
    decode(c, *agg);
  };
  auto is_records = [](uint16_t type) {
    return type == static_cast<uint16_t>(ChunkType::Records) ||
           type == static_cast<uint16_t>(ChunkType::PerfRecords);
  };
  auto want = [&](uint16_t type) {
    switch (static_cast<ChunkType>(type)) {
      case ChunkType::Records:
      case ChunkType::PerfRecords:
        return options.records != nullptr || count;
      case ChunkType::Meta:  // the last one wins (kprof import writes it again at the end)
      case ChunkType::Summary:
        return true;
      case ChunkType::Kallsyms:
      case ChunkType::Modules:
        return options.kernel_symbols;
      case ChunkType::Histogram:
      case ChunkType::HistogramColumns:
      case ChunkType::Stacks:
      case ChunkType::Environment:
      case ChunkType::SyscallCounts:
      case ChunkType::OffCpu:
      case ChunkType::Unwind:
      case ChunkType::ThreadCounts:
        return options.tables;
      default:
        return false;
    }
  };
  // The Records chunks a reader of one time range need not read.
  std::vector<uint64_t> pass_over;
  if (options.records != nullptr && options.records_in && !count) {
    const RecordsOutside outside = records_outside_of(reader, *options.records_in);
    pass_over = outside.offsets;
    p.records_passed_over = outside.held;
  }
  const auto skip = [&pass_over](const ChunkHeaderInfo& h) {
    return std::binary_search(pass_over.begin(), pass_over.end(), h.offset);
  };
  p.status = reader.for_each_chunk(
      want,
      [&](const Chunk& c) {
        switch (static_cast<ChunkType>(c.type)) {
          case ChunkType::Meta:
            p.run = decode_run_info(c.payload);
            have_meta = true;
            break;
          case ChunkType::Kallsyms:
            p.kallsyms = text(c);
            break;
          case ChunkType::Modules:
            p.modules = text(c);
            break;
          case ChunkType::Records:
          case ChunkType::PerfRecords:
            if (options.records) decode(c, *options.records);
            if (count) count_records(c);
            break;
          case ChunkType::Summary:
            p.summary = decode_summary(c.payload);
            break;
          case ChunkType::Histogram:
            p.histogram = decode_histogram(c.payload);
            p.threads.reset();  // a table indexes the flat table written before it
            break;
          case ChunkType::HistogramColumns:
            p.histogram = decode_histogram_columns(c.payload);
            p.threads.reset();
            break;
          case ChunkType::ThreadCounts:
            p.threads = decode_thread_counts(c.payload);
            break;
          case ChunkType::Environment:
            p.environment = decode_environment(c.payload);
            break;
          case ChunkType::SyscallCounts:
            p.syscalls = decode_syscall_counts(c.payload);
            break;
          case ChunkType::OffCpu:
            p.off_cpu = decode_off_cpu(c.payload);
            mend_broken_chains(p.off_cpu->stacks);
            break;
          case ChunkType::Unwind:
            p.unwind = decode_unwind_stats(c.payload);
            break;
          case ChunkType::Stacks:
            p.threads.reset();
            p.stacks = decode_stacks(c.payload);
            mend_broken_chains(*p.stacks);  // files written before it was done at symbolization
            break;
          default:
            break;
        }
      },
      pass_over.empty() ? std::function<bool(const ChunkHeaderInfo&)>() : skip);
  if (p.summary) {
    for (const auto& [name, value] : p.summary->scores) p.run.scores.emplace(name, value);
  }
  if (!have_meta) {
    throw Error(reader.name() + " has no readable run information (meta chunk)" +
                (p.status.problem.empty() ? std::string() : ": " + p.status.problem));
  }
  p.run.format_version = reader.version();
  if (!count && options.tables && !p.histogram_usable() && options.records == nullptr &&
      reader.rewindable()) {
    // The headers promised a histogram that did not read (damage before it):
    // count the records up to the damage after all.
    reader.for_each_chunk(is_records, count_records);
    count = true;
  }
  if (count && (options.count_records || !p.histogram_usable())) {
    if (!agg) agg.emplace(p.run.event.callchains, !options.count_records);  // no records
    p.counted = std::make_shared<const AddressCounts>(std::move(*agg).take_counts());
  }
  return p;
}

RunInfo read_run_info(const std::string& path) {
  ProfileReader reader = ProfileReader::open(path);
  std::optional<RunInfo> run;
  const ReadStatus& status = reader.for_each_chunk(
      [](uint16_t type) { return type == static_cast<uint16_t>(ChunkType::Meta); },
      [&](const Chunk& c) { run = decode_run_info(c.payload); });
  if (!run) {
    throw Error(reader.name() + " has no readable run information (meta chunk)" +
                (status.problem.empty() ? std::string() : ": " + status.problem));
  }
  return *run;
}

}  // namespace kprof
