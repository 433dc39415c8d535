#include "report/record_keys.h"

#include <map>
#include <utility>

#include "core/error.h"

namespace kprof {

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
  if (h.rows.empty()) {
    throw Error("no sample is left to count" +
                    (f != nullptr && !f->empty() ? " after " + f->describe() : std::string()),
                1);
  }
  return h;
}

}  // namespace kprof
