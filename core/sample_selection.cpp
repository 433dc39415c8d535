#include "core/sample_selection.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"

namespace kprof {

namespace {

bool parse_u32(std::string_view s, uint32_t& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end && !s.empty();
}

[[noreturn]] void bad_time(std::string_view spec, const std::string& why) {
  throw Error("--time '" + std::string(spec) + "': " + why +
                  " (START,END in seconds from the start, e.g. 1.5,3 or 5, or in percent of "
                  "its length, e.g. 10%,20%)",
              2);
}

}  // namespace

std::string join_numbers(const std::vector<uint32_t>& v) {
  std::string out;
  for (uint32_t x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

std::string SampleSelection::describe() const {
  std::string out;
  auto add = [&](const std::string& flag, const std::string& values) {
    if (!values.empty()) out += (out.empty() ? "" : " ") + flag + " " + values;
  };
  add("--tid", join_numbers(tids));
  add("--cpu", join_numbers(cpus));
  add("--time", time);
  return out;
}

std::vector<uint32_t> parse_cpu_list(const std::vector<std::string>& items) {
  std::vector<uint32_t> cpus;
  for (const std::string& item : items) {
    const size_t dash = item.find('-');
    uint32_t lo = 0, hi = 0;
    const bool ok = dash == std::string::npos
                        ? parse_u32(item, lo) && (hi = lo, true)
                        : parse_u32(std::string_view(item).substr(0, dash), lo) &&
                              parse_u32(std::string_view(item).substr(dash + 1), hi) && lo <= hi;
    if (!ok || hi - lo > 65535) {
      throw Error("--cpu '" + item + "': not a CPU number or range (e.g. 0-3,7)", 2);
    }
    for (uint32_t c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

TimeRange parse_time_range(std::string_view spec, uint64_t start_ns, uint64_t length_ns) {
  // perf's own percent form, "10%-20%", as "10%,20%".
  size_t comma = spec.find(',');
  if (const size_t dash = spec.find("%-");
      comma == std::string_view::npos && dash != std::string_view::npos && spec.back() == '%') {
    comma = dash + 1;
  }
  if (comma == std::string_view::npos || spec.find(',', comma + 1) != std::string_view::npos) {
    bad_time(spec, "not START,END");
  }
  // One end: its offset from the start in ns, or nullopt when left out.
  auto end_of = [&](std::string_view s, bool& given) -> double {
    given = !s.empty();
    if (!given) return 0;
    const bool percent = s.back() == '%';
    if (percent) s.remove_suffix(1);
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v < 0) {
      bad_time(spec, "'" + std::string(s) + (percent ? "%" : "") + "' is not a time");
    }
    if (!percent) return v * 1e9;
    if (length_ns == 0) bad_time(spec, "the recording's length is not known, so no percent");
    if (v > 100) bad_time(spec, "a percent above 100");
    return v / 100.0 * static_cast<double>(length_ns);
  };
  bool has_from = false, has_to = false;
  const double from = end_of(spec.substr(0, comma), has_from);
  const double to = end_of(spec.substr(comma + 1), has_to);
  if (!has_from && !has_to) bad_time(spec, "give a start, an end or both");
  if (has_from && has_to && to <= from) bad_time(spec, "the end is not after the start");
  TimeRange r;
  if (has_from) r.from_ns = start_ns + static_cast<uint64_t>(std::llround(from));
  if (has_to) r.to_ns = start_ns + static_cast<uint64_t>(std::llround(to));
  return r;
}

void SelectingSink::on_fork(const Fork& f) {
  // A new thread or process is named as its parent until it sets its own.
  if (auto it = seen_.names.find(f.ptid); it != seen_.names.end()) {
    seen_.names[f.tid] = it->second;
  }
  next_.on_fork(f);
}

void SelectingSink::flush_run(CpuCount& c) {
  if (c.run != 0) tid_counts_[c.tid] += c.run;
  c.run = 0;
}

SelectingSink::Seen SelectingSink::seen() const {
  Seen out = seen_;
  for (const auto& [tid, n] : tid_counts_) out.tids[tid] += n;
  cpu_counts_.for_each([&](uint32_t cpu, const CpuCount& c) {
    if (c.samples != 0) out.cpus[cpu] += c.samples;
    if (c.run != 0) out.tids[c.tid] += c.run;
  });
  return out;
}

void SelectingSink::on_sample(const Sample& s) {
  if (s.kind != SampleKind::Cpu && s.kind != SampleKind::Event) {
    next_.on_sample(s);
    return;
  }
  const bool of_event =
      event_ == 0 ? s.kind == SampleKind::Cpu : s.kind == SampleKind::Event && s.event == event_;
  if (!of_event) return;
  ++seen_.total;
  seen_.first_ns = std::min(seen_.first_ns, s.time);
  seen_.last_ns = std::max(seen_.last_ns, s.time);
  if (by_task_) {
    CpuCount& cpu = cpu_counts_[s.cpu];
    ++cpu.samples;
    if (cpu.tid != s.tid) {
      flush_run(cpu);
      cpu.tid = s.tid;
    }
    ++cpu.run;
    const auto in = [](const std::vector<uint32_t>& v, uint32_t x) {
      return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
    };
    if (!in(tids_, s.tid) || !in(cpus_, s.cpu)) return;
  }
  if (!range_.contains(s.time)) return;
  ++seen_.kept;
  if (event_ == 0) {
    next_.on_sample(s);
    return;
  }
  copy_ = s;
  copy_.kind = SampleKind::Cpu;
  copy_.event = 0;
  next_.on_sample(copy_);
}

}  // namespace kprof
