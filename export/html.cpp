// The HTML pages: the skeleton, the compiled-in CSS and JavaScript, and the
// JSON data island built from a DiffResult or a profile.
#include "export/html.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "export/environment_export.h"
#include "export/json_number.h"
#include "export/page_assets.h"
#include "export/per_call_export.h"
#include "report/callgraph.h"
#include "report/table.h"

namespace kprof {
namespace {

using nlohmann::json;

// Names are stored once in the island's "strings"; rows and nodes refer to
// them by index.
class Strings {
 public:
  size_t operator()(const std::string& s) {
    auto [it, added] = index_.try_emplace(s, list_.size());
    if (added) list_.push_back(s);
    return it->second;
  }
  json take() { return std::move(list_); }

 private:
  std::unordered_map<std::string, size_t> index_;
  json list_ = json::array();
};

// Percentages and points to 5 decimals (the views show 4).
json pp(double v) {
  if (!std::isfinite(v)) return nullptr;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.5f", v);
  return std::strtod(buf, nullptr);
}

json side_facts(const std::string& label, const RunInfo& run, const std::optional<Summary>& sm) {
  json j = {{"label", label},
            {"kernel", run.kernel_release},
            {"event", run.event.name},
            {"requested", run.event.requested.empty() ? "(default)" : run.event.requested},
            {"fallback", run.event.fell_back ? run.event.fallback_reason : ""},
            {"rate", describe_rate(run.event)},
            {"command", describe_target(run)},
            {"source_format", run.source_format},
            {"duration_s", nullptr},
            {"noise", ""},
            {"noise_text", ""}};
  if (sm && sm->duration_ns)
    j["duration_s"] = json_rounded(static_cast<double>(sm->duration_ns) / 1e9);
  return j;
}

json compare_json(const DiffCompare& c, NoiseMethod method, bool full) {
  json j = {{"d", pp(c.change.delta_pp)},   {"lo", pp(c.change.lo_pp)},
            {"hi", pp(c.change.hi_pp)},     {"q", json_rounded(c.q, 3)},
            {"v", verdict_name(c, method)}, {"sd", sidedness_mark(c.sided)}};
  if (full && c.work_tested) {
    j["wlo"] = pp(c.work.lo_pp);
    j["whi"] = pp(c.work.hi_pp);
    j["wq"] = json_rounded(c.work_q, 3);
    j["wv"] = work_verdict_name(c, method);
  }
  if (full) {
    j["p"] = json_rounded(c.change.p, 3);
    j["r"] = json_rounded(c.ratio, 4);
    j["w"] = json_rounded(c.work_change_pct, 4);
  }
  return j;
}

json flame_json(const FlameDiff& f, Strings& str) {
  json nodes = json::array();
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    const FlameNode& node = f.nodes[n];
    json cmp = json::array({nullptr});
    for (size_t s = 1; s < f.totals.size(); ++s) {
      cmp.push_back(compare_json(f.vs_base[n][s], f.noise[s], false));
    }
    nodes.push_back({{"p", node.parent},
                     {"n", str(node.name)},
                     {"i", str(node.image)},
                     {"m", node.mode},
                     {"s", f.samples[n]},
                     {"cmp", std::move(cmp)}});
  }
  return {{"chains", f.chains}, {"totals", f.totals}, {"pruned", f.pruned}, {"nodes", nodes}};
}

json flame_json(const FlameTree& t, Strings& str) {
  json nodes = json::array();
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const FlameNode& node = t.nodes[n];
    nodes.push_back({{"p", node.parent},
                     {"n", str(node.name)},
                     {"i", str(node.image)},
                     {"m", node.mode},
                     {"s", json::array({t.samples[0][n]})}});
  }
  return {{"chains", t.chains}, {"totals", t.totals}, {"pruned", 0}, {"nodes", nodes}};
}

// The skeleton around the island. The island's text is JSON with '<', '>'
// and '&' written as \u escapes, so it cannot close its <script> element.
void write_page(std::ostream& out, const json& data) {
  std::string island = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string escaped;
  escaped.reserve(island.size() + island.size() / 16);
  for (char c : island) {
    switch (c) {
      case '<':
        escaped += "\\u003c";
        break;
      case '>':
        escaped += "\\u003e";
        break;
      case '&':
        escaped += "\\u0026";
        break;
      default:
        escaped += c;
    }
  }
  out << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>kprof</title>\n<style>\n"
      << kPageCss << "</style></head>\n<body><div id=\"app\"></div>\n"
      << "<script type=\"application/json\" id=\"kprof-data\">" << escaped << "</script>\n"
      << "<script>\n"
      << kPageJs << "</script>\n</body></html>\n";
}

}  // namespace

