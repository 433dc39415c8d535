#include "report/record_keys.h"

#include <map>
#include <utility>

#include "core/error.h"

namespace kprof {
namespace {
// The key of every sample when leaves are not counted.
constexpr AddressCounts::Key kNoLeaf{AddressCounts::kNoMapping, Mode::Unknown, 0};
}  // namespace

size_t RecordKeyCounter::LabelKeyHash::operator()(const LabelKey& k) const noexcept {
  return AddressCounts::KeyHash{}(k.key) ^ (static_cast<size_t>(k.label) * 0x9e3779b97f4a7c15ULL);
}

RecordKeyCounter::RecordKeyCounter(RecordKey key, uint32_t leave_out_pid,
                                   const SampleFilter* filter, bool leaves)
    : key_(key), filter_(filter), leaves_(leaves) {
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
  const uint64_t id = key_ == RecordKey::Tid ? s.tid : s.cpu;
  auto [it, fresh] = label_ids_.try_emplace(id, static_cast<uint32_t>(labels_.size()));
  if (fresh) {
    if (key_ == RecordKey::Cpu) {
      labels_.push_back("cpu " + std::to_string(s.cpu));
    } else {
      const std::string_view name = threads_.of(s.tid);
      labels_.push_back(std::to_string(s.tid) + " " + std::string(name.empty() ? "?" : name));
    }
  }
  return it->second;
}

void RecordKeyCounter::on_sample(const Sample& s) {
  agg_.keys_of(s, keys_);
  if (keys_.empty()) return;  // not a CPU sample, or kprof's own
  ++seen_;
  if (filter_ != nullptr && !keeps_process(*filter_, s.pid, threads_.of(s.tid))) return;
  ++counted_;
  if (leaves_) agg_.on_sample(s);  // the leaf's address, to be named
  Counts& c = counts_[{label_of(s), leaves_ ? keys_.front() : kNoLeaf}];
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
  for (const auto& [lk, c] : counter.counts()) {
    const AddressNames::Name n = names(lk.key);
    if (!kept(n)) continue;
    const std::string function = functions ? std::string(n.function) : std::string();
    const Mode mode = functions
                          ? (lk.key.mapping != AddressCounts::kNoMapping ? Mode::User : lk.key.mode)
                          : Mode::Unknown;
    auto [it, fresh] = row_of.try_emplace({lk.label, {function, mode}}, h.rows.size());
    if (fresh) h.rows.push_back({lk.label, function, mode, 0, 0});
    h.rows[it->second].samples += c.samples;
    h.rows[it->second].period += c.period;
  }
  if (h.rows.empty()) {
    throw Error("no sample is left to count" +
                    (f != nullptr && !f->empty() ? " after " + f->describe() : std::string()),
                1);
  }
  return h;
}

}  // namespace kprof
