// The table exports: every row of a report, call-graph view or diff as
// RFC 4180 CSV (export/csv.h) or JSON, for spreadsheets, scripts and pages.
#include "export/tables.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "export/csv.h"
#include "export/environment_export.h"
#include "export/json_number.h"
#include "report/table.h"

namespace kprof {
namespace {

void write_csv_node(std::ostream& out, const CallTreeNode& n, size_t depth,
                    const std::string& parent_path, uint64_t root) {
  std::string path = depth == 0 ? n.function : parent_path + ";" + n.function;
  write_csv_row(out, {format_count(depth), path, format_count(n.samples),
                      format_percent(percent_of(n.samples, root)), n.image, n.function, n.mode});
  for (const CallTreeNode& c : n.children) write_csv_node(out, c, depth + 1, path, root);
}

std::string printf_string_10g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string csv_num(double v) {
  return std::isfinite(v) ? printf_string_10g(v) : "";
}

std::string csv_opt(const std::optional<double>& v) {
  return v ? csv_num(*v) : "";
}

}  // namespace

void write_report_csv(std::ostream& out, const Histogram& h, SortKey key,
                      const std::string& image_header) {
  const uint64_t total = h.total_samples();
  write_csv_row(out, {"samples", "percent", image_header, "function", "mode"});
  for (const ReportRow& r : report_rows(h, key)) {
    write_csv_row(out, {format_count(r.samples), format_percent(percent_of(r.samples, total)),
                        r.image, r.function, r.mode});
  }
}

void write_children_csv(std::ostream& out, const Stacks& s) {
  const uint64_t total = s.total_samples();
  write_csv_row(out, {"self_samples", "self_percent", "total_samples", "total_percent", "image",
                      "function", "mode"});
  for (const ChildrenRow& r : children_rows(s)) {
    write_csv_row(
        out, {format_count(r.self_samples), format_percent(percent_of(r.self_samples, total)),
              format_count(r.total_samples), format_percent(percent_of(r.total_samples, total)),
              r.image, r.function, mode_name(r.mode)});
  }
}

void write_call_tree_csv(std::ostream& out, const CallTree& tree) {
  write_csv_row(out,
                {"depth", "path", "samples", "percent_of_function", "image", "function", "mode"});
  write_csv_node(out, tree.root, 0, "", tree.root.samples);
}

namespace {
// Whether a row got a test on side s: its interval, p and q mean something.
bool judged(const DiffCompare& d, NoiseMethod method) {
  return method != NoiseMethod::None && !d.untested && d.sided != Sidedness::Neither;
}
}  // namespace

void write_diff_csv(std::ostream& out, const DiffResult& r) {
  std::vector<std::string> head = {"image", "name", "raw_names", "irq_skid", "config_option"};
  for (size_t s = 0; s < r.labels.size(); ++s) {
    const std::string& l = r.labels[s];
    for (const char* c : {" %", " samples", " period", " pct_at_most"}) head.push_back(l + c);
    if (r.has_work) head.push_back(l + " events_per_work");
    if (s == 0) continue;
    for (const char* c :
         {" delta_pp", " ci_lo_pp", " ci_hi_pp", " ci_level", " p", " q", " ratio", " sided",
          " verdict", " noise_method", " ratio_bound", " bounds_lo_pp", " bounds_hi_pp"}) {
      head.push_back(l + c);
    }
    if (r.has_work) {
      for (const char* c :
           {" events_per_work_change_pct", " events_per_work_ci_lo_pct",
            " events_per_work_ci_hi_pct", " events_per_work_ci_level", " events_per_work_p",
            " events_per_work_q", " events_per_work_verdict", " overweight_pct"}) {
        head.push_back(l + c);
      }
    }
  }
  write_csv_row(out, head);
  for (const DiffRow& row : r.rows) {
    std::string raw;
    for (const std::string& n : row.raw_names) raw += (raw.empty() ? "" : "; ") + n;
    std::vector<std::string> f = {row.image, row.name, raw, row.irq_skid ? "yes" : "",
                                  row.config_option};
    for (size_t s = 0; s < r.labels.size(); ++s) {
      const DiffCell& c = row.cells[s];
      f.push_back(csv_num(c.pct));
      // A listing of shares only has no counts: none invented from shares.
      f.push_back(r.summary[s].counts ? std::to_string(c.samples) : "");
      f.push_back(std::to_string(c.period));
      f.push_back(c.unlisted ? csv_num(c.pct_max) : "");
      if (r.has_work) f.push_back(csv_opt(c.events_per_work));
      if (s == 0) continue;
      const DiffCompare& d = row.vs_base[s];
      f.push_back(csv_num(d.change.delta_pp));
      if (judged(d, r.noise[s])) {
        for (double v :
             {d.change.lo_pp, d.change.hi_pp, 1 - r.interval_alpha[s], d.change.p, d.q}) {
          f.push_back(csv_num(v));
        }
      } else {
        f.insert(f.end(), 5, "");  // never tested: no interval, level, p or q
      }
      f.push_back(csv_opt(d.ratio));
      f.push_back(sidedness_mark(d.sided));
      f.push_back(verdict_name(d, r.noise[s]));
      f.push_back(noise_method_name(r.noise[s]));
      f.push_back(ratio_bound_name(d.ratio_bound));
      f.push_back(d.bounded ? csv_num(d.bounds_lo) : "");
      f.push_back(d.bounded ? csv_num(d.bounds_hi) : "");
      if (r.has_work) {
        f.push_back(csv_opt(d.work_change_pct));
        if (d.work_tested) {
          for (double v :
               {d.work.lo_pp, d.work.hi_pp, 1 - r.work_interval_alpha[s], d.work.p, d.work_q}) {
            f.push_back(csv_num(v));
          }
        } else {
          f.insert(f.end(), 5, "");
        }
        f.push_back(work_verdict_name(d, r.noise[s]));
        f.push_back(csv_opt(d.overweight_pct));
      }
    }
    write_csv_row(out, f);
  }
}

void write_diff_json(std::ostream& out, const DiffResult& r) {
  using nlohmann::json;
  json j;
  j["by"] = diff_by_name(r.options.by);
  j["labels"] = r.labels;
  j["warnings"] = r.warnings;
  j["speedup_source"] = r.speedup_source;
  j["share"] = r.share_title;
  j["alpha"] = r.options.alpha;
  json sides = json::array();
  for (size_t s = 0; s < r.summary.size(); ++s) {
    const SideSummary& m = r.summary[s];
    json side = {{"label", m.label},
                 {"runs", m.runs},
                 {"speedup", json_number(m.speedup)},
                 {"speedup_sd", json_number(m.speedup_sd)},
                 {"samples", m.counts ? json(m.samples) : json(nullptr)},
                 {"lost", m.listing ? json(nullptr) : json(m.lost)},  // a listing does not say
                 {"score", json_number(m.score)},
                 {"real_s", json_number(m.real_s)}};
    if (m.rates) {
      side["interrupts_per_s"] = m.rates->interrupts_per_s;
      side["ctxsw_per_s"] = m.rates->ctxsw_per_s;
      side["user_pct"] = m.rates->user_pct;
      side["sys_pct"] = m.rates->sys_pct;
      side["idle_pct"] = m.rates->idle_pct;
      side["iowait_pct"] = m.rates->iowait_pct;
    }
    if (s > 0) {
      side["noise_method"] = noise_method_name(r.noise[s]);
      if (r.noise[s] != NoiseMethod::None) side["interval_level"] = 1 - r.interval_alpha[s];
      if (r.has_work) side["events_per_work_interval_level"] = 1 - r.work_interval_alpha[s];
      // The counts' typical variance against binomial over time slices (null: not measured).
      const bool sliced = s < r.slice_dispersion.size() && r.slice_dispersion[s] > 0;
      side["slice_dispersion"] = sliced ? json(r.slice_dispersion[s]) : json(nullptr);
    }
    sides.push_back(std::move(side));
  }
  j["profiles"] = std::move(sides);
  json rows = json::array();
  for (const DiffRow& row : r.rows) {
    json cells = json::array();
    for (size_t s = 0; s < row.cells.size(); ++s) {
      const DiffCell& c = row.cells[s];
      json cell = {{"label", r.labels[s]},
                   {"pct", c.pct},
                   {"samples", r.summary[s].counts ? json(c.samples) : json(nullptr)},
                   {"period", c.period},
                   {"run_pct", c.run_pct},
                   {"events_per_work", json_number(c.events_per_work)}};
      if (c.unlisted) cell["pct_at_most"] = c.pct_max;
      if (s > 0) {
        const DiffCompare& d = row.vs_base[s];
        cell["delta_pp"] = json_number(d.change.delta_pp);
        const bool tested = judged(d, r.noise[s]);  // else: no interval, p or q
        cell["ci_lo_pp"] = tested ? json_number(d.change.lo_pp) : json(nullptr);
        cell["ci_hi_pp"] = tested ? json_number(d.change.hi_pp) : json(nullptr);
        cell["p"] = tested ? json_number(d.change.p) : json(nullptr);
        cell["q"] = tested ? json_number(d.q) : json(nullptr);
        cell["ratio"] = json_number(d.ratio);
        cell["ratio_bound"] = ratio_bound_name(d.ratio_bound);
        if (d.bounded) {
          cell["bounds_lo_pp"] = d.bounds_lo;
          cell["bounds_hi_pp"] = d.bounds_hi;
        }
        cell["sided"] = sidedness_mark(d.sided);
        // The counts' variance against binomial over time slices (null: not measured).
        cell["dispersion"] = d.dispersion_df > 0 ? json(d.dispersion) : json(nullptr);
        cell["verdict"] = verdict_name(d, r.noise[s]);
        cell["events_per_work_change_pct"] = json_number(d.work_change_pct);
        cell["overweight_pct"] = json_number(d.overweight_pct);
        if (d.work_tested) {
          cell["events_per_work_ci_lo_pct"] = json_number(d.work.lo_pp);
          cell["events_per_work_ci_hi_pct"] = json_number(d.work.hi_pp);
          cell["events_per_work_p"] = json_number(d.work.p);
          cell["events_per_work_q"] = json_number(d.work_q);
          cell["events_per_work_verdict"] = work_verdict_name(d, r.noise[s]);
        }
      }
      cells.push_back(std::move(cell));
    }
    rows.push_back({{"image", row.image},
                    {"name", row.name},
                    {"raw_names", row.raw_names},
                    {"max_abs_delta_pp", row.max_abs_delta},
                    {"irq_skid", row.irq_skid},
                    {"config_option", row.config_option},
                    {"sides", std::move(cells)}});
  }
  j["rows"] = std::move(rows);
  // What differs besides the workload: every differing fact and option.
  j["environment"] = environment_json(r.environment);
  out << j.dump(2) << "\n";
}

}  // namespace kprof