void write_diff_html(std::ostream& out, const DiffInput& in, const DiffResult& r,
                     const FlameDiff& flame, const FlameDiff* off_cpu) {
  Strings str;
  std::optional<PerCallDiff> per_call;  // when every run was recorded with -g --syscalls
  if (per_call_recorded(in))
    per_call = per_call_diff(per_call_sides(in, r.labels), in.options.alpha);
  json sides = json::array();
  for (size_t s = 0; s < r.labels.size(); ++s) {
    const DiffRun& first = in.sides[s].runs[0];
    json side = side_facts(r.labels[s], first.run, first.summary);
    side["files"] = json::array();
    // Each run's duration (the card shows them, not the first run's beside
    // the samples of all).
    side["durations_s"] = json::array();
    for (const DiffRun& run : in.sides[s].runs) {
      side["files"].push_back(path_basename(run.source));
      const bool known = run.summary && run.summary->duration_ns;
      side["durations_s"].push_back(
          known ? json(json_rounded(static_cast<double>(run.summary->duration_ns) / 1e9)) : json());
    }
    side["samples"] = r.summary[s].samples;
    side["lost"] = r.summary[s].lost;
    side["runs"] = r.summary[s].runs;
    if (s > 0) {
      side["noise"] = noise_method_name(r.noise[s]);
      side["noise_text"] = diff_noise_line(r, s);
      side["ci_level"] = json_rounded(100 * (1 - r.interval_alpha[s]), 4);
    }
    sides.push_back(std::move(side));
  }
  json summary_rows = json::array();
  for (const SideSummary& m : r.summary) {
    json row = {{"label", m.label},
                {"runs", m.runs},
                {"speedup", json_rounded(m.speedup)},
                {"speedup_sd", json_rounded(m.speedup_sd)},
                {"score", json_rounded(m.score)},
                {"real_s", json_rounded(m.real_s)},
                {"samples", m.samples},
                {"lost", m.lost}};
    for (const char* k :
         {"interrupts_per_s", "ctxsw_per_s", "user_pct", "sys_pct", "idle_pct", "iowait_pct"}) {
      row[k] = nullptr;
    }
    if (m.rates) {
      row["interrupts_per_s"] = json_rounded(m.rates->interrupts_per_s);
      row["ctxsw_per_s"] = json_rounded(m.rates->ctxsw_per_s);
      row["user_pct"] = json_rounded(m.rates->user_pct);
      row["sys_pct"] = json_rounded(m.rates->sys_pct);
      row["idle_pct"] = json_rounded(m.rates->idle_pct);
      row["iowait_pct"] = json_rounded(m.rates->iowait_pct);
    }
    summary_rows.push_back(std::move(row));
  }
  json rows = json::array();
  for (const DiffRow& row : r.rows) {
    json raw = json::array(), pct = json::array(), samples = json::array(), epw = json::array();
    json cmp = json::array({nullptr});
    for (const std::string& n : row.raw_names) raw.push_back(str(n));
    for (size_t s = 0; s < row.cells.size(); ++s) {
      pct.push_back(pp(row.cells[s].pct));
      samples.push_back(row.cells[s].samples);
      epw.push_back(json_rounded(row.cells[s].events_per_work));
      if (s > 0) cmp.push_back(compare_json(row.vs_base[s], r.noise[s], true));
    }
    json j = {{"n", str(row.name)},
              {"i", str(row.image)},
              {"pct", std::move(pct)},
              {"s", std::move(samples)},
              {"cmp", std::move(cmp)}};
    if (row.merged()) j["raw"] = std::move(raw);  // else the one raw name is the name
    if (row.irq_skid) j["k"] = true;              // at an interrupt-enable point (skid.h)
    if (!row.config_option.empty()) j["o"] = str(row.config_option);  // its option's own code
    j["epw"] = r.has_work ? std::move(epw) : json(nullptr);
    rows.push_back(std::move(j));
  }
  json data = {{"kind", "diff"},
               {"share", r.share_title},
               {"alpha", r.options.alpha},
               {"by", diff_by_name(r.options.by)},
               {"view", r.options.view},
               {"top", r.options.top},
               {"sides", std::move(sides)},
               {"warnings", r.warnings},
               {"summary", {{"speedup_source", r.speedup_source}, {"rows", summary_rows}}},
               {"has_work", r.has_work},
               {"environment", environment_json(r.environment)},
               {"per_call", per_call ? per_call_diff_json(*per_call) : nlohmann::json(nullptr)},
               {"rows", std::move(rows)}};
  data["flame"] = flame_json(flame, str);
  if (off_cpu != nullptr) data["off_cpu_flame"] = flame_json(*off_cpu, str);
  data["strings"] = str.take();
  write_page(out, data);
}

