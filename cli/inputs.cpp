#include "cli/inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <string_view>

#include "cli/parse.h"
#include "collector/kallsyms_cache.h"
#include "collector/procfs.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "core/sample_selection.h"
#include "perfabi/load.h"
#include "report/table.h"
#include "symbolizer/elf_resolver.h"
#include "symbolizer/profile_symbols.h"
#include "unwind/unwinder.h"

namespace kprof::cli {

void add_input_options(CLI::App& app, InputOptions& options) {
  app.add_option(
      "--event", options.event,
      "the event to show, of a recording of several (kprof record -e A,B) or a perf.data "
      "holding several (default: the first)");
  app.add_option("--kallsyms", options.kallsyms,
                 "perf.data: kernel symbols from this copy of the recording machine's "
                 "/proc/kallsyms (default: this machine's when it runs the same kernel, else "
                 "perf's build-id cache)");
}

void add_filter_options(CLI::App& app, SampleFilter& filter) {
  app.add_option("--comm", filter.comms,
                 "count only the samples of these processes (by name; comma-separated, or "
                 "repeated; -g profiles)")
      ->delimiter(',')
      ->type_name("COMM");
  app.add_option("--pid", filter.pids,
                 "count only the samples of these process ids (comma-separated; -g profiles)")
      ->delimiter(',')
      ->type_name("PID");
  app.add_option("--dso", filter.dsos,
                 "count only the samples that hit these images: a path, a file name "
                 "(libc.so.6) or [kernel.kallsyms] (comma-separated)")
      ->delimiter(',')
      ->type_name("IMAGE");
  app.add_option("--symbol", filter.symbols,
                 "count only the samples that hit this function (as --callers takes it; "
                 "repeat for several)")
      ->type_name("FUNC");
  app.add_option("--tid", filter.records.tids,
                 "count only the samples of these threads (comma-separated; from the "
                 "profile's per-thread table, else its records)")
      ->delimiter(',')
      ->type_name("TID");
  app.add_option_function<std::vector<std::string>>(
         "--cpu",
         [&filter](const std::vector<std::string>& items) {
           filter.records.cpus = parse_cpu_list(items);
         },
         "count only the samples taken on these CPUs (0-3,7; from the profile's per-thread "
         "table, else its records)")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option(
         "--time", filter.records.time,
         "count only the samples in this slice of the recording: START,END in seconds "
         "from its start (1.5,3; 5,; ,10) or in percent of its length (10%,20% or 10%-20%), as "
         "perf report --time (reads the recording's records again)")
      ->type_name("START,END");
}

importer::ImportOptions import_options(const InputOptions& options) {
  importer::ImportOptions o;
  o.event = options.event;
  o.kallsyms_file = options.kallsyms;
  o.per_thread = options.per_thread;
  o.running.release = collector::kernel_release();
  o.running.build_id = collector::kernel_build_id();
  // This boot's kallsyms as kprof record keeps it (collector/kallsyms_cache.h):
  // the kernel printing /proc/kallsyms again would be a third of reading a
  // large perf.data.
  o.running.kallsyms = [] {
    const collector::KallsymsCache cache(collector::KallsymsCache::default_dir());
    if (auto snapshot = cache.load(collector::read_modules())) return std::move(snapshot->text);
    collector::KallsymsSnapshot fresh = collector::read_kallsyms_snapshot();
    cache.store(fresh.chunk, collector::read_modules());
    return std::move(fresh.text);
  };
  o.running.kallsyms_now = [] { return collector::read_kallsyms(); };
  o.running.modules = [] { return collector::read_modules(); };
  // For a kprof profile cut short before its kernel symbols were written
  // (importer::with_boot_kallsyms): the snapshot its recording left here.
  o.running.boot_id = collector::current_boot_id();
  o.running.boot_kallsyms = [] {
    const collector::KallsymsCache cache(collector::KallsymsCache::default_dir());
    importer::RunningKernel::BootKallsyms b;
    b.path = cache.path();
    if (auto snapshot = cache.snapshot()) b.text = std::move(snapshot->text);
    return b;
  };
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir && *dir) {
    o.buildid_dir = dir;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    o.buildid_dir = std::string(home) + "/.debug";
  }
  return o;
}

