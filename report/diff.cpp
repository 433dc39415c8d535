#include "report/diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/profile.h"
#include "report/callgraph.h"
#include "report/canonical.h"
#include "report/diff_rows.h"
#include "report/skid.h"
#include "report/summary.h"
#include "report/table.h"

namespace kprof {

using diff_detail::RunTotals;

DiffBy parse_diff_by(const std::string& s) {
  if (s == "function") return DiffBy::Function;
  if (s == "image") return DiffBy::Image;
  if (s == "mode") return DiffBy::Mode;
  throw Error("unknown --by '" + s + "': use function, image or mode", 2);  // a usage error
}

const char* diff_by_name(DiffBy by) {
  switch (by) {
    case DiffBy::Function:
      return "function";
    case DiffBy::Image:
      return "image";
    case DiffBy::Mode:
      return "mode";
  }
  return "function";
}

std::string diff_rows_title(const DiffOptions& o) {
  if (o.view == "children") return "functions by total samples (self and children)";
  if (o.view.starts_with("callers ")) return "callers of " + o.view.substr(8);
  return std::string("by ") + diff_by_name(o.by);
}

const char* sidedness_mark(Sidedness s) {
  switch (s) {
    case Sidedness::OnlyBase:
      return "---";
    case Sidedness::OnlyNew:
      return "+++";
    default:
      return "";
  }
}

const char* ratio_bound_name(RatioBound b) {
  switch (b) {
    case RatioBound::AtLeast:
      return "at least";
    case RatioBound::AtMost:
      return "at most";
    case RatioBound::Unknown:
      return "unknown";
    default:
      return "";
  }
}

namespace {

// ---------------------------------------------------------------- labels, scores

// A side's files as a label: "a1.kprof", or "a1.kprof+2" for three runs.
std::string files_label(const DiffSide& side) {
  if (side.runs.empty()) return "";
  std::string s(path_basename(side.runs.front().source));
  if (side.runs.size() > 1) s += "+" + std::to_string(side.runs.size() - 1);
  return s;
}

// Labels: --label, else the kernel release; sides whose kernels are the same
// (an A/A diff, two configurations of one build) are told apart by their
// files instead, and "#2" only when even those agree.
std::vector<std::string> resolve_labels_impl(const std::vector<DiffSide>& sides) {
  std::vector<std::string> base(sides.size());
  // By kernel, the defaulted sides' file labels: used when the kernel is
  // shared and the files tell those sides apart.
  std::map<std::string, std::vector<std::string>> files;
  for (const DiffSide& side : sides) {
    if (!side.label.empty() || side.runs.empty()) continue;
    files[side.runs.front().run.kernel_release].push_back(files_label(side));
  }
  auto distinct = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  for (size_t s = 0; s < sides.size(); ++s) {
    const DiffSide& side = sides[s];
    base[s] = side.label;
    if (base[s].empty() && !side.runs.empty()) {
      const std::string& kernel = side.runs.front().run.kernel_release;
      const std::vector<std::string>& same = files[kernel];
      const bool by_files = kernel.empty() || (same.size() > 1 && distinct(same));
      base[s] = by_files ? files_label(side) : kernel;
    }
    if (base[s].empty()) base[s] = "profile";
  }
  std::vector<std::string> labels;
  std::set<std::string> used;
  for (const std::string& b : base) {
    std::string label = b;
    for (int n = 2; used.count(label); ++n) label = b + "#" + std::to_string(n);
    used.insert(label);
    labels.push_back(label);
  }
  return labels;
}

std::string run_name(const std::vector<std::string>& labels, const std::vector<DiffSide>& sides,
                     size_t s, size_t r) {
  if (sides[s].runs.size() == 1) return labels[s];
  return labels[s] + " run " + std::to_string(r + 1);
}

// A score name every run without an override carries (the first such name,
// alphabetically); "" when there is none.
std::string common_score_name(const std::vector<DiffSide>& sides) {
  std::optional<std::set<std::string>> common;
  for (const DiffSide& side : sides) {
    for (const DiffRun& run : side.runs) {
      if (run.score) continue;
      std::set<std::string> names;
      for (const auto& [name, value] : run.run.scores) names.insert(name);
      if (!common) {
        common = std::move(names);
      } else {
        std::set<std::string> both;
        std::set_intersection(common->begin(), common->end(), names.begin(), names.end(),
                              std::inserter(both, both.begin()));
        common = std::move(both);
      }
    }
  }
  if (!common || common->empty()) return "";
  return *common->begin();
}

struct Scores {
  std::vector<std::vector<double>> value;  // [side][run]; empty when not every run has one
  std::string source;                      // "score 'tps'", "--score"
};

Scores resolve_scores(const std::vector<DiffSide>& sides, std::vector<std::string>& warnings) {
  Scores out;
  const std::string name = common_score_name(sides);
  bool any = false, all = true;
  std::vector<std::vector<double>> v;
  for (const DiffSide& side : sides) {
    v.emplace_back();
    for (const DiffRun& run : side.runs) {
      std::optional<double> s = run.score;
      if (!s && !name.empty()) s = run.run.scores.at(name);
      if (!s && !run.run.scores.empty()) any = true;
      if (s && *s > 0) {
        any = true;
        v.back().push_back(*s);
      } else {
        all = false;
      }
    }
  }
  if (all) {
    out.value = std::move(v);
    out.source = name.empty() ? "score (--score)" : "score '" + name + "'";
  } else if (any) {
    warnings.push_back(
        "not every profile has a positive work score (kprof record --score NAME=VALUE or kprof "
        "diff --score LABEL=VALUE): speedup from wall time, no cycles per unit of work");
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

std::optional<double> sd_of(const std::vector<double>& v) {
  if (v.size() < 2) return std::nullopt;
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// ---------------------------------------------------------------- warnings

// Below this, a 1% share is a handful of samples.
constexpr uint64_t kFewSamples = 1000;

void comparability_warnings(const std::vector<DiffSide>& sides,
                            const std::vector<std::string>& labels,
                            std::vector<std::string>& warnings) {
  const RunInfo& base = sides[0].runs[0].run;
  const std::string base_name = run_name(labels, sides, 0, 0);
  std::set<std::string> said;
  auto warn = [&](std::string w) {
    if (said.insert(w).second) warnings.push_back(std::move(w));
  };
  for (size_t s = 0; s < sides.size(); ++s) {
    for (size_t r = 0; r < sides[s].runs.size(); ++r) {
      const DiffRun& run = sides[s].runs[r];
      const std::string name = run_name(labels, sides, s, r);
      const uint64_t n = run.samples();
      if (n == 0) {
        warn(name + " has no samples: its shares are all 0");
      } else if (n < kFewSamples) {
        warn(name + " has only " + std::to_string(n) +
             " samples: shares are rough (record longer or at a higher rate)");
      }
      if (run.summary && run.summary->samples > 0 &&
          run.summary->lost * 100 > run.summary->samples) {
        warn(name + " lost " + std::to_string(run.summary->lost) + " samples (more than 1% of " +
             std::to_string(run.summary->samples) + "): shares may be skewed");
      }
      if (s == 0 && r == 0) continue;
      const EventInfo& a = base.event;
      const EventInfo& b = run.run.event;
      // What ran, not what was asked for: a fallback to cpu-clock against a
      // run that asked for cpu-clock is the same event on both sides.
      if (a.name != b.name) {
        auto ran = [](const std::string& who, const EventInfo& e) {
          return who + " ran '" + e.name + "'" + (e.fell_back ? " (fell back to it)" : "");
        };
        const bool timer = a.fell_back || b.fell_back;
        warn("different events: " + ran(base_name, a) + ", " + ran(name, b) +
             (timer ? ": timer samples are not cycles, compare shares with care" : ""));
      }
      if (a.use_freq != b.use_freq || a.rate != b.rate) {
        warn(std::string(a.use_freq && b.use_freq     ? "different sampling frequencies: "
                         : !a.use_freq && !b.use_freq ? "different sampling periods: "
                                                      : "different sampling modes: ") +
             base_name + " " + describe_rate(a) + ", " + name + " " + describe_rate(b));
      }
      if ((a.dither_pct == 0) != (b.dither_pct == 0) && a.use_freq && b.use_freq) {
        warn("the clock's period was dithered in " + (a.dither_pct != 0 ? base_name : name) +
             " only: a loop in step with a fixed period can read differently in the other");
      }
      if (base.cpu_model != run.run.cpu_model) {
        warn("different CPU models: " + base_name + " '" + base.cpu_model + "', " + name + " '" +
             run.run.cpu_model + "'");
      }
      if (a.exclude_kernel != b.exclude_kernel) {
        warn("kernel samples excluded in " + (a.exclude_kernel ? base_name : name) +
             " only (perf_event_paranoid): kernel rows are not comparable");
      }
    }
  }
}

// ---------------------------------------------------------------- rows

struct RowKey {
  std::string image, name;
};

RowKey key_of(const Histogram& h, const FunctionCount& fc, DiffBy by) {
  const std::string& image = fc.image < h.images.size() ? h.images[fc.image].name : "[unknown]";
  switch (by) {
    case DiffBy::Function:
      return {image, canonical_name(fc.function)};
    case DiffBy::Image:
      return {"", image};
    case DiffBy::Mode:
      return {"", mode_name(fc.mode)};
  }
  return {};
}

struct Acc {
  RowKey key;
  std::set<std::string> raw;
  std::vector<std::vector<Counts>> runs;  // [side][run]
  // [side][run]: the row's samples per time slice (empty: none known).
  std::vector<std::vector<std::vector<uint32_t>>> slices;
};

std::vector<Acc> accumulate(const std::vector<DiffSide>& sides, DiffBy by) {
  std::vector<Acc> rows;
  std::unordered_map<std::string, size_t> index;
  std::string k;
  for (size_t s = 0; s < sides.size(); ++s) {
    for (size_t r = 0; r < sides[s].runs.size(); ++r) {
      const Histogram& h = sides[s].runs[r].histogram;
      for (const FunctionCount& fc : h.rows) {
        RowKey key = key_of(h, fc, by);
        k.assign(key.image).push_back('\0');
        k.append(key.name);
        auto [it, added] = index.try_emplace(k, rows.size());
        if (added) {
          Acc acc{std::move(key), {}, {}, {}};
          for (const DiffSide& side : sides) {
            acc.runs.emplace_back(side.runs.size());
            acc.slices.emplace_back(side.runs.size());
          }
          rows.push_back(std::move(acc));
        }
        Acc& acc = rows[it->second];
        if (by == DiffBy::Function) acc.raw.insert(fc.function);
        acc.runs[s][r].samples += fc.samples;
        acc.runs[s][r].period += fc.period;
        if (!fc.slices.empty()) {
          std::vector<uint32_t>& sl = acc.slices[s][r];
          if (sl.empty()) sl.assign(fc.slices.size(), 0);
          for (size_t j = 0; j < sl.size() && j < fc.slices.size(); ++j) sl[j] += fc.slices[j];
        }
      }
    }
  }
  return rows;
}

// A cut top-N listing (what it left out is one kNotListed row): the fewest samples a listed row
// has; else 0.
uint64_t listing_cutoff(const DiffRun& run) {
  if (!listing_format(run.run.source_format)) return 0;
  const Histogram& h = run.histogram;
  uint64_t least = 0;
  bool cut = false;
  for (const FunctionCount& fc : h.rows) {
    const bool rest = fc.image < h.images.size() && h.images[fc.image].name == kNotListed;
    cut |= rest;
    if (!rest && fc.samples > 0 && (least == 0 || fc.samples < least)) least = fc.samples;
  }
  return cut ? least : 0;
}

std::vector<std::vector<RunTotals>> run_totals(const std::vector<DiffSide>& sides,
                                               const Scores& scores) {
  std::vector<std::vector<RunTotals>> t;
  for (size_t s = 0; s < sides.size(); ++s) {
    t.emplace_back();
    for (size_t r = 0; r < sides[s].runs.size(); ++r) {
      const DiffRun& run = sides[s].runs[r];
      RunTotals rt;
      for (const FunctionCount& fc : run.histogram.rows) {
        rt.samples += fc.samples;
        rt.period += fc.period;
      }
      if (run.total_samples) rt.samples = *run.total_samples;
      if (run.total_period) rt.period = *run.total_period;
      rt.cutoff = listing_cutoff(run);
      if (!run.total_samples) rt.slice_totals = run.histogram.slice_totals();
      if (!scores.value.empty()) {
        double seconds = run.summary && run.summary->duration_ns
                             ? static_cast<double>(run.summary->duration_ns) / 1e9
                             : 1.0;
        rt.work = scores.value[s][r] * seconds;
      }
      t.back().push_back(rt);
    }
  }
  return t;
}

SideSummary summarize_side(const DiffSide& side, const std::string& label,
                           const std::vector<double>* scores, double base_score,
                           double base_real_s) {
  SideSummary out;
  out.label = label;
  out.runs = side.runs.size();
  if (!side.runs.empty()) out.source_format = side.runs[0].run.source_format;
  for (const DiffRun& run : side.runs) {
    out.counts &= run.run.sample_counts;
    out.listing |= listing_format(run.run.source_format);
  }
  std::vector<double> speedups, real;
  ProcStatRates sum;
  size_t with_rates = 0;
  for (size_t r = 0; r < side.runs.size(); ++r) {
    const DiffRun& run = side.runs[r];
    if (!run.summary) continue;
    const Summary& sm = *run.summary;
    out.samples += sm.samples;
    out.lost += sm.lost;
    if (sm.real_s > 0) real.push_back(sm.real_s);
    if (sm.stat_after.time_ns > run.run.stat_before.time_ns && run.run.stat_before.time_ns) {
      ProcStatRates x = rates_between(run.run.stat_before, sm.stat_after);
      sum.interrupts_per_s += x.interrupts_per_s;
      sum.ctxsw_per_s += x.ctxsw_per_s;
      sum.user_pct += x.user_pct;
      sum.sys_pct += x.sys_pct;
      sum.idle_pct += x.idle_pct;
      sum.iowait_pct += x.iowait_pct;
      ++with_rates;
    }
  }
  if (out.samples == 0) {  // no Summary chunk: count what the histograms hold
    for (const DiffRun& run : side.runs) {
      if (run.run.sample_counts) out.samples += run.samples();  // not shares
    }
  }
  if (with_rates) {
    const double n = static_cast<double>(with_rates);
    out.rates = ProcStatRates{sum.interrupts_per_s / n, sum.ctxsw_per_s / n, sum.user_pct / n,
                              sum.sys_pct / n,          sum.idle_pct / n,    sum.iowait_pct / n};
  }
  if (real.size() == side.runs.size()) out.real_s = mean_of(real);
  if (scores) {
    out.score = mean_of(*scores);
    for (double v : *scores) speedups.push_back(v / base_score);
  } else if (out.real_s && base_real_s > 0) {
    for (double t : real) speedups.push_back(base_real_s / t);
  }
  if (!speedups.empty()) {
    out.speedup = mean_of(speedups);
    out.speedup_sd = sd_of(speedups);
  }
  return out;
}

// Rows at interrupt-enable points in a diff where some side was sampled by a
// timer, and one warning saying how much of each side's samples fell there
// when that is material.
void mark_irq_skid(const std::vector<DiffSide>& sides, DiffResult& out) {
  bool timer = false;
  for (const DiffSide& side : sides) {
    for (const DiffRun& run : side.runs) timer |= timer_sampled(run.run.event);
  }
  if (!timer || out.options.by != DiffBy::Function || !out.options.view.empty()) return;
  std::set<std::pair<std::string, std::string>> charged;  // (image, canonical name)
  for (const DiffSide& side : sides) {
    for (const DiffRun& run : side.runs) {
      const Histogram& h = run.histogram;
      for (const FunctionCount& fc : h.rows) {
        if (!skid_charged(fc) || fc.image >= h.images.size()) continue;
        charged.emplace(h.images[fc.image].name, canonical_name(fc.function));
      }
    }
  }
  for (DiffRow& row : out.rows) row.irq_skid = charged.count({row.image, row.name}) > 0;
  std::string shares;
  bool material = false;
  for (size_t s = 0; s < sides.size(); ++s) {
    double pct = 0;
    for (const DiffRow& row : out.rows) pct += row.irq_skid ? row.cells[s].pct : 0;
    material |= pct > kIrqSkidNoticePct;
    shares += (s ? ", " : "") + format_fixed(pct, 1) + "% of " + out.labels[s] + "'s";
  }
  if (!material) return;
  out.warnings.push_back(
      "irq-skid: " + shares +
      " samples fell at interrupt-enable points (*_unlock_irqrestore, finish_task_switch, the "
      "return to user mode, ...): cpu-clock cannot interrupt while interrupts are off, so that "
      "time is charged where they are switched back on; a change in a row marked irq-skid may be "
      "a move of interrupt-disabled time, not of work");
}

}  // namespace

std::vector<std::string> diff_labels(const std::vector<DiffSide>& sides) {
  return resolve_labels_impl(sides);
}

DiffResult diff_profiles(const DiffInput& in) {
  if (in.sides.size() < 2) throw Error("diff needs at least two profiles: kprof diff BASE NEW");
  for (const DiffSide& side : in.sides) {
    if (side.runs.empty()) throw Error("a side of the diff has no profiles: check the '--'s");
  }
  DiffResult out;
  out.options = in.options;
  out.labels = diff_labels(in.sides);
  out.warnings = in.warnings;
  comparability_warnings(in.sides, out.labels, out.warnings);
  const Scores scores = resolve_scores(in.sides, out.warnings);
  out.has_work = !scores.value.empty();
  out.share_title = share_title(in.sides[0].runs[0].run.event);
  out.work_in_ns = true;
  for (const DiffSide& side : in.sides) {
    for (const DiffRun& run : side.runs) out.work_in_ns &= timer_sampled(run.run.event);
  }
  std::vector<std::optional<Environment>> environments;
  for (const DiffSide& side : in.sides) environments.push_back(side.runs[0].environment);
  out.environment = diff_environments(environments);

  // Run summary.
  const double base_score = out.has_work ? mean_of(scores.value[0]) : 0;
  SideSummary base = summarize_side(in.sides[0], out.labels[0], nullptr, 0, 0);
  for (size_t s = 0; s < in.sides.size(); ++s) {
    out.summary.push_back(summarize_side(in.sides[s], out.labels[s],
                                         out.has_work ? &scores.value[s] : nullptr, base_score,
                                         base.real_s.value_or(0)));
  }
  if (out.has_work) {
    out.speedup_source = scores.source;
  } else if (out.summary[0].speedup) {
    out.speedup_source = "wall time";
  }

  // Rows.
  const auto totals = run_totals(in.sides, scores);
  std::vector<Acc> acc = accumulate(in.sides, in.options.by);
  out.rows.reserve(acc.size());
  for (Acc& a : acc) {
    DiffRow row;
    row.image = std::move(a.key.image);
    row.name = std::move(a.key.name);
    row.raw_names.assign(a.raw.begin(), a.raw.end());
    for (size_t s = 0; s < in.sides.size(); ++s) {
      row.cells.push_back(diff_detail::make_cell(a.runs[s], totals[s], out.has_work, a.slices[s]));
    }
    row.vs_base.resize(in.sides.size());
    out.rows.push_back(std::move(row));
  }
  out.noise.resize(in.sides.size(), NoiseMethod::Sampling);
  out.interval_alpha.resize(in.sides.size(), in.options.alpha);
  out.work_interval_alpha.resize(in.sides.size(), in.options.alpha);
  out.screened.resize(in.sides.size());
  out.spread.resize(in.sides.size());
  out.slice_dispersion.resize(in.sides.size(), 0);
  out.slice_dispersion_df.resize(in.sides.size(), std::numeric_limits<double>::infinity());
  auto counted = [](const DiffSide& side) {
    return std::all_of(side.runs.begin(), side.runs.end(),
                       [](const DiffRun& run) { return run.run.sample_counts; });
  };
  for (size_t s = 1; s < in.sides.size(); ++s) {
    if (!counted(in.sides[0]) || !counted(in.sides[s])) {
      out.noise[s] = NoiseMethod::None;
    } else if (in.sides[0].runs.size() >= 2 && in.sides[s].runs.size() >= 2) {
      out.noise[s] = NoiseMethod::RunVariance;
    }
    const diff_detail::SideLevels levels = diff_detail::compare_side(
        out.rows, s, out.noise[s], totals, in.options.alpha, out.has_work);
    out.interval_alpha[s] = levels.share_alpha;
    out.work_interval_alpha[s] = levels.work_alpha;
    out.screened[s] = levels.screened;
    out.spread[s] = levels.spread;
    out.slice_dispersion[s] = levels.dispersion;
    out.slice_dispersion_df[s] = levels.dispersion_df;
  }
  mark_irq_skid(in.sides, out);
  out.moves = find_cost_moves(in.sides, out);
  for (DiffRow& row : out.rows) {
    if (out.options.by == DiffBy::Function && row.image == "[kernel]") {
      row.config_option = owning_option(out.environment, row.name);
    }
  }
  auto max_pct = [](const DiffRow& r) {
    double m = 0;
    for (const DiffCell& c : r.cells) m = std::max(m, c.pct);
    return m;
  };
  std::sort(out.rows.begin(), out.rows.end(), [&](const DiffRow& a, const DiffRow& b) {
    if (a.max_abs_delta != b.max_abs_delta) return a.max_abs_delta > b.max_abs_delta;
    const double ma = max_pct(a), mb = max_pct(b);
    if (ma != mb) return ma > mb;
    return std::tie(a.image, a.name) < std::tie(b.image, b.name);
  });
  return out;
}

bool listing_format(const std::string& source_format) {
  return source_format == "opreport" || source_format == "perf report";
}

const char* verdict_name(const DiffCompare& c, NoiseMethod method) {
  if (method == NoiseMethod::None) return "no verdict";
  if (c.untested) return "untested";
  return c.within_noise ? "noise" : "changed";
}

const char* work_verdict_name(const DiffCompare& c, NoiseMethod method) {
  if (!c.work_tested) return "";
  if (method == NoiseMethod::None) return "no verdict";
  return c.work_within_noise ? "noise" : "changed";
}

uint64_t DiffRun::samples() const {
  return total_samples ? *total_samples : histogram.total_samples();
}

DiffRun diff_run_of(Profile profile, std::vector<std::string>& warnings, const DiffView& view) {
  const std::string path = profile.path;
  ProfileHistogram hist = histogram_of(profile);
  require_recovered_samples(profile, hist);
  if (const std::string read = read_notice(profile, hist); !read.empty()) {
    warnings.push_back(path + ": " + read);
  }
  DiffRun run;
  run.source = path;
  run.run = std::move(profile.run);
  run.summary = std::move(profile.summary);
  run.environment = std::move(profile.environment);
  run.syscalls = std::move(profile.syscalls);
  if (view.children || !view.callers.empty()) {
    if (!hist.stacks) {
      throw Error(path + " has no call chains for --" +
                  (view.callers.empty() ? "children" : "callers") +
                  ": record it with kprof record -g");
    }
    run.histogram = view.callers.empty() ? inclusive_histogram(*hist.stacks)
                                         : callers_histogram(*hist.stacks, view.callers, path);
    run.total_samples = hist.stacks->total_samples();
    uint64_t period = 0;
    for (const Stack& s : hist.stacks->stacks) period += s.period;
    run.total_period = period;
  } else {
    run.histogram = std::move(hist.histogram);
  }
  run.stacks = std::move(hist.stacks);
  return run;
}

}  // namespace kprof
