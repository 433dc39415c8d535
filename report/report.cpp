#include "report/report.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "report/skid.h"
#include "report/table.h"

namespace kprof {

SortKey parse_sort_key(const std::string& s) {
  if (s == "function") return SortKey::Function;
  if (s == "image") return SortKey::Image;
  if (s == "mode") return SortKey::Mode;
  throw Error("unknown sort key '" + s +
                  "': use function, image, mode, comm or pid (or comm,function, pid,function)",
              2);
}

namespace {

constexpr int kModes = 6;  // Mode::User .. Mode::Unknown

std::string modes_string(unsigned mask) {
  std::string s;
  for (int m = 0; m < kModes; ++m) {
    if (!(mask & (1u << m))) continue;
    if (!s.empty()) s += '+';
    s += mode_name(static_cast<Mode>(m));
  }
  return s;
}

unsigned mode_bit(Mode m) {
  int i = static_cast<int>(m);
  return 1u << (i < kModes ? i : kModes - 1);
}

bool row_before(const ReportRow& a, const ReportRow& b) {
  if (a.samples != b.samples) return a.samples > b.samples;
  if (a.image != b.image) return a.image < b.image;
  if (a.function != b.function) return a.function < b.function;
  return a.mode < b.mode;
}

const std::string& image_of(const Histogram& h, uint32_t index) {
  static const std::string kUnknown = "[unknown]";
  return index < h.images.size() ? h.images[index].name : kUnknown;
}

}  // namespace

std::vector<ReportRow> report_rows(const Histogram& h, SortKey key, size_t partial) {
  // Group by names, not by indices: an image listed twice (two build ids of
  // one path) is still one image to the reader.
  struct Acc {
    uint64_t samples = 0, period = 0;
    unsigned modes = 0;
  };
  std::map<std::pair<std::string_view, std::string_view>, Acc> groups;
  for (const FunctionCount& r : h.rows) {
    std::string_view image, function;
    if (key != SortKey::Mode) image = image_of(h, r.image);
    if (key == SortKey::Function) function = r.function;
    if (key == SortKey::Mode) image = mode_name(r.mode);
    Acc& a = groups[{image, function}];
    a.samples += r.samples;
    a.period += r.period;
    a.modes |= mode_bit(r.mode);
  }
  std::vector<ReportRow> rows;
  rows.reserve(groups.size());
  for (const auto& [k, a] : groups) {
    ReportRow row{a.samples, a.period, std::string(k.first), std::string(k.second),
                  modes_string(a.modes)};
    if (key == SortKey::Mode) row.image.clear();
    rows.push_back(std::move(row));
  }
  if (partial > 0 && partial < rows.size()) {
    std::partial_sort(rows.begin(), rows.begin() + static_cast<ptrdiff_t>(partial), rows.end(),
                      row_before);
  } else {
    std::sort(rows.begin(), rows.end(), row_before);
  }
  return rows;
}

void write_report_header(std::ostream& out, const Profile& p, const ProfileHistogram& hist,
                         bool color) {
  const std::string notice = styled("# notice:", Style::Notice, color);
  const RunInfo& run = p.run;
  TextTable t({{""}, {""}});
  t.add_row({"# profile:", p.path.empty() ? "<memory>" : p.path});
  t.add_row(
      {styled("# event:", Style::Notice, color && run.event.fell_back), describe_event(run.event)});
  if (!run.more_events.empty()) t.add_row({"# also recorded:", describe_more_events(run)});
  if (run.event.callchains) {
    const std::string how = run.event.user_stack_bytes != 0
                                ? "user stacks unwound by DWARF CFI from " +
                                      std::to_string(run.event.user_stack_bytes) +
                                      "-byte copies (--call-graph dwarf)"
                                : std::string("frame pointers (-g)");
    t.add_row({"# callchains:", how + "; the flat table counts self samples, --children adds "
                                      "totals, --callers/--callees FUNC show its paths"});
  }
  t.add_row({"# kernel:", run.kernel_release.empty() ? "unknown" : run.kernel_release});
  std::string host = run.hostname.empty() ? "unknown" : run.hostname;
  if (run.ncpus) host += " (" + std::to_string(run.ncpus) + " CPUs)";
  t.add_row({"# host:", host});
  if (!run.cpu_model.empty()) t.add_row({"# cpu:", run.cpu_model});
  t.add_row({run.command.empty() ? "# target:" : "# command:", describe_target(run)});
  const uint64_t recorded = hist.histogram.total_samples();
  if (p.summary) {
    const Summary& s = *p.summary;
    t.add_row({"# duration:", format_seconds(s.duration_ns)});
    std::string own;  // -a: kprof's own samples are not in the table (RunInfo::recorder_pid)
    if (run.recorder_pid != 0 && s.samples > recorded) {
      own = " (" + format_count(s.samples - recorded) + " of kprof's own process left out)";
    }
    if (!run.more_events.empty()) {
      own += " (of all " + std::to_string(run.more_events.size() + 1) + " events; " +
             format_count(recorded) + " in the table)";
    }
    t.add_row({"# samples:", format_count(s.samples) + own});
    if (s.lost) {
      t.add_row({styled("# lost:", Style::Notice, color),
                 format_count(s.lost) + " (" +
                     format_percent(percent_of(s.lost, s.samples + s.lost)) + "% of all samples)"});
    }
    if (s.throttled) {
      t.add_row({styled("# throttled:", Style::Notice, color),
                 format_count(s.throttled) +
                     " times the kernel paused sampling: the rate is too high "
                     "for this machine (record again with a lower -F)"});
    }
    std::string exit = describe_exit(s.exit);
    if (!exit.empty()) {
      t.add_row({"# workload:", exit + "; real " + format_fixed(s.real_s, 2) + " s, user " +
                                    format_fixed(s.user_s, 2) + " s, sys " +
                                    format_fixed(s.sys_s, 2) + " s"});
    }
    // Unless the read notice below says it (a perf.data that stopped at its damage).
    if (!s.stop_reason.empty() && (exit.empty() || s.stop_reason != "workload exited") &&
        s.stop_reason != p.status.problem) {
      t.add_row({"# stopped:", s.stop_reason});
    }
  } else if (!run.sample_counts) {
    t.add_row({"# samples:", "not listed (shares only)"});
  } else {
    t.add_row({"# samples:", format_count(recorded) + (hist.recovered ? " (recovered)" : "")});
  }
  for (const std::string& n : run_notices(run)) t.add_row({notice, n});
  if (const std::string skid = irq_skid_notice(hist.histogram, run.event); !skid.empty()) {
    t.add_row({notice, skid});
  }
  if (const std::string read = read_notice(p, hist); !read.empty()) t.add_row({notice, read});
  t.write(out, false);
  out << "#\n";
}

ProcessSort parse_process_sort(const std::string& s) {
  ProcessSort p;
  const std::string key = s.substr(0, s.find(','));
  const std::string rest = s.find(',') == std::string::npos ? "" : s.substr(s.find(',') + 1);
  if (key == "comm") p.by = ProcessSort::By::Comm;
  if (key == "pid") p.by = ProcessSort::By::Pid;
  if (key == "tid") p.by = ProcessSort::By::Tid;
  if (key == "cpu") p.by = ProcessSort::By::Cpu;
  if (p.by == ProcessSort::By::None) {
    if (!rest.empty()) {
      throw Error("--sort " + s + ": a list starts with comm, pid, tid or cpu", 2);
    }
    return p;
  }
  if (rest == "function") {
    p.functions = true;
  } else if (s.find(',') != std::string::npos) {
    throw Error("--sort " + s + ": after " + key + " only function (" + key + ",function)", 2);
  }
  return p;
}

Histogram process_histogram(const Stacks& st, const ProcessSort& sort) {
  Histogram h;
  std::map<std::pair<std::string, std::string>, size_t> row_of;  // (process, function) -> row
  std::map<std::string, uint32_t> image_of;
  for (const Stack& s : st.stacks) {
    const StackProcess* proc = s.process < st.processes.size() ? &st.processes[s.process] : nullptr;
    const std::string name = proc && !proc->name.empty() ? proc->name : "?";
    const std::string label =
        sort.by == ProcessSort::By::Pid
            ? (proc ? std::to_string(proc->pid) : std::string("?")) + " " + name
            : name;
    const Frame* leaf = !s.frames.empty() && s.frames.front() < st.frames.size()
                            ? &st.frames[s.frames.front()]
                            : nullptr;
    const std::string function = sort.functions ? (leaf ? leaf->function : "[unknown]") : "";
    auto [im, fresh_image] = image_of.try_emplace(label, static_cast<uint32_t>(h.images.size()));
    if (fresh_image) h.images.push_back({label, ""});
    auto [it, fresh] = row_of.try_emplace({label, function}, h.rows.size());
    if (fresh) {
      h.rows.push_back(
          {im->second, function, sort.functions && leaf ? leaf->mode : Mode::Unknown, 0, 0});
    }
    h.rows[it->second].samples += s.samples;
    h.rows[it->second].period += s.period;
  }
  return h;
}

void write_report_table(std::ostream& out, const Histogram& h, const ReportOptions& opts) {
  const uint64_t total = h.total_samples();
  const std::string what = opts.sort == SortKey::Function ? "functions"
                           : opts.sort == SortKey::Image
                               ? opts.image_header == "image" ? "images" : "processes"
                               : "modes";
  if (total == 0) {
    out << "no samples\n";
    return;
  }
  std::vector<ReportRow> rows = report_rows(h, opts.sort, opts.top);
  size_t shown = opts.top ? std::min(opts.top, rows.size()) : rows.size();
  while (shown > 0 && percent_of(rows[shown - 1].samples, total) < opts.percent_limit) --shown;

  // Basenames read best; the full path only where two shown images share one.
  std::unordered_map<std::string_view, std::set<std::string_view>> by_base;
  for (size_t i = 0; i < shown; ++i) by_base[path_basename(rows[i].image)].insert(rows[i].image);
  auto display_image = [&](const std::string& image) {
    std::string_view base = path_basename(image);
    return by_base[base].size() > 1 ? image : std::string(base);
  };

  std::vector<Column> cols;
  if (opts.counts) cols.push_back({"samples", Align::Right});
  cols.push_back({"%", Align::Right});
  if (opts.sort == SortKey::Mode) {
    cols.push_back({"mode"});
  } else {
    cols.push_back({opts.image_header, Align::Left, 60});
    if (opts.sort == SortKey::Function) cols.push_back({"function", Align::Left, opts.name_width});
  }
  TextTable table(std::move(cols));
  table.fit(opts.line_width);
  uint64_t shown_samples = 0;
  for (size_t i = 0; i < shown; ++i) {
    const ReportRow& r = rows[i];
    shown_samples += r.samples;
    std::vector<std::string> cells;
    if (opts.counts) cells.push_back(format_count(r.samples));
    cells.push_back(format_percent(percent_of(r.samples, total)));
    if (opts.sort == SortKey::Mode) {
      cells.push_back(r.mode);
    } else {
      cells.push_back(display_image(r.image));
      if (opts.sort == SortKey::Function) cells.push_back(r.function);
    }
    table.add_row(std::move(cells));
  }
  table.write(out);
  if (shown < rows.size()) {
    out << "(" << rows.size() - shown << " more " << what << " not shown: "
        << (opts.counts ? format_count(total - shown_samples) + " samples, " : std::string())
        << format_percent(percent_of(total - shown_samples, total)) << "%)\n";
  }
}

void write_report(std::ostream& out, const Profile& profile, const ProfileHistogram& hist,
                  const ReportOptions& opts) {
  if (opts.header) write_report_header(out, profile, hist, opts.color);
  ReportOptions o = opts;
  o.counts = opts.counts && profile.run.sample_counts;
  write_report_table(out, hist.histogram, o);
}

}  // namespace kprof