bool use_color(const std::string& when) {
  if (when == "always") return true;
  if (when == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0') &&
         term != nullptr && std::string_view(term) != "dumb";
}

namespace {

// "filtered (--cpu 0): N of M samples (X%) kept, counted from the
// records|table; shares are of what remains".
std::string filtered_notice(const SampleFilter& filter, uint64_t kept, uint64_t total,
                            const char* from) {
  const double pct = total ? 100.0 * static_cast<double>(kept) / static_cast<double>(total) : 0;
  return "filtered (" + filter.describe() + "): " + format_count(kept) + " of " +
         format_count(total) + " samples (" + format_fixed(pct, pct < 10 ? 2 : 1) +
         "%) kept, counted from the " + from + "; shares are of what remains";
}

// "1234 postgres (5,678), …": the values of one key, heaviest first, at most 8.
std::string existing(const std::map<uint32_t, uint64_t>& counts,
                     const std::map<uint32_t, std::string>* names) {
  std::vector<std::pair<uint32_t, uint64_t>> v(counts.begin(), counts.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string out;
  for (size_t i = 0; i < v.size() && i < 8; ++i) {
    std::string name;
    if (names) {
      if (auto it = names->find(v[i].first); it != names->end()) name = " " + it->second;
    }
    out += (i ? ", " : "") + std::to_string(v[i].first) + name + " (" + format_count(v[i].second) +
           ")";
  }
  if (v.size() > 8) out += ", … " + format_count(v.size() - 8) + " more";
  return out;
}

uint64_t matched(const std::map<uint32_t, uint64_t>& counts, const std::vector<uint32_t>& want) {
  uint64_t n = 0;
  for (uint32_t x : want) {
    if (auto it = counts.find(x); it != counts.end()) n += it->second;
  }
  return n;
}

std::string seconds(uint64_t ns) {
  return format_fixed(static_cast<double>(ns) / 1e9, 2) + " s";
}

// Nothing kept: the key that matches nothing on its own, and what exists.
[[noreturn]] void nothing_selected(const SampleSelection& sel, const TimeRange& range,
                                   const SelectingSink::Seen& seen, uint64_t start_ns,
                                   const std::string& path) {
  const std::string in = " in " + path + " (" + format_count(seen.total) + " samples)";
  if (!sel.tids.empty() && matched(seen.tids, sel.tids) == 0) {
    throw Error("no samples match --tid " + join_numbers(sel.tids) + in +
                    "; these exist: " + existing(seen.tids, &seen.names),
                1);
  }
  if (!sel.cpus.empty() && matched(seen.cpus, sel.cpus) == 0) {
    throw Error("no samples match --cpu " + join_numbers(sel.cpus) + in +
                    "; these exist: " + existing(seen.cpus, nullptr),
                1);
  }
  const uint64_t first = seen.first_ns - std::min(seen.first_ns, start_ns);
  const uint64_t last = seen.last_ns - std::min(seen.last_ns, start_ns);
  if (!sel.time.empty() && (range.to_ns <= seen.first_ns || range.from_ns > seen.last_ns)) {
    throw Error("no samples in --time " + sel.time + in + ": they lie from " + seconds(first) +
                    " to " + seconds(last) + " after its start",
                1);
  }
  throw Error(
      "no samples match " + sel.describe() + " together" + in + " (each matches some on its own)",
      1);
}

// `what` ("--tid 12", "--timeline") reads the records of `path` again.
void need_records(const std::string& path, const std::string& what) {
  if (path == "-") {
    throw Error(what +
                    " reads the recording's records again: give the profile as a file, "
                    "not on standard input",
                2);
  }
  if (const importer::InputFormat f = importer::file_format(path);
      f != importer::InputFormat::Kprof) {
    throw Error(
        what + " reads a recording's records: " + path + " is a " + importer::input_format_name(f) +
            (f == importer::InputFormat::PerfData ? "; kprof import it to a .kprof file first"
                                                  : ", which keeps none"),
        2);
  }
}

TimeRange time_range_of(const Profile& p, const SampleSelection& sel) {
  if (sel.time.empty()) return {};
  return parse_time_range(sel.time, p.run.start_monotonic_ns,
                          p.summary ? p.summary->duration_ns : 0);
}

// --tid and --cpu of a flat profile that stores its ThreadCounts: its
// histogram made from them (thread_table_selection), for a view that needs
// no time slices or peaks. false: this profile needs its records read.
bool select_from_table(Profile& p, const std::string& path, const SampleSelection& sel,
                       std::vector<std::string>& notes) {
  if (sel.empty() || !sel.time.empty() || p.event_shown != 0 || !p.threads || !p.histogram ||
      !p.histogram_usable()) {
    return false;
  }
  const auto rows = p.threads->rows_of(*p.histogram);
  if (!rows) return false;
  SelectingSink::Seen seen;
  ThreadCounts left;
  Histogram h = thread_table_selection(*p.threads, *p.histogram, *rows, sel, seen, &left);
  if (seen.kept == 0) nothing_selected(sel, {}, seen, p.run.start_monotonic_ns, path);
  p.histogram = std::move(h);
  p.threads = std::move(left);  // for --comm and --pid after
  SampleFilter f;
  f.records = sel;
  std::string notice = filtered_notice(f, seen.kept, seen.total, "per-thread table");
  if (p.off_cpu) {
    p.off_cpu.reset();
    notice += "; time off CPU is left out (" + sel.describe() + " does not slice it)";
  }
  p.run.notices.push_back(notice);
  notes.push_back(std::move(notice));
  return true;
}

// What the view after a recount needs besides the rows' counts.
struct RecountNeeds {
  bool slices = true;    // time slices and peaks: the records are read, not the per-thread table
  bool threads = false;  // per-thread counts, for --comm and --pid of a flat profile after
};

// --tid, --cpu, --time (see load_filtered).
void select_records(Profile& p, const std::string& path, const InputOptions& options,
                    const SampleSelection& sel, std::vector<std::string>& notes,
                    RecountNeeds needs = {}) {
  const std::string what = sel.empty() ? "--event " + p.run.event.name : sel.describe();
  if (!needs.slices && select_from_table(p, path, sel, notes)) return;
  need_records(path, what);
  if (!p.histogram_usable()) {
    throw Error(path + " is cut short (its records counted again as read): " + what +
                    " needs its samples named; kprof symbolize it first",
                2);
  }
  // The images the stored table names are read on a second thread while the
  // records are walked, so naming what the walk counted only looks names up.
  ElfResolverOptions elf_options;
  elf_options.buildid_cache = import_options(options).buildid_dir;
  ElfResolver elf(std::move(elf_options));
  const std::vector<Image>* images = p.histogram ? &p.histogram->images
                                     : p.stacks  ? &p.stacks->images
                                                 : nullptr;
  // (A std::async future waits for its thread when it goes: declared after
  // `elf`, it goes first, also when the walk throws.)
  std::future<void> preloaded;
  if (images != nullptr) {
    preloaded = std::async(std::launch::async, [&elf, images] {
      for (const Image& image : *images) elf.preload(image.name, image.build_id);
    });
  }
  const TimeRange range = time_range_of(p, sel);
  // As read_profile counts a file cut short: the same aggregation. The
  // Records chunks wholly outside --time are passed over (their samples
  // still count in what the recording holds), unless nothing is kept: then
  // every chunk is read, so the error names what exists.
  std::optional<AddressAggregator> agg;
  SelectingSink::Seen seen;
  auto walk = [&](bool pass_over) {
    agg.emplace(p.run.event.callchains);
    agg->leave_out(p.run.recorder_pid);
    if (is_clock_event(p.run.event)) agg->weigh_by_cpu_time();
    if (needs.threads) agg->count_threads();  // for --comm and --pid of a flat profile after
    SelectingSink sink(*agg, sel, range, p.event_shown);
    // Stack copies still in the file (--keep-stacks, or cut short) are
    // unwound as kprof record does.
    std::optional<unwind::Unwinder> unwinder;
    if (p.run.event.user_stack_bytes != 0) unwinder.emplace(sink, p.run.event.user_stack_bytes);
    const Profile read = perfabi::load_profile(
        path, {.records = unwinder ? static_cast<RecordSink*>(&*unwinder) : &sink,
               .tables = false,
               .kernel_symbols = false,
               .records_in = pass_over ? std::optional<TimeRange>(range) : std::nullopt});
    seen = sink.seen();
    const RecordsSpan& passed = read.records_passed_over;
    seen.total += passed.samples;
    if (passed.samples != 0) {
      seen.first_ns = std::min(seen.first_ns, passed.first_ns);
      seen.last_ns = std::max(seen.last_ns, passed.last_ns);
    }
    return read.status.skipped_unread;
  };
  // Another event's samples are not summed by the index: all are read.
  const bool passed_over = walk(!sel.time.empty() && p.event_shown == 0) != 0;
  if (passed_over && seen.kept == 0) walk(false);
  if (seen.total == 0 && p.event_shown != 0) {
    throw Error("no samples of event '" + p.run.event.name + "' in " + path, 1);
  }
  if (seen.total == 0) {
    throw Error(path + " keeps no samples in its records (a listing's import?): " + what +
                    " cannot pick any",
                2);
  }
  if (seen.kept == 0) nothing_selected(sel, range, seen, p.run.start_monotonic_ns, path);
  if (preloaded.valid()) preloaded.get();

  const KernelSymbols kernel = KernelSymbols::parse(p.kallsyms, p.modules);
  ProfileSymbols named =
      symbolize_profile(agg->counts(), kernel, p.histogram ? &*p.histogram : nullptr, elf);
  if (named.stacks) {
    p.stacks = std::move(named.stacks);
    p.histogram.reset();
  } else {
    p.histogram = std::move(named.histogram);
    p.stacks.reset();
  }
  p.threads = std::move(named.threads);  // none unless needs.threads
  const double pct = 100.0 * static_cast<double>(seen.kept) / static_cast<double>(seen.total);
  std::string notice =
      sel.empty()
          ? "event " + p.run.event.name + ": " + format_count(seen.kept) +
                " samples, counted from the records and named from this machine's binaries"
          : "filtered (" + what + "): " + format_count(seen.kept) + " of " +
                format_count(seen.total) + " samples (" + format_fixed(pct, pct < 10 ? 2 : 1) +
                "%) kept, counted again from the records and named from this "
                "machine's binaries; shares are of what remains";
  if (p.off_cpu) {
    p.off_cpu.reset();
    notice += "; time off CPU is left out (" +
              (sel.empty() ? "it is shown with the first event" : what + " does not slice it") +
              ")";
  }
  for (std::string& w : named.warnings) {
    p.run.notices.push_back(w);
    notes.push_back(std::move(w));
  }
  p.run.notices.push_back(notice);
  notes.push_back(std::move(notice));
}

// load_input without counting a picked event's records: true when --event
// picked one that needs them counted (select_records).
Profile load_unpicked(const std::string& path, const InputOptions& options, bool* recount) {
  // Opening a FIFO waits for its writer: say so rather than hang silently.
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode) &&
      ::isatty(STDERR_FILENO) == 1) {
    std::fprintf(stderr, "kprof: %s is a FIFO: waiting for a writer to send the profile\n",
                 path.c_str());
  }
  const importer::ImportOptions o = import_options(options);
  Profile p = importer::with_boot_kallsyms(importer::load_any(path, o), o.running);
  *recount = pick_event(p, path, options.event);
  return p;
}

}  // namespace

