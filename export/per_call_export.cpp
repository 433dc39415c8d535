// Cost per system call (report/per_call.h) as CSV, for spreadsheets and
// scripts: one row per call (report), one row per (call, side) (diff).
#include <cmath>

#include <nlohmann/json.hpp>

#include "export/csv.h"
#include "export/per_call_export.h"
#include "export/tables.h"
#include "report/table.h"

namespace kprof {
namespace {

std::string num(double v) {
  return format_fixed(v, 3);
}

}  // namespace

void write_per_call_csv(std::ostream& out, const PerCallProfile& p) {
  write_csv_row(out, {"system_call", "calls", "calls_per_s", "samples", "cost_per_call",
                      "entry_exit_per_call", "counting_per_call", "unit", "top_function"});
  for (const CallCost& c : p.calls) {
    const double n = static_cast<double>(c.calls);
    write_csv_row(out,
                  {c.name, std::to_string(c.calls), p.seconds > 0 ? num(n / p.seconds) : "",
                   std::to_string(c.samples), num(c.period / n), num(p.entry_exit_of(c)),
                   num(p.total_calls ? p.counting_period / static_cast<double>(p.total_calls) : 0),
                   p.unit, c.functions.empty() ? "" : c.functions[0].function});
  }
}

void write_per_call_diff_csv(std::ostream& out, const PerCallDiff& d) {
  write_csv_row(out, {"system_call", "function", "side", "base_label", "calls", "base_cost", "cost",
                      "delta", "ci_lo", "ci_hi", "q", "verdict", "unit"});
  auto row = [&](const std::string& call, const std::string& function, size_t s, uint64_t calls,
                 const CallChange& c) {
    const bool bounded = c.tested && std::isfinite(c.change.lo_pp) && std::isfinite(c.change.hi_pp);
    write_csv_row(out,
                  {call, function, d.labels[s], d.labels[0], std::to_string(calls), num(c.base),
                   num(c.next), num(c.delta()), bounded ? num(c.base * c.change.lo_pp / 100) : "",
                   bounded ? num(c.base * c.change.hi_pp / 100) : "", c.tested ? num(c.q) : "",
                   !c.tested   ? "untested"
                   : c.changed ? "changed"
                               : "noise",
                   d.unit});
  };
  for (const CallColumn& col : d.calls) {
    for (size_t s = 1; s < d.labels.size(); ++s) {
      row(col.name, "", s, col.calls[s], col.vs_base[s]);
      for (const FunctionChange& f : col.functions[s]) {
        row(col.name, f.function, s, col.calls[s], f.cost);
      }
    }
  }
}

namespace {

nlohmann::json change_json(const CallChange& c) {
  const bool bounded = c.tested && std::isfinite(c.change.lo_pp) && std::isfinite(c.change.hi_pp);
  nlohmann::json j = {{"base", c.base},
                      {"cost", c.next},
                      {"delta", c.delta()},
                      {"ci_lo", bounded ? nlohmann::json(c.base * c.change.lo_pp / 100) : nullptr},
                      {"ci_hi", bounded ? nlohmann::json(c.base * c.change.hi_pp / 100) : nullptr},
                      {"q", c.tested ? nlohmann::json(c.q) : nullptr},
                      {"verdict", !c.tested   ? "untested"
                                  : c.changed ? "changed"
                                              : "noise"}};
  return j;
}

}  // namespace

nlohmann::json per_call_diff_json(const PerCallDiff& d) {
  nlohmann::json calls = nlohmann::json::array();
  for (const CallColumn& col : d.calls) {
    nlohmann::json sides = nlohmann::json::array({nullptr});
    for (size_t s = 1; s < d.labels.size(); ++s) {
      nlohmann::json side = change_json(col.vs_base[s]);
      side["accounted_pct"] = col.accounted_pct[s];
      nlohmann::json fns = nlohmann::json::array();
      for (const FunctionChange& f : col.functions[s]) {
        nlohmann::json fj = change_json(f.cost);
        fj["function"] = f.function;
        fns.push_back(std::move(fj));
      }
      side["functions"] = std::move(fns);
      sides.push_back(std::move(side));
    }
    calls.push_back({{"name", col.name},
                     {"calls", col.calls},
                     {"cost", col.cost},
                     {"sides", std::move(sides)}});
  }
  return {{"unit", d.unit},
          {"labels", d.labels},
          {"noise", stats::noise_method_name(d.noise)},
          {"alpha", d.alpha},
          {"interval_level", 1 - d.interval_alpha},
          {"entry_exit", d.entry_exit},
          {"counting", d.counting},
          {"calls", std::move(calls)}};
}

void write_per_call_diff_json(std::ostream& out, const PerCallDiff& d) {
  out << per_call_diff_json(d).dump(2) << "\n";
}

}  // namespace kprof
