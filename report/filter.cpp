#include "report/filter.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "core/aggregate.h"
#include "core/error.h"
#include "report/canonical.h"
#include "report/table.h"

namespace kprof {

namespace {

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool any_image(const std::string& name, const std::vector<std::string>& queries) {
  return std::any_of(queries.begin(), queries.end(),
                     [&](const std::string& q) { return names_image(name, q); });
}

bool any_function(const std::string& name, const std::vector<std::string>& queries) {
  return std::any_of(queries.begin(), queries.end(),
                     [&](const std::string& q) { return names_function(name, q); });
}

// "a (1,234), b (56)": what exists of a key, heaviest first, at most 8.
std::string existing(const std::map<std::string, uint64_t>& counts) {
  std::vector<std::pair<std::string, uint64_t>> v(counts.begin(), counts.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string out;
  for (size_t i = 0; i < v.size() && i < 8; ++i) {
    out += (i ? ", " : "") + v[i].first + " (" + format_count(v[i].second) + ")";
  }
  if (v.size() > 8) out += ", … " + format_count(v.size() - 8) + " more";
  return out;
}

// One key of the filter, judged per stack or per row.
struct Key {
  enum class What { Comm, Pid, Dso, Symbol } what;
  std::string flag;  // "--comm"
  std::string values;
  std::map<std::string, uint64_t> seen;  // what exists: value -> samples
  uint64_t matched = 0;                  // samples this key alone keeps
};

std::string join_values(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

[[noreturn]] void nothing_matches(const std::vector<Key>& keys, uint64_t total,
                                  const std::string& path) {
  for (const Key& k : keys) {
    if (k.matched != 0) continue;
    std::string hint;
    if (k.what == Key::What::Symbol) {
      std::vector<std::string_view> names;
      for (const auto& [name, n] : k.seen) names.push_back(name);
      const std::vector<std::string> close = closest_names(names, k.values);
      for (const std::string& c : close) hint += (hint.empty() ? "" : ", ") + c;
      hint = hint.empty() ? "" : "; closest: " + hint;
    } else {
      hint = "; these exist: " + existing(k.seen);
    }
    throw Error("no samples match " + k.flag + " " + k.values + " in " + path + " (" +
                    format_count(total) + " samples)" + hint,
                1);
  }
  std::string all;
  for (const Key& k : keys) all += (all.empty() ? "" : " ") + k.flag + " " + k.values;
  throw Error("no samples match " + all + " together in " + path +
                  " (each matches some on its own; " + format_count(total) + " samples)",
              1);
}

// The keys asked for.
std::vector<Key> keys_of(const SampleFilter& f) {
  std::vector<Key> keys;
  if (!f.comms.empty()) keys.push_back({Key::What::Comm, "--comm", join_values(f.comms)});
  if (!f.pids.empty()) keys.push_back({Key::What::Pid, "--pid", join_numbers(f.pids)});
  if (!f.dsos.empty()) keys.push_back({Key::What::Dso, "--dso", join_values(f.dsos)});
  if (!f.symbols.empty()) keys.push_back({Key::What::Symbol, "--symbol", join_values(f.symbols)});
  return keys;
}

// Whether every key keeps one stack or row of `samples` (a flat row has no
// process); with `gather`, each key also counts what it matched and what
// exists, for nothing_matches().
bool keep(std::vector<Key>& keys, const SampleFilter& f, const StackProcess* process,
          const std::string& image, const std::string& function, uint64_t samples, bool gather) {
  bool all = true;
  for (Key& k : keys) {
    bool match = false;
    switch (k.what) {
      case Key::What::Comm:
        match = process && contains(f.comms, process->name);
        if (gather) k.seen[process && !process->name.empty() ? process->name : "?"] += samples;
        break;
      case Key::What::Pid:
        match = process && contains(f.pids, process->pid);
        if (gather)
          k.seen[process ? std::to_string(process->pid) + " " + process->name : "?"] += samples;
        break;
      case Key::What::Dso:
        match = any_image(image, f.dsos);
        if (gather) k.seen[image] += samples;
        break;
      case Key::What::Symbol:
        match = any_function(function, f.symbols);
        if (gather) k.seen[function] += samples;
        break;
    }
    if (match && gather) k.matched += samples;
    all &= match;
  }
  return all;
}

const std::string kUnknown = "[unknown]";

const std::string& image_name(const std::vector<Image>& images, uint32_t i) {
  return i < images.size() ? images[i].name : kUnknown;
}

// Keeps the stacks every key keeps; returns (kept, total) samples. With
// `gather`, `keys` count what exists (keep()).
std::pair<uint64_t, uint64_t> filter_stacks(Stacks& s, const SampleFilter& f,
                                            std::vector<Key>& keys, bool gather) {
  uint64_t kept = 0, total = 0;
  std::vector<Stack> out;
  std::vector<bool> leaf_kept(s.frames.size(), false);
  for (Stack& st : s.stacks) {
    total += st.samples;
    const StackProcess* process =
        st.process < s.processes.size() ? &s.processes[st.process] : nullptr;
    const uint32_t leaf = st.frames.empty() ? UINT32_MAX : st.frames[0];
    const Frame* frame = leaf < s.frames.size() ? &s.frames[leaf] : nullptr;
    const std::string& image = frame ? image_name(s.images, frame->image) : kUnknown;
    const std::string& function = frame ? frame->function : kUnknown;
    if (keep(keys, f, process, image, function, st.samples, gather)) {
      kept += st.samples;
      if (frame) leaf_kept[leaf] = true;
      out.push_back(std::move(st));
    }
  }
  s.stacks = std::move(out);
  // A frame's leaf samples per time slice hold while all or none of its
  // stacks are kept: so under --dso / --symbol (judged by the leaf), not
  // under --comm / --pid (a kernel leaf is in many processes' stacks).
  if (!f.comms.empty() || !f.pids.empty()) {
    s.leaf_slices.clear();
  } else if (s.leaf_slices.size() == s.frames.size()) {
    for (size_t i = 0; i < s.frames.size(); ++i) {
      if (!leaf_kept[i]) s.leaf_slices[i].clear();
    }
  }
  return {kept, total};
}

// --comm and --pid on a flat table `h` through its per-thread table
// (ThreadCounts::rows_of gave `by_rank`): each row left with the samples of
// the processes kept (and --dso / --symbol's leaves), none of its time
// slices or peak (they are not per thread); rows left with none dropped.
std::pair<uint64_t, uint64_t> filter_by_threads(Histogram& h, const ThreadCounts& t,
                                                const std::vector<uint32_t>& by_rank,
                                                const SampleFilter& f, std::vector<Key>& keys) {
  std::vector<Counts> left(h.rows.size());
  uint64_t kept = 0, total = 0;
  for (const ThreadCpuRow& r : t.rows) {
    total += r.samples;
    const CountedThread& th = t.threads[r.thread];  // rows_of checked the indices
    const uint32_t row = by_rank[r.leaf];
    const StackProcess process{th.pid, th.name};
    const FunctionCount& leaf = h.rows[row];
    if (keep(keys, f, &process, image_name(h.images, leaf.image), leaf.function, r.samples, true)) {
      kept += r.samples;
      left[row].samples += r.samples;
      left[row].period += r.period;
    }
  }
  std::vector<FunctionCount> rows;
  for (size_t i = 0; i < h.rows.size(); ++i) {
    if (left[i].samples == 0) continue;
    const FunctionCount& r = h.rows[i];
    rows.push_back({r.image, r.function, r.mode, left[i].samples, left[i].period});
  }
  h.rows = std::move(rows);
  return {kept, total};
}

std::string share_text(uint64_t kept, uint64_t total) {
  const double pct = total ? 100.0 * static_cast<double>(kept) / static_cast<double>(total) : 0;
  return format_count(kept) + " of " + format_count(total) + " samples (" +
         format_fixed(pct, pct < 10 ? 2 : 1) + "%)";
}

}  // namespace

std::string SampleFilter::describe() const {
  std::string out;
  auto add = [&](const std::string& flag, const std::string& values) {
    if (!values.empty()) out += (out.empty() ? "" : " ") + flag + " " + values;
  };
  add("--comm", join_values(comms));
  add("--pid", join_numbers(pids));
  add("--dso", join_values(dsos));
  add("--symbol", join_values(symbols));
  const std::string by_records = records.describe();
  if (!by_records.empty()) out += (out.empty() ? "" : " ") + by_records;
  return out;
}

bool names_image(const std::string& name, const std::string& query) {
  if (name == query) return true;
  // "[vdso]" is named with or without its brackets (CLI11 reads a bracketed
  // value as a list and drops them); the kernel also as perf names it.
  const auto bare = [](std::string_view s) {
    return s.size() > 2 && s.front() == '[' && s.back() == ']' ? s.substr(1, s.size() - 2) : s;
  };
  const auto kernel = [](std::string_view s) { return s == "kernel" || s == "kernel.kallsyms"; };
  if (bare(name) == bare(query) || (kernel(bare(name)) && kernel(bare(query)))) return true;
  const size_t slash = name.rfind('/');
  return slash != std::string::npos && name.compare(slash + 1, std::string::npos, query) == 0;
}

bool keeps_process(const SampleFilter& f, uint32_t pid, std::string_view comm) {
  return (f.pids.empty() || contains(f.pids, pid)) &&
         (f.comms.empty() || std::find(f.comms.begin(), f.comms.end(), comm) != f.comms.end());
}

bool keeps_leaf(const SampleFilter& f, std::string_view image, std::string_view function) {
  return (f.dsos.empty() || any_image(std::string(image), f.dsos)) &&
         (f.symbols.empty() || any_function(std::string(function), f.symbols));
}

void apply_filter(Profile& p, const SampleFilter& f) {
  if (f.table_keys_empty()) return;
  SampleFilter table_keys = f;
  table_keys.records = {};
  const std::string what = table_keys.describe();
  if (!p.histogram_usable()) {
    throw Error(p.path + " is cut short (its records counted again as read): " + what +
                    " needs its symbolized samples; kprof symbolize it first",
                2);
  }
  std::vector<Key> keys = keys_of(f);
  uint64_t kept = 0, total = 0;
  if (p.stacks) {
    std::tie(kept, total) = filter_stacks(*p.stacks, f, keys, true);
  } else if (p.histogram) {
    Histogram& h = *p.histogram;
    if (!f.comms.empty() || !f.pids.empty()) {
      const auto by_rank = p.threads ? p.threads->rows_of(h) : std::nullopt;
      if (!by_rank) {
        throw Error(p.path + " is a flat profile without a per-thread table (written before " +
                        "kprof stored one, or imported from a listing), so " +
                        (f.comms.empty() ? "--pid" : "--comm") +
                        " cannot pick samples; record it again, or filter by --dso / --symbol",
                    2);
      }
      std::tie(kept, total) = filter_by_threads(h, *p.threads, *by_rank, f, keys);
    } else {
      std::vector<FunctionCount> rows;
      for (FunctionCount& r : h.rows) {
        total += r.samples;
        const std::string& image = image_name(h.images, r.image);
        if (keep(keys, f, nullptr, image, r.function, r.samples, true)) {
          kept += r.samples;
          rows.push_back(std::move(r));
        }
      }
      h.rows = std::move(rows);
    }
  }
  if (kept == 0) nothing_matches(keys, total, p.path);
  std::string notice =
      "filtered (" + what + "): " + share_text(kept, total) + " kept; shares are of what remains";
  if (p.off_cpu) {
    std::vector<Key> off_keys = keys_of(f);
    const auto [off_kept, off_total] = filter_stacks(p.off_cpu->stacks, f, off_keys, false);
    if (!f.comms.empty() || !f.pids.empty()) {
      std::erase_if(p.off_cpu->threads, [&](const OffCpuThread& t) {
        return (!f.comms.empty() && !contains(f.comms, t.comm)) ||
               (!f.pids.empty() && !contains(f.pids, t.pid));
      });
    }
    notice += "; off CPU " + share_text(off_kept, off_total);
  }
  p.run.notices.push_back(std::move(notice));
  p.threads.reset();  // it counts the table before the filter
}

}  // namespace kprof