Profile load_input(const std::string& path, const InputOptions& options) {
  bool recount = false;
  Profile p = load_unpicked(path, options, &recount);
  if (recount) {
    std::vector<std::string> notes;
    select_records(p, path, options, {}, notes);
  }
  return p;
}

bool pick_event(Profile& p, const std::string& path, const std::string& wanted) {
  if (wanted.empty() || !p.run.source_format.empty()) return false;
  const auto is = [&](const EventInfo& e) { return e.name == wanted || e.requested == wanted; };
  if (is(p.run.event)) return false;
  for (size_t k = 0; k < p.run.more_events.size(); ++k) {
    if (!is(p.run.more_events[k])) continue;
    std::swap(p.run.event, p.run.more_events[k]);
    p.event_shown = static_cast<uint32_t>(k + 1);
    return true;
  }
  std::string names = p.run.event.name;
  for (const EventInfo& e : p.run.more_events) names += ", " + e.name;
  throw Error(
      path + " has no event '" + wanted + "'; it holds: " + names + " (pick one with --event NAME)",
      1);
}

void add_event_option(CLI::App& app, std::string& event) {
  app.add_option("--event", event,
                 "the event to show, of a recording of several (kprof record -e A,B; default: "
                 "the first)");
}

void read_records(const std::string& path, const Profile& p, const SampleFilter& filter,
                  RecordSink& sink, const std::string& what, bool unwind_stacks) {
  need_records(path, what);
  SelectingSink selecting(sink, filter.records, time_range_of(p, filter.records), p.event_shown);
  std::optional<unwind::Unwinder> unwinder;
  if (unwind_stacks && p.run.event.user_stack_bytes != 0) {
    unwinder.emplace(selecting, p.run.event.user_stack_bytes);
  }
  // The records alone: `p` holds the rest already.
  perfabi::load_profile(path,
                        {.records = unwinder ? static_cast<RecordSink*>(&*unwinder) : &selecting,
                         .tables = false,
                         .kernel_symbols = false});
}

