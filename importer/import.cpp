#include "importer/import.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/chunk_codecs.h"
#include "core/input.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/kernel_symbols.h"
#include "core/mapped_file.h"
#include "core/records_chunk.h"
#include "importer/perf_data.h"
#include "perfabi/load.h"
#include "symbolizer/profile_symbols.h"

namespace kprof::importer {

namespace {

constexpr uint8_t kKprofMagic[8] = {'K', 'P', 'R', 'O', 'F', '\r', '\n', 0x1a};

std::string count_text(uint64_t n) {
  return std::to_string(n);
}

// "cpu-clock:pppH" -> "cpu-clock": perf's modifiers after the last ':'.
std::string_view without_modifiers(std::string_view name) {
  const size_t colon = name.rfind(':');
  if (colon == std::string_view::npos) return name;
  const std::string_view mods = name.substr(colon + 1);
  const bool all_modifiers = std::all_of(
      mods.begin(), mods.end(), [](char c) { return std::strchr("ukhIGHpPSDWeb", c) != nullptr; });
  return all_modifiers ? name.substr(0, colon) : name;
}

// perf's "dummy" software event (perf record -a adds one for side-band
// records): it never samples, so it is not offered as the event to show.
bool is_dummy(const PerfEvent& e) {
  return e.type == PERF_TYPE_SOFTWARE && e.config == PERF_COUNT_SW_DUMMY;
}

size_t pick_event(const PerfDataHeader& h, const std::string& wanted, const std::string& name) {
  if (h.events.empty()) throw Error(name + ": perf.data has no events in its attribute section");
  if (wanted.empty()) {
    for (size_t i = 0; i < h.events.size(); ++i) {
      if (!is_dummy(h.events[i])) return i;
    }
    return 0;
  }
  for (size_t i = 0; i < h.events.size(); ++i) {
    if (h.events[i].name == wanted) return i;
  }
  for (size_t i = 0; i < h.events.size(); ++i) {
    if (without_modifiers(h.events[i].name) == without_modifiers(wanted)) return i;
  }
  std::string names;
  for (const PerfEvent& e : h.events) names += (names.empty() ? "" : ", ") + e.name;
  throw Error(name + " has no event '" + wanted + "'; it holds: " + names +
              " (pick one with --event NAME)");
}

// Where kernel names come from, and the notice saying so.
struct KernelText {
  std::string kallsyms, modules;
  std::string source;  // "" when none was found
  std::string why_none;
  bool running = false;  // this machine's
};

std::optional<std::string> read_optional(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  try {
    std::vector<uint8_t> b = read_file_bytes(path);
    return std::string(b.begin(), b.end());
  } catch (const Error&) {
    return std::nullopt;
  }
}

KernelText find_kernel_text(const PerfDataHeader& h, const std::string& kernel_build_id,
                            const ImportOptions& o) {
  KernelText k;
  if (!o.kallsyms_file.empty()) {
    std::vector<uint8_t> b;
    try {
      b = read_file_bytes(o.kallsyms_file);
    } catch (const Error& e) {
      throw Error(std::string("--kallsyms: ") + e.what());
    }
    k.kallsyms.assign(b.begin(), b.end());
    k.source = "--kallsyms " + o.kallsyms_file;
    return k;
  }
  const RunningKernel& run = o.running;
  const bool release_matches = !run.release.empty() && run.release == h.os_release;
  const bool id_matches =
      kernel_build_id.empty() || run.build_id.empty() || kernel_build_id == run.build_id;
  if (release_matches && id_matches && run.kallsyms) {
    k.kallsyms = run.kallsyms();
    if (run.modules) k.modules = run.modules();
    k.running = true;
    k.source = "this machine's /proc/kallsyms (same kernel: " + run.release +
               (kernel_build_id.empty() ? ", the recording has no kernel build-id"
                                        : ", build-id " + kernel_build_id.substr(0, 12)) +
               ")";
    return k;
  }
  if (!o.buildid_dir.empty() && !kernel_build_id.empty()) {
    const std::string path = o.buildid_dir + "/[kernel.kallsyms]/" + kernel_build_id + "/kallsyms";
    if (auto text = read_optional(path)) {
      k.kallsyms = std::move(*text);
      k.source = "perf's build-id cache (" + path + ")";
      return k;
    }
  }
  if (h.os_release.empty()) {
    k.why_none = "the recording does not say which kernel it ran";
  } else if (!release_matches) {
    k.why_none = "it ran kernel " + h.os_release + ", this machine runs " +
                 (run.release.empty() ? std::string("another") : run.release);
  } else {
    k.why_none = "this machine runs " + run.release + " with another build-id";
  }
  if (!kernel_build_id.empty()) {
    k.why_none += ", and perf's build-id cache has no kallsyms for build-id " + kernel_build_id;
  }
  return k;
}

// Calls fn(line, address, digits) for each kallsyms line; address 0 and
// digits 0 when the line does not start with 1-16 hex digits and a blank.
template <typename Fn>
void for_each_kallsyms_line(std::string_view kallsyms, Fn fn) {
  size_t pos = 0;
  while (pos < kallsyms.size()) {
    size_t end = kallsyms.find('\n', pos);
    if (end == std::string_view::npos) end = kallsyms.size();
    const std::string_view line = kallsyms.substr(pos, end - pos);
    pos = end + 1;
    const size_t sp = line.find(' ');
    uint64_t addr = 0;
    bool ok = sp != std::string_view::npos && sp > 0 && sp <= 16;
    for (size_t i = 0; ok && i < sp; ++i) {
      const char c = line[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      ok = d >= 0;
      addr = addr * 16 + static_cast<uint64_t>(d);
    }
    if (!fn(line, ok ? addr : 0, ok ? sp : 0)) return;
  }
}

// The address of "_text" in kallsyms text, or 0.
uint64_t text_address(std::string_view kallsyms) {
  uint64_t text = 0;
  for_each_kallsyms_line(kallsyms, [&](std::string_view line, uint64_t addr, size_t) {
    if (line.size() < 8 || line.substr(line.size() - 6) != " _text") return true;
    text = addr;
    return false;
  });
  return text;
}

// kallsyms text with every address moved by `delta` (a kallsyms of another
// boot of the same kernel: KASLR placed it elsewhere). The text is rewritten,
// not just the lookups moved, because kprof import stores it with the
// recording's samples.
std::string relocate(std::string_view kallsyms, uint64_t delta) {
  std::string out;
  out.reserve(kallsyms.size());
  char hex[17];
  for_each_kallsyms_line(kallsyms, [&](std::string_view line, uint64_t addr, size_t digits) {
    if (addr != 0) {
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(addr + delta));
      out += hex;
      out += line.substr(digits);
    } else {
      out += line;
    }
    out += '\n';
    return true;
  });
  return out;
}

// Between the reader and kprof: keeps the chosen event's samples, gives
// mappings the build-ids the file lists, counts what perf lost, and feeds
// the aggregator (and, for kprof import, the record encoder).
class ImportSink : public RecordSink {
 public:
  ImportSink(AddressAggregator& agg, const std::unordered_map<std::string, std::string>& ids,
             ProfileWriter* writer)
      : agg_(agg), ids_(ids), writer_(writer) {}

