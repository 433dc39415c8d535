#include "core/aggregate.h"

#include <algorithm>
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

uint32_t AddressAggregator::mapping_index(Map& m) {
  if (m.mapping == AddressCounts::kNoMapping) {
    m.mapping = static_cast<uint32_t>(counts_.mappings.size());
    counts_.mappings.push_back(m.mmap);
  }
  return m.mapping;
}

void AddressAggregator::on_mmap(const Mmap& m) {
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
  if (c.exec) maps_.erase(c.pid);
}

void AddressAggregator::on_fork(const Fork& f) {
  if (f.pid == f.ppid) return;  // a new thread shares its process's maps
  auto child = maps_.find(f.pid);
  if (child != maps_.end() && !child->second.empty()) return;
  auto parent = maps_.find(f.ppid);
  if (parent == maps_.end()) return;
  std::vector<Map> copy = parent->second;  // copy first: inserting may rehash
  maps_[f.pid] = std::move(copy);
}

void AddressAggregator::on_exit(const Fork& f) {
  if (f.pid == f.tid) maps_.erase(f.pid);
}

void AddressAggregator::on_lost(const Lost& l) {
  counts_.lost += l.count;
}

void AddressAggregator::on_sample(const Sample& s) {
  ++counts_.samples;
  AddressCounts::Key key{AddressCounts::kNoMapping, s.mode, s.ip};
  if (s.mode == Mode::User) {
    auto it = maps_.find(s.pid);
    if (it != maps_.end()) {
      auto& maps = it->second;
      auto m = std::upper_bound(maps.begin(), maps.end(), s.ip,
                                [](uint64_t ip, const Map& m) { return ip < m.start; });
      if (m != maps.begin() && s.ip < std::prev(m)->end) key.mapping = mapping_index(*std::prev(m));
    }
  }
  Counts& c = counts_.counts[key];
  ++c.samples;
  c.period += s.period;
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
  uint32_t image(const std::string& name, const std::string& build_id) {
    auto [it, inserted] = images_.try_emplace(name, static_cast<uint32_t>(h_.images.size()));
    if (inserted) h_.images.push_back({name, build_id});
    Image& im = h_.images[it->second];
    if (im.build_id.empty()) im.build_id = build_id;
    return it->second;
  }
  void add(uint32_t image, std::string_view function, Mode mode, const Counts& c) {
    auto [it, inserted] =
        rows_.try_emplace(std::make_tuple(image, std::string(function), mode), h_.rows.size());
    if (inserted) h_.rows.push_back({image, std::string(function), mode, 0, 0});
    FunctionCount& row = h_.rows[it->second];
    row.samples += c.samples;
    row.period += c.period;
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
  std::map<std::string, uint32_t> images_;
  std::map<std::tuple<uint32_t, std::string, Mode>, size_t> rows_;
};

}  // namespace

bool kernel_ips_in_boot_static_text(const AddressCounts& counts, const KernelSymbols& kernel) {
  for (const auto& [key, c] : counts.counts) {
    if (is_kernel_mode(key.mode) && !kernel.in_boot_static_text(key.ip)) return false;
  }
  return true;
}

Histogram build_histogram(const AddressCounts& counts, const KernelSymbols& kernel,
                          UserSymbolResolver& user) {
  HistogramBuilder b;
  // User ips grouped per mapping so the resolver opens each image once.
  std::vector<std::vector<std::pair<uint64_t, const Counts*>>> per_mapping(counts.mappings.size());
  const std::string unknown = "[unknown]";
  for (const auto& [key, c] : counts.counts) {
    if (key.mapping != AddressCounts::kNoMapping && key.mapping < per_mapping.size()) {
      per_mapping[key.mapping].emplace_back(key.ip, &c);
    } else if (is_kernel_mode(key.mode)) {
      const auto hit = kernel.lookup(key.ip);
      b.add(b.image(std::string(hit.image), ""), hit.function, key.mode, c);
    } else {
      b.add(b.image(unknown, ""), unknown, key.mode, c);
    }
  }
  for (size_t i = 0; i < per_mapping.size(); ++i) {
    auto& ips = per_mapping[i];
    if (ips.empty()) continue;
    std::sort(ips.begin(), ips.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<uint64_t> addrs;
    addrs.reserve(ips.size());
    for (const auto& [ip, c] : ips) addrs.push_back(ip);
    const Mmap& m = counts.mappings[i];
    std::string build_id;
    const std::vector<std::string> names = user.resolve(m, addrs, &build_id);
    const uint32_t image = b.image(image_name_for(m), build_id.empty() ? m.build_id : build_id);
    for (size_t k = 0; k < ips.size(); ++k) {
      const bool named = k < names.size() && !names[k].empty();
      // Same key in a mapping but a different mode cannot happen: user keys are Mode::User.
      b.add(image, named ? names[k] : unknown, Mode::User, *ips[k].second);
    }
  }
  return b.take();
}

}  // namespace kprof
