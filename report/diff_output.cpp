// The text renderer for DiffResult (report/diff.h); CSV and JSON are export/tables.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "report/diff.h"
#include "report/table.h"

namespace kprof {

namespace {

std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string signed_pp(double v) {
  std::string s = printf_string("%+.4f", v);
  return s == "-0.0000" ? "+0.0000" : s;
}

std::string opt_fixed(const std::optional<double>& v, int decimals) {
  return v ? format_fixed(*v, decimals) : "-";
}

// "95%", "99.9%"; never "100%": as many decimals as it takes to show how
// far below 100% the level is (a level of 1 - 2.4e-5 is "99.9976%").
std::string interval_level(double alpha) {
  const double level = 100 * (1 - alpha);
  std::string s = printf_string("%.4g", level);
  if (level < 100 && (s == "100" || s.find('e') != std::string::npos)) {
    const int decimals =
        std::clamp(2 - static_cast<int>(std::floor(std::log10(100 * alpha))), 1, 15);
    s = format_fixed(level, decimals);
  }
  return s + "%";
}

// The level of side s's intervals (false coverage-rate adjusted).
double side_alpha(const std::vector<double>& alphas, size_t s, double fallback) {
  return s < alphas.size() ? alphas[s] : fallback;
}

bool shown(const DiffRow& row, const DiffOptions& o) {
  for (const DiffCell& c : row.cells)
    if (c.pct > 0 && c.pct >= o.percent_limit) return true;
  return false;
}

// A share; "≤S" for a row absent from a cut listing (below its last share S).
std::string share_cell(const DiffCell& c) {
  return c.unlisted && c.pct == 0 ? "≤" + format_percent(c.pct_max) : format_percent(c.pct);
}

// Δpp; for a bounded row the end nearest no change, "≥" / "≤" it, or "?"
// when the bounds hold 0 (it may not have changed at all).
std::string delta_cell(const DiffCompare& c) {
  if (!c.bounded) return signed_pp(c.change.delta_pp);
  if (c.bounds_lo > 0) return "≥" + signed_pp(c.bounds_lo);
  if (c.bounds_hi < 0) return "≤" + signed_pp(c.bounds_hi);
  return "?";
}

std::string ratio_cell(const DiffCompare& c) {
  switch (c.ratio_bound) {
    case RatioBound::Exact:
      return format_fixed(c.ratio.value_or(0), 3);
    case RatioBound::AtLeast:
      return "≥" + format_fixed(*c.ratio, 3);
    case RatioBound::AtMost:
      return "≤" + format_fixed(*c.ratio, 3);
    case RatioBound::Unknown:
      break;
  }
  return "-";
}

std::string display_name(const DiffRow& row, DiffBy by) {
  if (by == DiffBy::Function && row.name == "[unknown]") return "[unknown] in " + row.image;
  return row.name;
}

size_t limit(size_t top, size_t n) {
  return top == 0 ? n : std::min(top, n);
}

void write_summary(std::ostream& out, const DiffResult& r) {
  bool runs = false;
  for (const SideSummary& s : r.summary) runs |= s.runs > 1;
  out << "Run summary (speedup against " << r.labels[0] << ", higher is better; from "
      << (r.speedup_source.empty() ? "nothing: no work scores or wall times" : r.speedup_source)
      << ")\n";
  std::vector<Column> cols = {{"label"}};
  if (runs) cols.push_back({"runs", Align::Right});
  for (const char* t :
       {"speedup", "intr/s", "ctxsw/s", "us%", "sys%", "idle%", "iowait%", "samples", "lost"}) {
    cols.push_back({t, Align::Right});
  }
  TextTable table(std::move(cols));
  for (const SideSummary& s : r.summary) {
    std::vector<std::string> row = {s.label};
    if (runs) row.push_back(std::to_string(s.runs));
    std::string speedup = opt_fixed(s.speedup, 3);
    if (s.speedup_sd) speedup += "±" + format_fixed(*s.speedup_sd, 3);
    row.push_back(speedup);
    if (s.rates) {
      row.push_back(format_fixed(s.rates->interrupts_per_s, 0));
      row.push_back(format_fixed(s.rates->ctxsw_per_s, 0));
      for (double v :
           {s.rates->user_pct, s.rates->sys_pct, s.rates->idle_pct, s.rates->iowait_pct}) {
        row.push_back(format_fixed(v, 1));
      }
    } else {
      row.insert(row.end(), 6, "-");
    }
    row.push_back(s.samples ? format_count(s.samples) : "-");
    row.push_back(s.listing ? "-" : format_count(s.lost));  // a listing does not say
    table.add_row(std::move(row));
  }
  table.write(out);
}

void write_side_by_side(std::ostream& out, const DiffResult& r) {
  const DiffOptions& o = r.options;
  std::vector<std::vector<const DiffRow*>> tops(r.labels.size());
  for (size_t s = 0; s < tops.size(); ++s) {
    for (const DiffRow& row : r.rows) {
      if (row.cells[s].pct > 0 && row.cells[s].pct >= o.percent_limit) tops[s].push_back(&row);
    }
    const size_t n = limit(o.top, tops[s].size());
    std::partial_sort(tops[s].begin(), tops[s].begin() + n, tops[s].end(),
                      [s](const DiffRow* a, const DiffRow* b) {
                        if (a->cells[s].pct != b->cells[s].pct)
                          return a->cells[s].pct > b->cells[s].pct;
                        return std::tie(a->name, a->image) < std::tie(b->name, b->image);
                      });
    tops[s].resize(n);
  }
  out << "Top " << (o.top ? std::to_string(o.top) : std::string("all")) << " " << diff_rows_title(o)
      << " in each profile (share of its samples)\n";
  std::vector<Column> cols;
  size_t rows = 0;
  for (size_t s = 0; s < tops.size(); ++s) {
    cols.push_back({r.share_title, Align::Right});
    cols.push_back({r.labels[s], Align::Left, o.name_width});
    rows = std::max(rows, tops[s].size());
  }
  TextTable table(std::move(cols));
  table.fit(o.line_width);
  for (size_t i = 0; i < rows; ++i) {
    std::vector<std::string> cells;
    for (size_t s = 0; s < tops.size(); ++s) {
      if (i < tops[s].size()) {
        cells.push_back(format_percent(tops[s][i]->cells[s].pct));
        cells.push_back(display_name(*tops[s][i], o.by));
      } else {
        cells.insert(cells.end(), 2, "");
      }
    }
    table.add_row(std::move(cells));
  }
  table.write(out);
}

}  // namespace

namespace {

bool measured_slices(const DiffResult& r, size_t s) {
  return s < r.slice_dispersion.size() && r.slice_dispersion[s] > 0;
}

// `before` D `after` with D the comparison's level, or "" when not measured.
std::string slice_words(const DiffResult& r, size_t s, const std::string& before,
                        const std::string& after) {
  if (!measured_slices(r, s)) return "";
  return before + printf_string("%.2g", r.slice_dispersion[s]) + after;
}

}  // namespace

std::string diff_noise_line(const DiffResult& r, size_t s) {
  size_t tested = 0, changed = 0, untested = 0;
  for (const DiffRow& row : r.rows) {
    const DiffCompare& c = row.vs_base[s];
    if (c.sided == Sidedness::Neither) continue;
    untested += c.untested;
    tested += !c.untested;
    changed += !c.untested && !c.within_noise;
  }
  const std::string level = interval_level(side_alpha(r.interval_alpha, s, r.options.alpha));
  std::string line = "noise for " + r.labels[s] + ": ";
  if (r.noise[s] == NoiseMethod::None) {
    return line +
           "no counts: no noise verdict (a listing of shares only; list sample counts, "
           "e.g. perf report -n, or diff the recordings themselves)";
  }
  if (r.noise[s] == NoiseMethod::RunVariance) {
    const stats::RunSpread* spread = s < r.spread.size() ? &r.spread[s] : nullptr;
    line += "run-to-run variance (" + std::to_string(r.summary[0].runs) + " vs " +
            std::to_string(r.summary[s].runs) + " runs): ";
    if (spread && spread->from_slices) {
      line +=
          "moderated t (each row's spread shrunk toward its runs' own spread over time "
          "slices, with " +
          printf_string("%.0f", spread->prior.df) + " prior df; one run's sampling spread " +
          printf_string("%.2g", r.slice_dispersion[s]) + "x binomial's" +
          (spread->prior.scale > 1
               ? "; between runs " + printf_string("%.2g", spread->prior.scale) +
                     "x that, a jitter the slices cannot see"
               : std::string()) +
          ") " + level + " interval on Δpp";
    } else if (spread && spread->fitted()) {
      const std::vector<double>& outlier_df = spread->prior.outlier_df;
      line += "moderated t (each row's spread shrunk toward the fit over " +
              std::to_string(spread->rows) + " rows, " +
              (std::isinf(spread->prior.df)
                   ? std::string("entirely")
                   : "with " + printf_string("%.1f", spread->prior.df) + " prior df") +
              " as " + std::to_string(spread->prior.rows) + " rows of " +
              printf_string("%.0f", stats::kMinPriorSamples) + "+ samples a run scatter" +
              (outlier_df.empty() ? std::string()
                                  : ", down to " + printf_string("%.1f", outlier_df.back()) +
                                        " for rows that scatter beyond them") +
              "; one run's sampling spread " +
              printf_string("%.2g", spread->binomial_a > 0 ? spread->a / spread->binomial_a : 1) +
              "x binomial's) " + level + " interval on Δpp";
    } else {
      line += "Welch " + level + " interval on Δpp, held to the pooled counts" +
              slice_words(r, s, " (their variance ", "x binomial's, measured over time slices)");
    }
  } else if (r.summary[0].listing || r.summary[s].listing) {
    line +=
        "sampling statistics from the listed counts (a listing has no runs to compare): " + level +
        " Newcombe interval on Δpp";
  } else if (measured_slices(r, s)) {
    line +=
        "one run on a side: each run's own spread over its time slices (batch means; "
        "run-to-run variation beyond it not measured): " +
        level + " Newcombe interval on Δpp" +
        slice_words(r, s, " over counts divided by their dispersion (typically ", "x binomial's)");
  } else {
    line +=
        "SAMPLING STATISTICS ONLY (1 run on a side; run-to-run variation not measured): " + level +
        " Newcombe interval on Δpp";
  }
  line += " (the false coverage-rate level for " + std::to_string(changed) + " changed of " +
          std::to_string(tested) + " rows tested: an interval excludes 0 exactly when its row is " +
          "changed); verdict after Benjamini–Hochberg at FDR " +
          printf_string("%g%%", 100 * r.options.alpha);
  if (untested) {
    const uint64_t min_total = s < r.screened.size() ? r.screened[s].min_total : 0;
    line += "; " + std::to_string(untested) + " rows untested: " +
            (min_total ? "under " + std::to_string(min_total) + " samples over both sides, "
                       : std::string()) +
            "too few to reach significance at any split";
  }
  return line;
}

namespace {

// A compared side's column title on a narrow terminal: "new", or "new2",
// "new3", ... when several are compared against the base.
std::string side_short_title(const DiffResult& r, size_t side) {
  return r.labels.size() > 2 ? "new" + std::to_string(side) : "new";
}

void write_matched(std::ostream& out, const DiffResult& r, std::vector<const DiffRow*>& rows) {
  const DiffOptions& o = r.options;
  bool bounded = false, judged = false;
  for (size_t s = 1; s < r.labels.size(); ++s) judged |= r.noise[s] != NoiseMethod::None;
  for (const DiffRow& row : r.rows) {
    for (const DiffCompare& c : row.vs_base) bounded |= c.bounded;
  }
  out << "Matched diff against " << r.labels[0] << " (largest |Δpp| first; Δpp = percentage "
      << "points; ratio +++ only in new, --- only in base"
      << (bounded ? "; ≤S: not in that cut listing, so below its last share S, and Δpp, "
                    "interval and ratio are bounds over every share it could have had"
                  : "")
      << ")\n";
  for (size_t s = 1; s < r.labels.size(); ++s) out << diff_noise_line(r, s) << "\n";
  std::vector<Column> cols = {{r.labels[0] + " %", Align::Right, 0, "base %"}};
  for (size_t s = 1; s < r.labels.size(); ++s) {
    cols.push_back({r.labels[s] + " %", Align::Right, 0, side_short_title(r, s) + " %"});
    cols.push_back({"Δpp", Align::Right});
    cols.push_back({r.noise[s] == NoiseMethod::None
                        ? std::string("bounds")
                        : interval_level(side_alpha(r.interval_alpha, s, o.alpha)) + " interval",
                    Align::Right});
    cols.push_back({"ratio", Align::Right});
    cols.push_back({"verdict"});
  }
  if (o.by == DiffBy::Function) cols.push_back({"function", Align::Left, o.name_width});
  cols.push_back({o.by == DiffBy::Mode ? "mode" : "image", Align::Left, o.name_width});
  TextTable table(std::move(cols));
  table.fit(o.line_width);
  for (const DiffRow& row : r.rows) {
    if (!shown(row, o)) continue;
    if (o.top && rows.size() == o.top) break;
    rows.push_back(&row);
    // Colour: a changed row's Δ red (grew) or blue (shrank), one-sided marks
    // magenta; a row within noise on every side dimmed whole.
    bool all_noise = true;
    for (size_t s = 1; s < r.labels.size(); ++s) {
      all_noise = all_noise && (row.vs_base[s].within_noise || r.noise[s] == NoiseMethod::None);
    }
    std::vector<std::string> cells = {share_cell(row.cells[0])};
    for (size_t s = 1; s < r.labels.size(); ++s) {
      const DiffCompare& c = row.vs_base[s];
      const bool changed = !c.within_noise && r.noise[s] != NoiseMethod::None;
      cells.push_back(share_cell(row.cells[s]));
      cells.push_back(styled(delta_cell(c), c.change.delta_pp > 0 ? Style::Grew : Style::Shrank,
                             o.color && changed));
      // The score interval is asymmetric near 0%: show both ends, not a "±".
      const bool interval = c.bounded || (r.noise[s] != NoiseMethod::None && !c.untested);
      cells.push_back(!interval ? "-"
                      : std::isfinite(c.change.lo_pp) && std::isfinite(c.change.hi_pp)
                          ? "[" + signed_pp(c.change.lo_pp) + ", " + signed_pp(c.change.hi_pp) + "]"
                          : "unknown");
      cells.push_back(c.sided == Sidedness::Both ? ratio_cell(c)
                                                 : styled(sidedness_mark(c.sided), Style::OneSided,
                                                          o.color && !all_noise));
      cells.push_back(std::string(verdict_name(c, r.noise[s])) + (row.irq_skid ? " irq-skid" : "") +
                      (row.config_option.empty() ? "" : " CONFIG_" + row.config_option));
    }
    if (o.by == DiffBy::Function) cells.push_back(display_name(row, o.by));
    cells.push_back(o.by == DiffBy::Function ? row.image : row.name);
    table.add_row(std::move(cells), style_code(Style::Dim, o.color && all_noise));
  }
  table.write(out);
  out << rows.size() << " of " << r.rows.size() << " rows shown";
  if (o.percent_limit > 0) out << " (--percent-limit " << o.percent_limit << ")";
  if (judged) out << "; rows within noise are marked 'noise', not hidden";
  out << "; every row is in --csv/--json\n";
  std::set<std::string> owners;
  for (const DiffRow* row : rows) {
    if (!row->config_option.empty()) owners.insert("CONFIG_" + row->config_option);
  }
  if (!owners.empty()) {
    std::string list;
    for (const std::string& o : owners) list += (list.empty() ? "" : ", ") + o;
    out << list << " beside a row: the function is that option's own code, and the option "
        << "differs between the sides (Kernel configuration, above)\n";
  }
}

// The change of the whole cost per unit of work, and what accounts for it:
// the rows judged changed, the rest (within noise), and, for a timer event
// (CPU ns), the part of the wall time per unit of work no CPU sample saw.
void write_work_account(std::ostream& out, const DiffResult& r) {
  for (size_t s = 1; s < r.labels.size(); ++s) {
    double base = 0, next = 0, changed = 0;
    for (const DiffRow& row : r.rows) {
      const double a = row.cells[0].events_per_work.value_or(0);
      const double b = row.cells[s].events_per_work.value_or(0);
      base += a;
      next += b;
      const DiffCompare& c = row.vs_base[s];
      const bool judged = r.noise[s] == NoiseMethod::RunVariance
                              ? c.work_tested && !c.work_within_noise
                              : r.noise[s] != NoiseMethod::None && !c.untested && !c.within_noise;
      if (judged) changed += b - a;
    }
    const double delta = next - base;
    if (base <= 0) continue;
    const char* unit = r.work_in_ns ? " ns" : " events";
    out << r.labels[s] << ": cost per unit of work " << printf_string("%.4g", base) << " → "
        << printf_string("%.4g", next) << unit << " ("
        << printf_string("%+.1f%%", 100 * delta / base) << ")";
    if (delta != 0 && r.noise[s] != NoiseMethod::None) {
      out << "; accounted for by the rows marked changed"
          << (r.noise[s] == NoiseMethod::RunVariance ? "" : " (by share)") << ": "
          << printf_string("%.0f%%", 100 * changed / delta)
          << ", within noise: " << printf_string("%.0f%%", 100 * (delta - changed) / delta);
    }
    const auto& sa = r.summary[0].score;
    const auto& sb = r.summary[s].score;
    if (r.work_in_ns && sa && sb && *sa > 0 && *sb > 0) {
      // Wall ns per unit of work; CPU ns per unit above (every thread's).
      const double wall = 1e9 / *sb - 1e9 / *sa;
      if (wall != 0) {
        out << "; wall time per unit " << printf_string("%+.4g", wall)
            << " ns, of which not seen by CPU samples (off-CPU, idle): "
            << printf_string("%.0f%%", 100 * (wall - delta) / wall);
      }
    }
    out << "\n";
  }
}

void write_work(std::ostream& out, const DiffResult& r) {
  const DiffOptions& o = r.options;
  out << "Events per unit of work (" << r.speedup_source << " read as work per second; "
      << (o.sort_overweight ? "by overweight, largest first"
                            : "changed rows first, then by largest absolute change")
      << ")\n";
  for (size_t s = 1; s < r.labels.size(); ++s) {
    size_t tested = 0;
    for (const DiffRow& row : r.rows) tested += row.vs_base[s].work_tested;
    out << "noise for " << r.labels[s] << ": ";
    if (r.noise[s] == NoiseMethod::RunVariance) {
      out << "run-to-run variance of each run's events per work (Welch), held to the pooled "
             "sample counts; "
          << interval_level(side_alpha(r.work_interval_alpha, s, o.alpha))
          << " false coverage-rate interval; Benjamini–Hochberg at FDR "
          << printf_string("%g%%", 100 * o.alpha) << " over " << tested << " rows\n";
    } else {
      out << "NOT JUDGED (1 run on a side; run-to-run variation not measured): a change in "
             "machine speed moves every row's cost per unit of work alike, and one run a side "
             "cannot tell it from a regression; 'overweight' is how much more a row grew than "
             "the whole did (0: it kept its share), and the share verdict above judges that\n";
    }
  }
  struct Order {
    bool changed = false;
    double change = 0;
    const DiffRow* row = nullptr;
  };
  std::vector<Order> order;
  for (const DiffRow& row : r.rows) {
    if (!shown(row, o)) continue;
    Order e{false, o.sort_overweight ? -INFINITY : 0, &row};
    const double base = row.cells[0].events_per_work.value_or(0);
    for (size_t s = 1; s < row.cells.size(); ++s) {
      const DiffCompare& c = row.vs_base[s];
      if (o.sort_overweight) {  // rows without one (one-sided) last
        if (c.overweight_pct) e.change = std::max(e.change, *c.overweight_pct);
        continue;
      }
      e.changed |= r.noise[s] == NoiseMethod::RunVariance
                       ? c.work_tested && !c.work_within_noise
                       : r.noise[s] != NoiseMethod::None && !c.untested && !c.within_noise;
      e.change = std::max(e.change, std::fabs(row.cells[s].events_per_work.value_or(0) - base));
    }
    order.push_back(e);
  }
  std::stable_sort(order.begin(), order.end(), [](const Order& a, const Order& b) {
    if (a.changed != b.changed) return a.changed;
    return a.change > b.change;
  });
  order.resize(limit(o.top, order.size()));
  std::vector<Column> cols = {{r.labels[0], Align::Right, 0, "base"}};
  for (size_t s = 1; s < r.labels.size(); ++s) {
    cols.push_back({r.labels[s], Align::Right, 0, side_short_title(r, s)});
    cols.push_back({"change", Align::Right});
    cols.push_back({"overweight", Align::Right});
    if (r.noise[s] == NoiseMethod::RunVariance) {
      cols.push_back({"interval", Align::Right});
      cols.push_back({"verdict"});
    } else {
      cols.push_back({"share verdict"});
    }
  }
  if (o.by == DiffBy::Function) cols.push_back({"function", Align::Left, o.name_width});
  cols.push_back({o.by == DiffBy::Mode ? "mode" : "image", Align::Left, o.name_width});
  TextTable table(std::move(cols));
  table.fit(o.line_width);
  auto g = [](const std::optional<double>& v) { return v ? printf_string("%.4g", *v) : "-"; };
  auto pct = [](double v) {
    return std::isfinite(v) ? printf_string("%+.1f%%", v) : std::string(v > 0 ? "+inf" : "-inf");
  };
  for (const Order& e : order) {
    const DiffRow* row = e.row;
    std::vector<std::string> cells = {g(row->cells[0].events_per_work)};
    bool all_noise = true;
    for (size_t s = 1; s < r.labels.size(); ++s) {
      const DiffCompare& c = row->vs_base[s];
      cells.push_back(g(row->cells[s].events_per_work));
      cells.push_back(c.work_change_pct ? pct(*c.work_change_pct) : sidedness_mark(c.sided));
      cells.push_back(c.overweight_pct ? pct(*c.overweight_pct) : "");
      if (r.noise[s] == NoiseMethod::RunVariance) {
        cells.push_back(c.work_tested ? "[" + pct(c.work.lo_pp) + ", " + pct(c.work.hi_pp) + "]"
                                      : "");
        cells.push_back(c.untested ? "untested" : work_verdict_name(c, r.noise[s]));
        all_noise &= !(c.work_tested && !c.work_within_noise);
      } else {
        cells.push_back(c.sided == Sidedness::Neither ? "" : verdict_name(c, r.noise[s]));
        all_noise &= c.untested || c.within_noise;
      }
    }
    if (o.by == DiffBy::Function) cells.push_back(display_name(*row, o.by));
    cells.push_back(o.by == DiffBy::Function ? row->image : row->name);
    table.add_row(std::move(cells), style_code(Style::Dim, o.color && all_noise));
  }
  table.write(out);
  write_work_account(out, r);
}

void write_merged(std::ostream& out, const DiffResult& r, const std::vector<const DiffRow*>& rows) {
  size_t total = 0;
  for (const DiffRow& row : r.rows) total += row.merged();
  if (total == 0) return;
  out << "\nMerged clone names (canonical <- raw names, in the rows shown; " << total
      << " merged rows in all)\n";
  bool any = false;
  for (const DiffRow* row : rows) any |= row->merged();
  if (!any) out << "  (none in the rows shown; see --csv/--json)\n";
  for (const DiffRow* row : rows) {
    if (!row->merged()) continue;
    std::string raw;
    for (const std::string& n : row->raw_names) raw += (raw.empty() ? "" : ", ") + n;
    out << "  " << row->name << " in " << row->image << " <- " << raw << "\n";
  }
}

}  // namespace

void write_diff_text(std::ostream& out, const DiffResult& r, const DiffSections& parts) {
  out << "kprof diff " << diff_rows_title(r.options) << ": base " << r.labels[0] << " against";
  for (size_t s = 1; s < r.labels.size(); ++s) out << (s > 1 ? ", " : " ") << r.labels[s];
  out << "\n";
  if (!r.warnings.empty()) out << "\n";
  for (const std::string& w : r.warnings) {
    out << styled("warning:", Style::Notice, r.options.color) << " " << w << "\n";
  }
  if (parts.env) {
    out << "\n";
    write_environment_diff(out, r.environment, r.labels);
  }
  if (parts.summary) {
    out << "\n";
    write_summary(out, r);
  }
  if (parts.top) {
    out << "\n";
    write_side_by_side(out, r);
  }
  if (!parts.matched) return;
  out << "\n";
  std::vector<const DiffRow*> rows;
  write_matched(out, r, rows);
  if (!r.moves.empty()) {
    out << "\nCost moves (a drop and a rise that cancel within noise, under one caller: likely "
           "inlined, split or renamed between builds, not a change of cost)\n";
    for (const CostMove& m : r.moves) {
      out << "  " << r.labels[m.side] << ": " << m.from << " " << signed_pp(m.from_pp) << " pp → "
          << m.to << " " << signed_pp(m.to_pp) << " pp, both called by " << m.caller << "\n";
    }
  }
  if (r.has_work) {
    out << "\n";
    write_work(out, r);
  }
  write_merged(out, r, rows);
}

}  // namespace kprof