  void on_sample(const Sample& s) override {
    first_time = samples == 0 ? s.time : std::min(first_time, s.time);
    last_time = std::max(last_time, s.time);
    ++samples;
    agg_.on_sample(s);
    if (writer_) {
      encoder_.add(s);
      flush(false);
    }
  }
  void on_mmap(const Mmap& m) override {
    if (m.filename == "[kernel.kallsyms]_text" || m.filename == "[kernel.kallsyms]") {
      kernel_text = m.pgoff;
    }
    if (m.build_id.empty()) {
      auto it = ids_.find(m.filename);
      if (it != ids_.end()) {
        Mmap copy = m;
        copy.build_id = it->second;
        forward(copy);
        return;
      }
    }
    forward(m);
  }
  void on_comm(const Comm& c) override {
    agg_.on_comm(c);
    if (writer_) encoder_.add(c);
  }
  void on_fork(const Fork& f) override {
    agg_.on_fork(f);
    if (writer_) encoder_.add_fork(f);
  }
  void on_exit(const Fork& f) override {
    agg_.on_exit(f);
    if (writer_) encoder_.add_exit(f);
  }
  void on_lost(const Lost& l) override {
    lost += l.count;
    agg_.on_lost(l);
    if (writer_) encoder_.add(l);
  }
  void on_throttle(uint64_t) override { ++throttled; }

  void flush(bool force) {
    if (!writer_ || encoder_.empty()) return;
    if (!force && encoder_.size() < kRecordsChunkBytes) return;
    writer_->write_chunk(ChunkType::Records, encoder_.take());
  }

  uint64_t samples = 0, lost = 0, throttled = 0;
  uint64_t first_time = 0, last_time = 0;
  std::optional<uint64_t> kernel_text;  // _text as the recording saw it

