#include "core/aggregate.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <map>
#include <tuple>

namespace kprof {

size_t AddressCounts::KeyHash::operator()(const Key& k) const noexcept {
  // splitmix64 finalizer over the packed key: ips are aligned and clustered,
  // so their low bits alone hash poorly.
  uint64_t x =
      k.ip ^ (static_cast<uint64_t>(k.mapping) << 32) ^ (static_cast<uint64_t>(k.mode) << 24);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<size_t>(x);
}

size_t AddressCounts::StackKeyHash::operator()(const StackKey& k) const noexcept {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ k.pid;
  for (uint32_t id : k.frames) {
    h ^= id + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return static_cast<size_t>(h);
}

uint32_t AddressAggregator::mapping_index(Map& m) {
  if (m.mapping == AddressCounts::kNoMapping) {
    m.mapping = static_cast<uint32_t>(counts_.mappings.size());
    counts_.mappings.push_back(m.mmap);
  }
  return m.mapping;
}

void AddressAggregator::on_mmap(const Mmap& m) {
  maps_changed();
  if (m.len == 0) return;
  const uint64_t start = m.start;
  const uint64_t end = m.start + m.len < m.start ? UINT64_MAX : m.start + m.len;
  auto& maps = maps_[m.pid];
  // Maps never overlap, so both starts and ends are sorted: [first, last) are
  // the maps the new one overlaps.
  auto first = std::partition_point(maps.begin(), maps.end(),
                                    [&](const Map& old) { return old.end <= start; });
  auto last =
      std::partition_point(first, maps.end(), [&](const Map& old) { return old.start < end; });
  // The new mapping replaces the overlapped parts. Kept pieces keep their Mmap
  // (and mapping index): its start and pgoff still give the load bias.
  std::vector<Map> pieces;
  for (auto it = first; it != last; ++it) {
    Map& old = *it;
    if (old.start < start && old.end > end) mapping_index(old);  // both pieces share one index
    if (old.start < start) pieces.push_back({old.start, start, old.mapping, old.mmap});
  }
  pieces.push_back({start, end, AddressCounts::kNoMapping, m});
  if (first != last) {
    Map& old = *std::prev(last);
    if (old.end > end) pieces.push_back({end, old.end, old.mapping, std::move(old.mmap)});
  }
  const auto at = maps.erase(first, last);
  maps.insert(at, std::make_move_iterator(pieces.begin()), std::make_move_iterator(pieces.end()));
}

void AddressAggregator::on_comm(const Comm& c) {
  maps_changed();
  if (counts_.threads) counts_.threads->on_comm(c);
  if (c.exec) maps_.erase(c.pid);
  // A process's name is its main thread's; other threads' names only stand in.
  auto [it, inserted] = counts_.comms.try_emplace(c.pid, c.comm);
  if (!inserted && (c.tid == c.pid || c.exec)) it->second = c.comm;
}

void AddressAggregator::on_fork(const Fork& f) {
  maps_changed();
  if (counts_.threads) counts_.threads->on_fork(f);
  if (f.pid == f.ppid) return;  // a new thread shares its process's maps
  // A forked process keeps its parent's name until it execs or renames
  // itself (postgres backends, forked by the postmaster): no COMM says so.
  if (auto name = counts_.comms.find(f.ppid); name != counts_.comms.end()) {
    std::string copy = name->second;  // copy first: inserting may rehash
    counts_.comms.try_emplace(f.pid, std::move(copy));
  }
  auto child = maps_.find(f.pid);
  if (child != maps_.end() && !child->second.empty()) return;
  auto parent = maps_.find(f.ppid);
  if (parent == maps_.end()) return;
  std::vector<Map> copy = parent->second;  // copy first: inserting may rehash
  maps_[f.pid] = std::move(copy);
}

void AddressAggregator::on_exit(const Fork& f) {
  maps_changed();
  if (f.pid == f.tid) maps_.erase(f.pid);
  if (weights_) weights_->on_exit(f.tid);
}

void AddressAggregator::on_switch(const Switch& w) {
  if (!weigh_) return;
  if (!weights_) weights_.emplace();
  weights_->on_switch(w);
}

void AddressAggregator::on_lost(const Lost& l) {
  counts_.lost += l.count;
}

uint32_t AddressAggregator::mapping_of(uint32_t pid, uint64_t ip) {
  // Consecutive samples are mostly of one process in one mapping: try the
  // last one found, then the same process's maps (a stack's frames are in
  // several mappings of one process), before looking the process up. Two
  // processes are remembered: two CPUs' samples interleave in the records.
  std::vector<Map>* maps = nullptr;
  if (last_[0].maps == nullptr || last_[0].pid != pid) {
    if (last_[1].maps != nullptr && last_[1].pid == pid) std::swap(last_[0], last_[1]);
  }
  LastMap& last = last_[0];
  if (last.maps != nullptr && last.pid == pid) {
    if (last.index < last.maps->size()) {
      Map& m = (*last.maps)[last.index];
      if (ip >= m.start && ip < m.end) return mapping_index(m);
    }
    maps = last.maps;
  } else {
    auto it = maps_.find(pid);
    if (it == maps_.end()) return AddressCounts::kNoMapping;
    maps = &it->second;
    last_[1] = last;
  }
  auto m = std::upper_bound(maps->begin(), maps->end(), ip,
                            [](uint64_t ip, const Map& m) { return ip < m.start; });
  if (m == maps->begin() || ip >= std::prev(m)->end) return AddressCounts::kNoMapping;
  last = {pid, maps, static_cast<size_t>(std::prev(m) - maps->begin())};
  return mapping_index(*std::prev(m));
}

uint32_t AddressAggregator::count(const Sample& s) {
  if (s.kind != SampleKind::Cpu) return kNotCounted;  // --off-cpu's switch and wakeup samples
  if (left_out_pid_ != 0 && s.pid == left_out_pid_) {
    ++counts_.left_out;
    return kNotCounted;
  }
  ++counts_.samples;
  const uint64_t period = weights_ ? weights_->period_of(s) : s.period;
  const uint32_t pid = s.mode == Mode::User ? s.pid : 0;
  uint64_t h = s.ip ^ (static_cast<uint64_t>(pid) << 32) ^ (static_cast<uint64_t>(s.mode) << 24);
  h = (h * 0x9e3779b97f4a7c15ULL) >> (64 - kRecentLog2);  // Fibonacci hashing: the top bits
  Recent& r = recent_[h];
  if (r.gen != recent_gen_ || r.ip != s.ip || r.pid != pid || r.mode != s.mode) {
    const AddressCounts::Key key =
        s.mode == Mode::User ? user_key(mapping_of(s.pid, s.ip), s.ip)
                             : AddressCounts::Key{AddressCounts::kNoMapping, s.mode, s.ip};
    r = {s.ip, pid, recent_gen_, key.mapping, counts_.counts.slot(key), s.mode};
  }
  Counts& c = counts_.counts.entry(r.entry).second;
  counts_.slices.add(r.entry);
  ++c.samples;
  c.period += period;
  if (counts_.with_stacks) add_stack(s, r.mapping, period);
  if (counts_.threads) counts_.threads->add(s, r.entry, period);
  return r.entry;
}

void AddressAggregator::keys_of(const Sample& s, std::vector<AddressCounts::Key>& out) {
  out.clear();
  if (!counted(s)) return;
  // As on_sample and add_stack take them, in the same order (mappings are
  // numbered as they are first met).
  const uint32_t leaf_mapping =
      s.mode == Mode::User ? mapping_of(s.pid, s.ip) : AddressCounts::kNoMapping;
  out.push_back(s.mode == Mode::User ? user_key(leaf_mapping, s.ip)
                                     : AddressCounts::Key{leaf_mapping, s.mode, s.ip});
  if (counts_.with_stacks) caller_keys(s, out);
}

uint32_t AddressAggregator::frame_id(const AddressCounts::Key& key) {
  const size_t known = frame_ids_.size();
  const uint32_t entry = frame_ids_.slot(key);
  if (entry == known) {  // a new frame
    frame_ids_.entry(entry).second = static_cast<uint32_t>(counts_.frames.size());
    counts_.frames.push_back(key);
  }
  return frame_ids_.entry(entry).second;
}

namespace {
// x86-64 and arm64 kernels live in the upper half of the address space: how
// a frame's mode is told in files written before kernel_frames was stored.
constexpr uint64_t kKernelHalf = 0xffff800000000000ULL;
}  // namespace

void AddressAggregator::caller_keys(const Sample& s, std::vector<AddressCounts::Key>& out) {
  // The leaf is the sampled ip (the histogram's row), whether or not the
  // chain repeats it.
  const bool chain_has_leaf = !s.callchain.empty() && s.callchain.front() == s.ip;
  for (size_t i = chain_has_leaf ? 1 : 0; i < s.callchain.size(); ++i) {
    const uint64_t ip = s.callchain[i];
    if (!s.kernel_frames_known && ip == kStackJoint) {  // joined chains are told by address
      out.push_back({AddressCounts::kNoMapping, Mode::Unknown, kStackJoint});
      continue;
    }
    const bool kernel = s.kernel_frames_known ? i < s.kernel_frames : ip >= kKernelHalf;
    const uint64_t site = ip - 1;  // a return address: the call is just before it
    if (kernel) {
      out.push_back({AddressCounts::kNoMapping, Mode::Kernel, site});
    } else {
      out.push_back(user_key(mapping_of(s.pid, site), site));
    }
  }
}

AddressAggregator::RecentStack& AddressAggregator::recent_stack(const Sample& s) {
  // Rotate and xor per frame, mixed once at the end: cheap enough for a
  // cache of 64.
  uint64_t h = s.ip ^ (uint64_t{s.pid} << 32) ^ (uint64_t{s.kernel_frames} << 8) ^
               static_cast<uint64_t>(s.mode);
  for (uint64_t ip : s.callchain) h = std::rotl(h, 7) ^ ip;
  h *= 0x9e3779b97f4a7c15ULL;
  return recent_stacks_[h >> (64 - kRecentStacksLog2)];
}

void AddressAggregator::add_stack(const Sample& s, uint32_t leaf_mapping, uint64_t period) {
  const ChainOf of{s.pid, s.ip, s.mode, s.kernel_frames_known, s.kernel_frames};
  RecentStack* recent = cache_stacks_ ? &recent_stack(s) : nullptr;
  if (recent != nullptr && recent->gen == recent_gen_ && recent->of == of &&
      recent->chain == s.callchain) {
    if (recent->counts != nullptr) {
      ++recent->counts->samples;
      recent->counts->period += period;
    }
    return;
  }
  keys_.clear();
  keys_.push_back(s.mode == Mode::User ? user_key(leaf_mapping, s.ip)
                                       : AddressCounts::Key{leaf_mapping, s.mode, s.ip});
  caller_keys(s, keys_);
  AddressCounts::StackKey& key = scratch_;
  key.pid = s.pid;
  key.frames.clear();
  for (const AddressCounts::Key& k : keys_) key.frames.push_back(frame_id(k));
  Counts* counts = frames_only_ ? nullptr : &counts_.stacks[key];
  if (counts != nullptr) {
    ++counts->samples;
    counts->period += period;
  }
  if (recent != nullptr) *recent = {recent_gen_, of, s.callchain, counts};
}

std::string image_name_for(const Mmap& m) {
  std::string name = m.filename;
  constexpr std::string_view kDeleted = " (deleted)";
  if (name.ends_with(kDeleted)) name.resize(name.size() - kDeleted.size());
  const bool jit_hint =
      name.find("jit") != std::string::npos || name.find("JIT") != std::string::npos;
  if ((name.starts_with("/tmp/perf-") && name.ends_with(".map")) ||
      ((name.starts_with("[anon:") || name.starts_with("/memfd:")) && jit_hint)) {
    return "[jit]";
  }
  if (name.empty() || name == "//anon" || name.starts_with("[anon:") || name == "/anon_hugepage" ||
      name.starts_with("/SYSV")) {
    return "[anon]";
  }
  if (name.starts_with("[stack")) return "[stack]";
  return name;
}

namespace {

bool is_kernel_mode(Mode m) {
  return m == Mode::Kernel || m == Mode::Hypervisor || m == Mode::GuestKernel;
}

// Merges rows per (image, function, mode) and images per name.
class HistogramBuilder {
 public:
  uint32_t image(std::string_view name, std::string_view build_id) {
    auto it = images_.find(name);
    if (it == images_.end()) {
      it = images_.emplace(std::string(name), static_cast<uint32_t>(h_.images.size())).first;
      h_.images.push_back({std::string(name), std::string(build_id)});
    }
    Image& im = h_.images[it->second];
    if (im.build_id.empty()) im.build_id = build_id;
    return it->second;
  }
  // `ip`: the one address all of `c` fell at, when known (0: not known);
  // `slices`: c's samples over the recording's time slices (or none).
  void add(uint32_t image, std::string_view function, Mode mode, const Counts& c, uint64_t ip = 0,
           std::span<const uint32_t> slices = {}) {
    auto [it, inserted] =
        rows_.try_emplace(std::make_tuple(image, std::string(function), mode), h_.rows.size());
    if (inserted) {
      h_.rows.push_back({image, std::string(function), mode, 0, 0});
      h_.rows.back().slices.assign(slices.size(), 0);
    }
    FunctionCount& row = h_.rows[it->second];
    for (size_t j = 0; j < slices.size() && j < row.slices.size(); ++j) row.slices[j] += slices[j];
    row.samples += c.samples;
    row.period += c.period;
    if (ip && c.samples > row.peak_samples) {
      row.peak_samples = c.samples;
      row.peak_ip = ip;
    }
  }
  Histogram take() {
    // Heaviest first, then by name: stable output for tests and diffs.
    std::sort(h_.rows.begin(), h_.rows.end(), [](const FunctionCount& a, const FunctionCount& b) {
      return std::tie(b.samples, a.image, a.function, a.mode) <
             std::tie(a.samples, b.image, b.function, b.mode);
    });
    return std::move(h_);
  }

 private:
  Histogram h_;
  std::map<std::string, uint32_t, std::less<>> images_;
  std::map<std::tuple<uint32_t, std::string, Mode>, size_t> rows_;
};

}  // namespace

bool kernel_ips_in_boot_static_text(const AddressCounts& counts, const KernelSymbols& kernel) {
  for (const auto& [key, c] : counts.counts) {
    if (is_kernel_mode(key.mode) && !kernel.in_boot_static_text(key.ip)) return false;
  }
  return true;
}

AddressNames::AddressNames(const AddressCounts& counts, const KernelSymbols& kernel,
                           UserSymbolResolver& user)
    : kernel_(kernel),
      ips_(counts.mappings.size()),
      names_(counts.mappings.size()),
      images_(counts.mappings.size()),
      build_ids_(counts.mappings.size()) {
  auto collect = [&](const AddressCounts::Key& k) {
    if (k.mapping != AddressCounts::kNoMapping && k.mapping < ips_.size())
      ips_[k.mapping].push_back(k.ip);
  };
  for (const auto& [key, c] : counts.counts) collect(key);
  for (const AddressCounts::Key& key : counts.frames) collect(key);
  for (size_t i = 0; i < ips_.size(); ++i) {
    auto& ips = ips_[i];
    if (ips.empty()) continue;
    std::sort(ips.begin(), ips.end());
    ips.erase(std::unique(ips.begin(), ips.end()), ips.end());
    const Mmap& m = counts.mappings[i];
    std::string build_id;
    names_[i] = user.resolve(m, ips, &build_id);
    images_[i] = image_name_for(m);
    build_ids_[i] = build_id.empty() ? m.build_id : build_id;
  }
}

AddressNames::Name AddressNames::operator()(const AddressCounts::Key& key) const {
  if (key.mapping != AddressCounts::kNoMapping && key.mapping < ips_.size()) {
    const auto& ips = ips_[key.mapping];
    const auto& names = names_[key.mapping];
    const size_t k = std::lower_bound(ips.begin(), ips.end(), key.ip) - ips.begin();
    const bool named = k < ips.size() && ips[k] == key.ip && k < names.size() && !names[k].empty();
    return {images_[key.mapping], build_ids_[key.mapping], named ? names[k] : kUnknown};
  }
  if (key.mode == Mode::Unknown && key.ip == kStackJoint) {
    return {kStackJointImage, "", kStackJointFrame};
  }
  if (is_kernel_mode(key.mode)) {
    const auto hit = kernel_.lookup(key.ip);
    return {hit.image, "", hit.function};
  }
  return {kUnknown, "", kUnknown};
}

namespace {

// Interns images by name, frames by (image, function, mode) and processes
// by pid for a Stacks table.
class StacksBuilder {
 public:
  uint32_t frame(const AddressNames::Name& n, Mode mode) {
    auto im = images_.find(n.image);
    if (im == images_.end()) {
      im = images_.emplace(std::string(n.image), static_cast<uint32_t>(st_.images.size())).first;
      st_.images.push_back({std::string(n.image), std::string(n.build_id)});
    }
    Frame f{im->second, std::string(n.function), mode};
    auto [it, inserted] = frames_.try_emplace(f, static_cast<uint32_t>(st_.frames.size()));
    if (inserted) st_.frames.push_back(std::move(f));
    return it->second;
  }
  uint32_t process(uint32_t pid, const boost::container::flat_map<uint32_t, std::string>& comms) {
    auto [it, inserted] = processes_.try_emplace(pid, static_cast<uint32_t>(st_.processes.size()));
    if (inserted) {
      auto c = comms.find(pid);
      st_.processes.push_back({pid, c != comms.end() ? c->second
                                    : pid == 0       ? std::string("swapper")
                                                     : std::string()});
    }
    return it->second;
  }
  Stacks& stacks() { return st_; }

 private:
  Stacks st_;
  std::map<std::string, uint32_t, std::less<>> images_;
  std::map<Frame, uint32_t> frames_;
  std::map<uint32_t, uint32_t> processes_;
};

Stacks build_stacks(const AddressCounts& counts, const AddressNames& names) {
  StacksBuilder b;
  std::vector<uint32_t> frame_of(counts.frames.size());
  for (size_t i = 0; i < counts.frames.size(); ++i) {
    const AddressCounts::Key& k = counts.frames[i];
    frame_of[i] = b.frame(names(k), k.mode);
  }
  // Distinct address stacks can name the same function stack (two ips in one
  // function): merge them.
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, Counts> merged;
  for (const auto& [key, c] : counts.stacks) {
    std::vector<uint32_t> frames;
    frames.reserve(key.frames.size());
    for (uint32_t id : key.frames) frames.push_back(id < frame_of.size() ? frame_of[id] : 0);
    Counts& m = merged[{b.process(key.pid, counts.comms), std::move(frames)}];
    m.samples += c.samples;
    m.period += c.period;
  }
  // Each leaf's samples over the time slices: the sampled addresses' (every
  // sample's address is its stack's leaf frame), when they hold every sample.
  std::vector<std::pair<uint32_t, std::span<const uint32_t>>> leaf_slices;
  if (counts.slices.samples() == counts.samples && counts.samples > 0) {
    uint32_t entry = 0;
    for (const auto& [key, c] : counts.counts) {
      leaf_slices.emplace_back(b.frame(names(key), key.mode), counts.slices.of(entry++));
    }
  }
  Stacks& st = b.stacks();
  st.stacks.reserve(merged.size());
  for (auto& [key, c] : merged) st.stacks.push_back({key.first, key.second, c.samples, c.period});
  if (!leaf_slices.empty()) {
    st.leaf_slices.resize(st.frames.size());
    for (const auto& [frame, slices] : leaf_slices) add_slices(st.leaf_slices[frame], slices);
  }
  // Heaviest first, as the histogram's rows.
  std::stable_sort(st.stacks.begin(), st.stacks.end(),
                   [](const Stack& a, const Stack& b) { return a.samples > b.samples; });
  mend_broken_chains(st);
  return std::move(st);
}

}  // namespace

// counts.threads with each leaf, an entry of counts.counts, made the rank
// of the row of `flat` its address is named in (several addresses of one
// function merged), in (thread, cpu, leaf) order; none when an address is named
// in no row.
std::optional<ThreadCounts> name_thread_counts(const AddressCounts& counts,
                                               const AddressNames& names, const Histogram& flat) {
  // Each row's rank (ThreadCpuRow::leaf).
  const std::vector<uint32_t> order = flat_order(flat);
  std::map<std::tuple<std::string_view, std::string_view, Mode>, uint32_t> row_of;
  for (uint32_t rank = 0; rank < order.size(); ++rank) {
    const FunctionCount& r = flat.rows[order[rank]];
    if (r.image < flat.images.size())
      row_of[{flat.images[r.image].name, r.function, r.mode}] = rank;
  }
  std::vector<uint32_t> row_of_entry;
  row_of_entry.reserve(counts.counts.size());
  for (const auto& [key, c] : counts.counts) {
    const AddressNames::Name n = names(key);
    const auto row = row_of.find({n.image, n.function, key.mode});
    if (row == row_of.end()) return std::nullopt;
    row_of_entry.push_back(row->second);
  }
  ThreadCounts t = counts.threads->counts();
  for (ThreadCpuRow& r : t.rows) r.leaf = row_of_entry.at(r.leaf);
  std::sort(t.rows.begin(), t.rows.end(), [](const ThreadCpuRow& a, const ThreadCpuRow& b) {
    return std::tie(a.thread, a.cpu, a.leaf) < std::tie(b.thread, b.cpu, b.leaf);
  });
  std::vector<ThreadCpuRow> merged;
  for (const ThreadCpuRow& r : t.rows) {
    if (!merged.empty() && merged.back().thread == r.thread && merged.back().cpu == r.cpu &&
        merged.back().leaf == r.leaf) {
      merged.back().samples += r.samples;
      merged.back().period += r.period;
    } else {
      merged.push_back(r);
    }
  }
  t.rows = std::move(merged);
  return t;
}

SymbolizedCounts symbolize_counts(const AddressCounts& counts, const KernelSymbols& kernel,
                                  UserSymbolResolver& user) {
  const AddressNames names(counts, kernel, user);
  SymbolizedCounts out;
  if (counts.with_stacks) {
    out.stacks = build_stacks(counts, names);
    out.histogram = leaf_histogram(*out.stacks);
    if (counts.threads) out.threads = name_thread_counts(counts, names, out.histogram);
    return out;
  }
  HistogramBuilder h;
  // Slices only when they hold every sample (an AddressCounts filled by
  // other means than on_sample has none).
  const bool sliced = counts.slices.samples() == counts.samples && counts.samples > 0;
  uint32_t entry = 0;
  for (const auto& [key, c] : counts.counts) {
    const AddressNames::Name n = names(key);
    // User keys are Mode::User; a kernel mode stays as sampled.
    h.add(h.image(n.image, n.build_id), n.function, key.mode, c, key.ip,
          sliced ? counts.slices.of(entry) : std::span<const uint32_t>{});
    ++entry;
  }
  out.histogram = h.take();
  if (counts.threads) out.threads = name_thread_counts(counts, names, out.histogram);
  return out;
}

Histogram build_histogram(const AddressCounts& counts, const KernelSymbols& kernel,
                          UserSymbolResolver& user) {
  return symbolize_counts(counts, kernel, user).histogram;
}

}  // namespace kprof