ElfResolverOptions resolver_options(const InputOptions& options) {
  ElfResolverOptions elf;
  elf.buildid_cache = import_options(options).buildid_dir;
  return elf;
}

Histogram record_key_table(const std::string& path, Profile& p, const SampleFilter& filter,
                           const InputOptions& options, RecordKey key, bool functions) {
  // The stored table answers every key but --time (and another event's samples).
  if (p.threads && filter.records.time.empty() && p.event_shown == 0 && p.histogram_usable()) {
    const Histogram flat = p.histogram ? *p.histogram : leaf_histogram(*p.stacks);
    if (const auto rows = p.threads->rows_of(flat)) {
      uint64_t kept = 0, total = 0;
      Histogram h =
          thread_table_histogram(*p.threads, flat, *rows, key, functions, filter, &kept, &total);
      if (!filter.empty())
        p.run.notices.push_back(filtered_notice(filter, kept, total, "per-thread table"));
      return h;
    }
  }
  if (key == RecordKey::Pid || key == RecordKey::Comm) {
    throw Error(
        std::string("--sort ") + (key == RecordKey::Pid ? "pid" : "comm") + ": " + path +
            (p.threads ? " keeps its processes in a per-thread table that " +
                             (!filter.records.time.empty() ? "--time does not slice"
                                                           : std::string("--event does not count"))
                       : std::string(" keeps no processes (a flat profile from an older "
                                     "kprof, or an import)")) +
            ": record with -g, whose stacks keep each sample's process",
        2);
  }
  // Names only where a row or a filter shows them.
  const bool named = functions || !filter.dsos.empty() || !filter.symbols.empty();
  RecordKeyCounter counter(key, p.run.recorder_pid, &filter, named);
  read_records(path, p, filter, counter, key == RecordKey::Tid ? "--sort tid" : "--sort cpu");
  Histogram h;
  if (!named) {
    NullUserResolver none;
    h = record_key_histogram(counter, KernelSymbols::parse("", ""), none, false);
  } else {
    const KernelSymbols kernel = KernelSymbols::parse(p.kallsyms, p.modules);
    ElfResolver resolver(resolver_options(options));
    h = record_key_histogram(counter, kernel, resolver, functions);
    for (const std::string& w : resolver.warnings()) {
      std::fprintf(stderr, "kprof: warning: %s\n", w.c_str());
    }
  }
  if (!filter.empty()) {
    p.run.notices.push_back(filtered_notice(filter, h.total_samples(), counter.seen(), "records"));
  }
  return h;
}

void check_off_cpu_filter(bool off_cpu, const SampleFilter& filter) {
  if (!off_cpu || filter.records.empty()) return;
  throw Error("--off-cpu is not sliced by " + filter.records.describe() +
                  ": the recorded time off CPU keeps no threads' or CPUs' times; filter it by "
                  "--comm, --pid, --dso or --symbol",
              2);
}

Profile load_filtered(const std::string& path, const InputOptions& options,
                      const SampleFilter& filter, std::vector<std::string>* notes,
                      bool slices_needed) {
  // The records are counted once: for --tid, --cpu or --time when given
  // (of the event picked), else for a picked event alone.
  bool recount = false;
  Profile p = load_unpicked(path, options, &recount);
  std::vector<std::string> added, event_notes;
  if (!filter.records.empty()) {
    select_records(
        p, path, options, filter.records, added,
        {.slices = slices_needed, .threads = !filter.comms.empty() || !filter.pids.empty()});
  } else if (recount) {
    select_records(p, path, options, {}, event_notes);
  }
  if (!filter.table_keys_empty()) {
    apply_filter(p, filter);
    added.push_back(p.run.notices.back());
  }
  if (notes) notes->insert(notes->end(), added.begin(), added.end());
  return p;
}

}  // namespace kprof::cli