 private:
  void forward(const Mmap& m) {
    agg_.on_mmap(m);
    if (writer_) encoder_.add(m);
  }
  AddressAggregator& agg_;
  const std::unordered_map<std::string, std::string>& ids_;
  ProfileWriter* writer_;
  RecordEncoder encoder_;
};

// What perf was asked to do, from its command line: the workload after
// "--" (or after the options), and -a / -p.
void describe_command(const std::vector<std::string>& cmdline, RunInfo& run) {
  bool system_wide = false;
  std::string pid;
  size_t i = 0;
  while (i < cmdline.size() && cmdline[i] != "record") ++i;
  for (++i; i < cmdline.size(); ++i) {
    const std::string& a = cmdline[i];
    if (a == "--") {
      run.command.assign(cmdline.begin() + static_cast<long>(i) + 1, cmdline.end());
      break;
    }
    if (a == "-a" || a == "--all-cpus") system_wide = true;
    if ((a == "-p" || a == "--pid") && i + 1 < cmdline.size()) pid = cmdline[i + 1];
  }
  run.target = system_wide ? "system-wide" : !pid.empty() ? "pid " + pid : "command";
}

}  // namespace

InputFormat sniff_format(std::span<const uint8_t> head) {
  if (head.size() >= sizeof kKprofMagic &&
      std::memcmp(head.data(), kKprofMagic, sizeof kKprofMagic) == 0) {
    return InputFormat::Kprof;
  }
  if (is_perf_data(head)) return InputFormat::PerfData;
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  if (looks_like_listing(text)) return InputFormat::Listing;
  return InputFormat::Unknown;
}

const char* input_format_name(InputFormat f) {
  switch (f) {
    case InputFormat::Kprof:
      return "kprof profile";
    case InputFormat::PerfData:
      return "perf.data";
    case InputFormat::Listing:
      return "listing";
    case InputFormat::Unknown:
      break;
  }
  return "unknown";
}

Profile import_perf_data(std::span<const uint8_t> bytes, const std::string& name,
                         const ImportOptions& options, ProfileWriter* writer) {
  const PerfDataReader reader(bytes, name);
  const PerfDataHeader& h = reader.header();
  const size_t chosen = pick_event(h, options.event, name);
  const PerfEvent& event = h.events[chosen];

  Profile p;
  p.path = name;
  RunInfo& run = p.run;
  run.format_version = kFormatVersion;
  run.source_format = "perf.data";
  run.event.name = event.name;
  run.event.type = event.type;
  run.event.config = event.config;
  run.event.use_freq = event.freq;
  run.event.rate = event.sample;
  run.event.exclude_kernel = event.exclude_kernel;
  run.event.callchains = (event.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
  run.kernel_release = h.os_release;
  run.hostname = h.hostname;
  run.cpu_model = h.cpu_desc;
  run.ncpus = h.nr_cpus_online;
  describe_command(h.cmdline, run);

  std::unordered_map<std::string, std::string> ids;
  for (const PerfBuildId& b : h.build_ids) {
    if (b.kernel && b.filename == "[kernel.kallsyms]") run.kernel_build_id = b.build_id;
    ids.emplace(b.filename, b.build_id);
  }
  run.notices.push_back(
      "imported from perf.data" +
      (h.perf_version.empty() ? std::string() : " (perf " + h.perf_version + ")") +
      (h.pipe ? ", a pipe-mode stream" : ""));
  for (const std::string& n : h.notices) run.notices.push_back("perf.data: " + n);
  if (writer) writer->write_chunk(ChunkType::Meta, encode_run_info(run));
  AddressAggregator agg(run.event.callchains);
  ImportSink sink(agg, ids, writer);
  std::vector<uint64_t> other_samples(h.events.size());
  uint64_t undecoded = 0, unmatched = 0;
  std::string first_undecoded;
  const PerfDataStatus st = reader.for_each_record([&](std::span<const uint8_t> rec, size_t ev) {
    uint32_t type = 0;
    std::memcpy(&type, rec.data(), sizeof type);
    if (type == PERF_RECORD_SAMPLE && ev != chosen) {
      if (ev < other_samples.size()) {
        ++other_samples[ev];
      } else {
        ++unmatched;
      }
      return;
    }
    const perfabi::SampleLayout layout =
        ev < h.events.size() ? h.events[ev].layout() : event.layout();
    try {
      perfabi::decode_perf_record(rec, layout, sink);
    } catch (const Error& e) {
      if (undecoded++ == 0) first_undecoded = e.what();
    }
  });
  sink.flush(true);

  std::string others;
  size_t sampling_events = 1;
  for (size_t i = 0; i < h.events.size(); ++i) {
    if (i == chosen || (is_dummy(h.events[i]) && other_samples[i] == 0)) continue;
    ++sampling_events;
    others += (others.empty() ? "" : ", ") + h.events[i].name + " (" +
              count_text(other_samples[i]) + " samples)";
  }
  if (!others.empty()) {
    run.notices.push_back("perf.data holds " + count_text(sampling_events) + " events: showing " +
                          event.name + " (" + count_text(sink.samples) + " samples); also " +
                          others + "; pick one with --event NAME");
  }
  if (unmatched) {
    run.notices.push_back(count_text(unmatched) +
                          " samples carry an event id no attribute lists: skipped");
  }
  if (undecoded) {
    run.notices.push_back(
        count_text(undecoded) +
        " perf records did not decode and were skipped (first: " + first_undecoded + ")");
  }

  // Kernel names: the kallsyms found, moved by the KASLR offset when it is
  // of another boot than the recording.
  const AddressCounts& counts = agg.counts();
  KernelText kernel = find_kernel_text(h, run.kernel_build_id, options);
  if (kernel.running && options.running.kallsyms_now &&
      !kernel_ips_in_boot_static_text(counts,
                                      KernelSymbols::parse(kernel.kallsyms, kernel.modules))) {
    kernel.kallsyms = options.running.kallsyms_now();
  }
  if (!kernel.source.empty() && sink.kernel_text) {
    const uint64_t text = text_address(kernel.kallsyms);
    if (text != 0 && text != *sink.kernel_text) {
      kernel.kallsyms = relocate(kernel.kallsyms, *sink.kernel_text - text);
      kernel.modules.clear();  // module addresses of another boot say nothing
      kernel.source += "; moved by the KASLR offset of the recording's boot";
    }
  }
  uint64_t kernel_samples = 0;
  for (const auto& [key, c] : counts.counts) {
    if (key.mode == Mode::Kernel) kernel_samples += c.samples;
  }
  if (!kernel.source.empty()) {
    run.notices.push_back("kernel symbols from " + kernel.source);
  } else if (kernel_samples) {
    run.notices.push_back(count_text(kernel_samples) +
                          " kernel samples not named: " + kernel.why_none +
                          "; give the recording machine's /proc/kallsyms with --kallsyms FILE "
                          "(or its perf archive, unpacked into ~/.debug)");
  }
  run.kernel_release = h.os_release;
  p.kallsyms = std::move(kernel.kallsyms);
  p.modules = std::move(kernel.modules);

  const KernelSymbols ks = KernelSymbols::parse(p.kallsyms, p.modules);
  ProfileSymbols named = symbolize_profile(counts, ks);
  for (const std::string& w : named.warnings) run.notices.push_back(w);

  Summary sm;
  sm.samples = sink.samples;
  sm.lost = sink.lost;
  sm.throttled = sink.throttled;
  sm.duration_ns = sink.samples ? sink.last_time - sink.first_time : 0;
  run.start_monotonic_ns = sink.first_time;
  if (st.cut_short) {
    sm.stop_reason = "perf record did not finish (the file's data size is 0): read " +
                     count_text(st.bytes_read) + " bytes of records" +
                     (st.problem.empty() ? "" : "; " + st.problem);
  } else if (!st.problem.empty()) {
    sm.stop_reason = "perf.data damaged: " + st.problem;
  } else {
    sm.stop_reason = "perf record finished";
  }
  if (st.cut_short || !st.problem.empty()) run.notices.push_back(sm.stop_reason);
  p.summary = sm;
  p.status.file_bytes = bytes.size();
  p.status.good_bytes = h.data_offset + st.bytes_read;
  p.status.complete = !st.cut_short && st.problem.empty();
  if (!p.status.complete) p.status.problem = sm.stop_reason;
  if (named.stacks) {
    p.stacks = std::move(named.stacks);
  } else {
    p.histogram = std::move(named.histogram);
  }

  if (writer) {
    // The run facts again, now with what reading found (a reader takes the
    // last Meta chunk), then what names the samples.
    writer->write_chunk(ChunkType::Meta, encode_run_info(run));
    writer->write_chunk(
        ChunkType::Kallsyms,
        std::span(reinterpret_cast<const uint8_t*>(p.kallsyms.data()), p.kallsyms.size()));
    writer->write_chunk(
        ChunkType::Modules,
        std::span(reinterpret_cast<const uint8_t*>(p.modules.data()), p.modules.size()));
    writer->write_chunk(ChunkType::Summary, encode_summary(sm));
    ProfileSymbols stored;
    stored.histogram = p.histogram ? *p.histogram : Histogram{};
    stored.stacks = p.stacks;
    write_profile_symbols(*writer, stored);
  }
  return p;
}

Profile listing_profile(TableListing listing, const std::string& name) {
  Profile p;
  p.path = name;
  RunInfo& run = p.run;
  run.format_version = kFormatVersion;
  run.source_format = listing.format;
  run.sample_counts = listing.has_counts;
  run.event.name = listing.event;
  if (listing.period) {
    run.event.use_freq = false;
    run.event.rate = *listing.period;
  }
  run.cpu_model = listing.cpu;
  run.target = "a pasted " + listing.format + " listing";
  run.notices.push_back("a " + listing.format + " listing: " +
                        (listing.has_counts
                             ? std::string("sample counts as listed")
                             : std::string("shares only (no sample counts: no noise verdicts)")) +
                        "; no run facts");
  for (const std::string& n : listing.notes) run.notices.push_back(n);
  if (listing.has_counts) {
    Summary sm;
    sm.samples = listing.total.value_or(listing.histogram.total_samples());
    sm.stop_reason = "listing";
    p.summary = sm;
  }
  // A top-N listing leaves rows out: what they held is one row, so every
  // share stays a share of the whole recording (as listed), not of the rows.
  const uint64_t whole = listing.has_counts ? listing.total.value_or(0) : 1000000;
  const uint64_t listed = listing.histogram.total_samples();
  if (whole > listed) {
    Histogram& h = listing.histogram;
    h.images.push_back({"[not listed]", ""});
    h.rows.push_back({static_cast<uint32_t>(h.images.size() - 1), "[not listed]", Mode::Unknown,
                      whole - listed, 0});
  }
  p.histogram = std::move(listing.histogram);
  p.status.complete = true;
  return p;
}

InputFormat file_format(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> head(4096);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return sniff_format(head);
}

namespace {
Profile load_bytes(std::vector<uint8_t> bytes, const std::string& name,
                   const ImportOptions& options) {
  const std::span<const uint8_t> head(bytes.data(), std::min<size_t>(bytes.size(), 4096));
  switch (sniff_format(head)) {
    case InputFormat::Kprof:
      return perfabi::load_profile_bytes(std::move(bytes), name);
    case InputFormat::PerfData:
      return import_perf_data(bytes, name, options);
    case InputFormat::Listing: {
      const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      return listing_profile(parse_listing(text, name), name);
    }
    case InputFormat::Unknown:
      break;
  }
  if (bytes.empty()) {
    throw Error(name +
                " is empty: not a kprof profile (was the recording killed before it started?)");
  }
  throw Error(name +
              " is not a kprof profile, a perf.data file, or an opreport / perf report listing");
}
}  // namespace

Profile load_any(const std::string& path, const ImportOptions& options) {
  const bool again = rereadable_input(path);
  const std::string name = path == "-" ? "stdin" : path;
  if (again) {
    switch (file_format(path)) {
      case InputFormat::Kprof: {  // read chunk by chunk, once
        ProfileReader reader = ProfileReader::open(path);
        return perfabi::load_profile(reader);
      }
      case InputFormat::PerfData: {  // may be large: read in place, not copied
        const MappedFile file = MappedFile::open(path);
        return import_perf_data(file.bytes(), path, options);
      }
      default:
        break;
    }
  }
  // Standard input, a pipe or FIFO: sniffed from its first bytes; a profile
  // is then read on from the stream once (its records counted as they go by,
  // in case it turns out cut short), anything else read whole.
  std::optional<InputFile> in;
  int fd = STDIN_FILENO;
  if (!again) {
    if (path == "-") {
      if (::isatty(STDIN_FILENO) == 1) {
        throw Error(
            "standard input is a terminal: pipe a profile in (ssh host cat x.kprof | kprof "
            "report -)");
      }
    } else {
      in.emplace(InputFile::open(path, "record one with kprof record -o " + path));
      fd = in->fd();
    }
    std::vector<uint8_t> head = read_fd(fd, name, 4096);
    if (sniff_format(head) == InputFormat::Kprof) {
      ProfileReader reader = ProfileReader::stream(fd, std::move(head), name);
      return perfabi::load_profile(reader);
    }
    std::vector<uint8_t> bytes = std::move(head);
    std::vector<uint8_t> rest = read_fd(fd, name);
    bytes.insert(bytes.end(), rest.begin(), rest.end());
    return load_bytes(std::move(bytes), name, options);
  }
  return load_bytes(read_file_bytes(path), name, options);
}

}  // namespace kprof::importer
