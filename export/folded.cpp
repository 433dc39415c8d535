// stacks_or_flat, check_stacks and the folded (collapsed stacks) writer.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "core/error.h"
#include "export/export.h"
#include "report/canonical.h"

namespace kprof {

namespace {

bool is_blank(char c) {
  return c == ' ';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// ';' separates frames and control characters would end or garble a line;
// a blank before trailing digits would make the count ambiguous (the
// differential two-count form), and trailing blanks are noise.
std::string sanitize(std::string_view name) {
  std::string s;
  s.reserve(name.size());
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ';') {
      s += ':';
    } else if (u < 0x20 || u == 0x7f) {
      s += '?';
    } else {
      s += c;
    }
  }
  while (!s.empty() && is_blank(s.back())) s.pop_back();
  size_t d = s.size();
  while (d > 0 && is_digit(s[d - 1])) --d;
  if (d < s.size()) {
    size_t b = d;
    while (b > 0 && is_blank(s[b - 1])) --b;
    for (size_t i = b; i < d; ++i) s[i] = '_';
  }
  return s;
}

std::string process_frame(const StackProcess& p, const FoldedOptions& opts) {
  std::string name = p.name.empty() ? "[unknown]" : sanitize(p.name);
  std::replace(name.begin(), name.end(), ' ', '_');
  if (name.empty()) name = "[unknown]";
  if (opts.pid) name += "-" + std::to_string(p.pid);
  return name;
}

bool process_unknown(const StackProcess& p) {
  return p.pid == 0 && p.name.empty();
}

}  // namespace

std::string unknown_function_name(const std::string& image) {
  if (image.empty()) return "[unknown]";
  if (image.front() == '[') return image;  // "[vdso]", "[kernel]", "[unknown]"
  const size_t slash = image.find_last_of('/');
  std::string base = slash == std::string::npos ? image : image.substr(slash + 1);
  if (base.empty()) base = image;
  return "[" + base + "]";
}

void check_stacks(const Stacks& st) {
  auto bad = [](const std::string& what) {
    throw Error("the profile's call stacks are inconsistent: " + what);
  };
  for (size_t i = 0; i < st.frames.size(); ++i) {
    if (st.frames[i].image >= st.images.size())
      bad("frame " + std::to_string(i) + " names image " + std::to_string(st.frames[i].image) +
          " of " + std::to_string(st.images.size()));
  }
  for (size_t i = 0; i < st.stacks.size(); ++i) {
    const Stack& s = st.stacks[i];
    if (s.process >= st.processes.size())
      bad("stack " + std::to_string(i) + " names process " + std::to_string(s.process) + " of " +
          std::to_string(st.processes.size()));
    if (s.frames.empty()) bad("stack " + std::to_string(i) + " has no frames");
    for (uint32_t f : s.frames) {
      if (f >= st.frames.size())
        bad("stack " + std::to_string(i) + " names frame " + std::to_string(f) + " of " +
            std::to_string(st.frames.size()));
    }
  }
}

Stacks stacks_or_flat(const ProfileHistogram& hist) {
  return stacks_or_flat(hist.histogram, hist.stacks);
}

Stacks stacks_or_flat(const Histogram& histogram, const std::optional<Stacks>& stacks) {
  if (stacks) return *stacks;
  Stacks st;
  st.images = histogram.images;
  st.processes.push_back({0, ""});
  std::map<Frame, size_t> stack_of;  // rows are unique per (image, function, mode); merge if not
  for (const FunctionCount& row : histogram.rows) {
    if (row.samples == 0 && row.period == 0) continue;
    Frame f{row.image, row.function, row.mode};
    auto [it, fresh] = stack_of.try_emplace(f, st.stacks.size());
    if (fresh) {
      st.frames.push_back(f);
      Stack s;
      s.frames = {static_cast<uint32_t>(st.frames.size() - 1)};
      st.stacks.push_back(std::move(s));
    }
    st.stacks[it->second].samples += row.samples;
    st.stacks[it->second].period += row.period;
  }
  return st;
}

std::string folded_frame(const Stacks& st, const Frame& fr) {
  std::string name;
  if (fr.function.empty() || fr.function == "[unknown]") {
    name = sanitize(unknown_function_name(fr.image < st.images.size() ? st.images[fr.image].name
                                                                      : std::string()));
  } else {
    name = sanitize(fr.function);
  }
  if (name.empty()) name = "[unknown]";
  if (fr.mode == Mode::Kernel || fr.mode == Mode::GuestKernel) name += "_[k]";
  return name;
}

std::map<std::string, uint64_t> folded_lines(const Stacks& st, const FoldedOptions& opts) {
  check_stacks(st);
  std::vector<std::string> frame_text(st.frames.size());
  for (size_t i = 0; i < st.frames.size(); ++i) {
    Frame f = st.frames[i];
    if (opts.canonical) f.function = canonical_name(f.function);
    frame_text[i] = folded_frame(st, f);
  }
  std::vector<std::string> process_text(st.processes.size());
  for (size_t i = 0; i < st.processes.size(); ++i) {
    if (!process_unknown(st.processes[i])) process_text[i] = process_frame(st.processes[i], opts);
  }

  std::map<std::string, uint64_t> lines;  // sorted bytewise, as stackcollapse-perf's `sort`
  std::string line;
  for (const Stack& s : st.stacks) {
    if (s.samples == 0) continue;
    line = process_text[s.process];
    for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it) {
      if (!line.empty()) line += ';';
      line += frame_text[*it];
    }
    lines[line] += s.samples;
  }
  return lines;
}

void write_folded(std::ostream& out, const Stacks& st, const FoldedOptions& opts) {
  for (const auto& [stack, count] : folded_lines(st, opts)) out << stack << ' ' << count << '\n';
}

void write_diff_folded(std::ostream& out, const std::vector<Stacks>& base,
                       const std::vector<Stacks>& next) {
  FoldedOptions opts;
  opts.canonical = true;
  std::map<std::string, std::pair<uint64_t, uint64_t>> lines;
  for (const Stacks& st : base) {
    for (const auto& [stack, count] : folded_lines(st, opts)) lines[stack].first += count;
  }
  for (const Stacks& st : next) {
    for (const auto& [stack, count] : folded_lines(st, opts)) lines[stack].second += count;
  }
  for (const auto& [stack, counts] : lines) {
    out << stack << ' ' << counts.first << ' ' << counts.second << '\n';
  }
}

ExportFormat parse_export_format(const std::string& name) {
  if (name == "folded") return ExportFormat::Folded;
  if (name == "pprof") return ExportFormat::Pprof;
  throw Error("unknown export format '" + name + "' (choose folded or pprof)", 2);
}

const char* export_format_name(ExportFormat format) {
  return format == ExportFormat::Folded ? "folded" : "pprof";
}

bool export_format_is_binary(ExportFormat format) {
  return format == ExportFormat::Pprof;
}

void write_export(std::ostream& out, ExportFormat format, const Profile& profile,
                  const ProfileHistogram& hist, const FoldedOptions& folded) {
  const Stacks st = stacks_or_flat(hist);
  switch (format) {
    case ExportFormat::Folded:
      write_folded(out, st, folded);
      return;
    case ExportFormat::Pprof:
      write_pprof(out, st, profile);
      return;
  }
}

}  // namespace kprof
