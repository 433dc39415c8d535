#include "report/record_keys.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "core/error.h"

namespace kprof {
namespace {

[[noreturn]] void throw_nothing_left(const SampleFilter* f) {
  throw Error("no sample is left to count" +
                  (f != nullptr && !f->empty() ? " after " + f->describe() : std::string()),
              1);
}

}  // namespace

size_t RecordKeyCounter::PairHash::operator()(uint64_t k) const noexcept {
  k ^= k >> 29;  // splitmix64's finaliser: the map indexes by the low bits
  k *= 0xbf58476d1ce4e5b9ULL;
  return k ^ (k >> 32);
}

RecordKeyCounter::RecordKeyCounter(RecordKey key, uint32_t leave_out_pid,
                                   const SampleFilter* filter, bool leaves)
    : key_(key),
      filter_(filter),
      by_process_(filter != nullptr && (!filter->comms.empty() || !filter->pids.empty())),
      leaves_(leaves) {
  agg_.leave_out(leave_out_pid);
}

void RecordKeyCounter::on_comm(const Comm& c) {
  agg_.on_comm(c);
  threads_.on_comm(c);
}

void RecordKeyCounter::on_fork(const Fork& f) {
  agg_.on_fork(f);
  threads_.on_fork(f);
}

uint32_t RecordKeyCounter::label_of(const Sample& s) {
  // Labels are numbered as first met, as the map's entries are.
  const uint32_t id = key_ == RecordKey::Tid ? s.tid : s.cpu;
  const uint32_t label = label_ids_.slot(id);
  if (label == labels_.size()) {
    if (key_ == RecordKey::Cpu) {
      labels_.push_back("cpu " + std::to_string(s.cpu));
    } else {
      const std::string_view name = threads_.of(s.tid);
      labels_.push_back(std::to_string(s.tid) + " " + std::string(name.empty() ? "?" : name));
    }
    if (!leaves_) by_label_.emplace_back();
  }
  return label;
}

void RecordKeyCounter::on_sample(const Sample& s) {
  if (!agg_.counted(s)) return;  // not a CPU sample, or kprof's own
  ++seen_;
  if (by_process_ && !keeps_process(*filter_, s.pid, threads_.of(s.tid))) return;
  ++counted_;
  const uint32_t label = label_of(s);
  Counts& c = leaves_ ? by_leaf_[uint64_t{agg_.count(s)} << 32 | label] : by_label_[label];
  ++c.samples;
  c.period += s.period;
}

Histogram record_key_histogram(const RecordKeyCounter& counter, const KernelSymbols& kernel,
                               UserSymbolResolver& user, bool functions) {
  const AddressNames names(counter.addresses(), kernel, user);
  const SampleFilter* f = counter.filter();
  auto kept = [&](const AddressNames::Name& n) {
    return f == nullptr || keeps_leaf(*f, n.image, n.function);
  };
  Histogram h;
  h.images.reserve(counter.labels().size());
  for (const std::string& label : counter.labels()) h.images.push_back({label, ""});
  std::map<std::pair<uint32_t, std::pair<std::string, Mode>>, size_t> row_of;
  counter.for_each([&](uint32_t label, const AddressCounts::Key* leaf, const Counts& c) {
    const AddressNames::Name n = leaf != nullptr ? names(*leaf) : AddressNames::Name{};
    if (leaf != nullptr && !kept(n)) return;
    const std::string function = functions ? std::string(n.function) : std::string();
    const Mode mode = !functions || leaf == nullptr                ? Mode::Unknown
                      : leaf->mapping != AddressCounts::kNoMapping ? Mode::User
                                                                   : leaf->mode;
    auto [it, fresh] = row_of.try_emplace({label, {function, mode}}, h.rows.size());
    if (fresh) h.rows.push_back({label, function, mode, 0, 0});
    h.rows[it->second].samples += c.samples;
    h.rows[it->second].period += c.period;
  });
  if (h.rows.empty()) throw_nothing_left(f);
  return h;
}

Histogram thread_table_histogram(const ThreadCounts& threads, const Histogram& flat,
                                 std::span<const uint32_t> rows, RecordKey key, bool functions,
                                 const SampleFilter& filter, uint64_t* kept, uint64_t* total) {
  // Whether each thread passes --comm and --pid, each leaf --dso and --symbol.
  std::vector<uint8_t> thread_kept(threads.threads.size()), leaf_kept(rows.size());
  for (size_t i = 0; i < threads.threads.size(); ++i) {
    const CountedThread& t = threads.threads[i];
    thread_kept[i] = keeps_process(filter, t.pid, t.name);
  }
  static const std::string kUnknown = "[unknown]";
  for (size_t i = 0; i < rows.size(); ++i) {
    const FunctionCount& r = flat.rows.at(rows[i]);
    const std::string& image = r.image < flat.images.size() ? flat.images[r.image].name : kUnknown;
    leaf_kept[i] = keeps_leaf(filter, image, r.function);
  }
  // --sort pid names a process as its main thread was last named (else as
  // its first thread seen); --sort comm, as perf, by each thread's name.
  std::map<uint32_t, const std::string*> process_name;
  std::map<std::string_view, uint32_t> comm_id;
  for (const CountedThread& t : threads.threads) {
    auto [it, fresh] = process_name.try_emplace(t.pid, &t.name);
    if (!fresh && t.tid == t.pid) it->second = &t.name;  // its main thread's latest name
    comm_id.try_emplace(t.name, static_cast<uint32_t>(comm_id.size()));
  }
  const auto nonempty = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  Histogram h;
  std::map<uint32_t, uint32_t> label_of;  // tid, cpu, pid or comm -> index into h.images
  std::map<std::tuple<uint32_t, std::string_view, Mode>, size_t> row_of;
  *kept = *total = 0;
  for (const ThreadCpuRow& r : threads.rows) {
    *total += r.samples;
    if (r.thread >= thread_kept.size() || r.leaf >= leaf_kept.size()) continue;  // rows_of
    const CountedThread& t = threads.threads[r.thread];
    if (!thread_kept[r.thread] || !leaf_kept[r.leaf] || !filter.records.keeps(t.tid, r.cpu)) {
      continue;
    }
    *kept += r.samples;
    const uint32_t id = key == RecordKey::Tid   ? t.tid
                        : key == RecordKey::Cpu ? r.cpu
                        : key == RecordKey::Pid ? t.pid
                                                : comm_id.at(t.name);
    auto [label, fresh_label] = label_of.try_emplace(id, h.images.size());
    if (fresh_label) {
      std::string name;
      switch (key) {
        case RecordKey::Tid:
          name = std::to_string(t.tid) + " " + nonempty(t.name);
          break;
        case RecordKey::Cpu:
          name = "cpu " + std::to_string(r.cpu);
          break;
        case RecordKey::Pid:
          name = std::to_string(t.pid) + " " + nonempty(*process_name.at(t.pid));
          break;
        case RecordKey::Comm:
          name = nonempty(t.name);
          break;
      }
      h.images.push_back({std::move(name), ""});
    }
    const FunctionCount& leaf = flat.rows[rows[r.leaf]];
    const std::string_view function = functions ? std::string_view(leaf.function) : "";
    const Mode mode = functions ? leaf.mode : Mode::Unknown;
    auto [row, fresh] = row_of.try_emplace({label->second, function, mode}, h.rows.size());
    if (fresh) h.rows.push_back({label->second, std::string(function), mode, 0, 0});
    h.rows[row->second].samples += r.samples;
    h.rows[row->second].period += r.period;
  }
  if (h.rows.empty()) throw_nothing_left(&filter);
  return h;
}

Histogram thread_table_selection(const ThreadCounts& threads, const Histogram& flat,
                                 std::span<const uint32_t> rows, const SampleSelection& selection,
                                 SelectingSink::Seen& seen, ThreadCounts* left) {
  std::vector<Counts> kept(flat.rows.size());
  seen = {};
  for (const ThreadCpuRow& r : threads.rows) {
    if (r.thread >= threads.threads.size() || r.leaf >= rows.size()) continue;  // rows_of
    const CountedThread& t = threads.threads[r.thread];
    seen.total += r.samples;
    seen.tids[t.tid] += r.samples;
    seen.cpus[r.cpu] += r.samples;
    seen.names[t.tid] = t.name;  // the last name (threads are in order of first sample)
    if (!selection.keeps(t.tid, r.cpu)) continue;
    seen.kept += r.samples;
    Counts& c = kept[rows[r.leaf]];
    c.samples += r.samples;
    c.period += r.period;
  }
  Histogram h;
  h.images = flat.images;
  for (size_t i = 0; i < flat.rows.size(); ++i) {
    if (kept[i].samples == 0) continue;
    const FunctionCount& r = flat.rows[i];
    h.rows.push_back({r.image, r.function, r.mode, kept[i].samples, kept[i].period});
  }
  std::stable_sort(
      h.rows.begin(), h.rows.end(),
      [](const FunctionCount& a, const FunctionCount& b) { return a.samples > b.samples; });
  if (left != nullptr) {
    // The rows kept are a subset of the flat table's, in the same name
    // order: a leaf's rank among them is the kept ranks below its own.
    std::vector<uint32_t> new_rank(rows.size());
    uint32_t next = 0;
    for (size_t rank = 0; rank < rows.size(); ++rank) {
      new_rank[rank] = next;
      if (kept[rows[rank]].samples != 0) ++next;
    }
    left->threads = threads.threads;
    left->rows.clear();
    for (const ThreadCpuRow& r : threads.rows) {
      if (r.thread >= threads.threads.size() || r.leaf >= rows.size()) continue;
      if (!selection.keeps(threads.threads[r.thread].tid, r.cpu)) continue;
      ThreadCpuRow copy = r;
      copy.leaf = new_rank[r.leaf];
      left->rows.push_back(copy);
    }
  }
  return h;
}

}  // namespace kprof