namespace {

// The island's "timeline" (export/page/CONTRACT.md): slice edges in seconds
// from the recording's start, samples per second, and each top row's share
// (%) per slice.
json timeline_json(const Timeline& t, Strings& str) {
  json edges = json::array(), rate = json::array(), rows = json::array();
  for (const uint64_t e : t.edges) {
    edges.push_back(pp(static_cast<double>(e >= t.start_ns ? e - t.start_ns : 0) / 1e9));
  }
  for (const double r : t.rate) rate.push_back(pp(r));
  for (const TimelineRow& row : t.rows) {
    json share = json::array();
    for (const double v : row.share) share.push_back(pp(100.0 * v));
    rows.push_back({{"n", str(row.function)},
                    {"i", str(row.image)},
                    {"s", row.samples},
                    {"share", std::move(share)}});
  }
  return {{"edges_s", std::move(edges)},
          {"in_slice", t.in_slice},
          {"rate", std::move(rate)},
          {"rows", std::move(rows)}};
}

}  // namespace

void write_report_html(std::ostream& out, const Profile& profile, const ProfileHistogram& hist,
                       const Timeline* timeline) {
  Strings str;
  const RunInfo& run = profile.run;
  const std::string label =
      run.kernel_release.empty() ? std::string(path_basename(profile.path)) : run.kernel_release;
  json side = side_facts(label, run, profile.summary);
  side["files"] = json::array({path_basename(profile.path)});
  const uint64_t total = hist.histogram.total_samples();
  // A recording of several events: the table's event's samples, not all.
  side["samples"] = profile.summary && run.more_events.empty() ? profile.summary->samples : total;
  side["lost"] = profile.summary ? profile.summary->lost : 0;
  side["runs"] = 1;

  std::vector<std::string> warnings;
  if (const std::string read = read_notice(profile, hist); !read.empty()) warnings.push_back(read);
  for (const std::string& n : run_notices(run)) warnings.push_back(n);
  if (!run.more_events.empty()) warnings.push_back("also recorded: " + describe_more_events(run));
  if (run.event.fell_back) {
    warnings.push_back("sampled cpu-clock, not cycles: " + run.event.fallback_reason);
  }
  if (profile.summary) {
    const Summary& s = *profile.summary;
    if (s.lost) {
      warnings.push_back("lost " + format_count(s.lost) + " samples (" +
                         format_percent(percent_of(s.lost, s.samples + s.lost)) +
                         "% of all samples)");
    }
    if (s.throttled) {
      warnings.push_back("the kernel throttled sampling " + format_count(s.throttled) +
                         " times: the rate is too high for this machine");
    }
  }
  if (hist.stacks) {
    // A DWARF-unwound profile knows why each stack ended; others guess.
    const std::string t =
        profile.unwind ? unwind_notice(*profile.unwind) : truncation_notice(*hist.stacks);
    if (!t.empty()) warnings.push_back(t);
  }

  json rows = json::array();
  for (const ReportRow& row : report_rows(hist.histogram, SortKey::Function)) {
    rows.push_back({{"n", str(row.function)},
                    {"i", str(row.image)},
                    {"m", row.mode},
                    {"s", row.samples},
                    {"pct", pp(percent_of(row.samples, total))}});
  }
  json data = {{"kind", "report"},
               {"share", share_title(run.event)},
               {"alpha", 0.05},
               {"by", "function"},
               {"view", ""},
               {"top", 0},
               {"sides", json::array({std::move(side)})},
               {"warnings", warnings},
               {"has_work", false},
               {"rows", std::move(rows)}};
  const FlameTree tree =
      flame_tree({FlameRun{&hist.histogram, hist.stacks ? &*hist.stacks : nullptr}}, false);
  data["flame"] = flame_json(tree, str);
  // A --off-cpu recording's off-CPU time, as a second flame graph beside the
  // first (not when the page already shows it: report --off-cpu --html).
  if (profile.off_cpu && profile.run.event.name != "off-cpu") {
    const Histogram leaves = leaf_histogram(profile.off_cpu->stacks);
    data["off_cpu_flame"] =
        flame_json(flame_tree({FlameRun{&leaves, &profile.off_cpu->stacks}}, false), str);
  }
  if (timeline && timeline->slices() > 0) data["timeline"] = timeline_json(*timeline, str);
  data["strings"] = str.take();
  write_page(out, data);
}

}  // namespace kprof
