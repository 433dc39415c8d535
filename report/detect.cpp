#include "report/detect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kprof {

stats::RunSpread fit_run_spread(const DiffInput& in, const DiffResult& result, size_t side) {
  std::vector<uint64_t> run_samples;
  for (size_t s : {size_t{0}, side}) {
    if (s >= in.sides.size()) continue;
    for (const DiffRun& run : in.sides[s].runs) run_samples.push_back(run.samples());
  }
  std::vector<stats::RunShares> rows;
  for (const DiffRow& row : result.rows) {
    if (side >= row.cells.size() || row.vs_base[side].sided != Sidedness::Both) continue;
    rows.push_back({row.cells[0].run_pct, row.cells[side].run_pct});
  }
  const double d = side < result.slice_dispersion.size() ? result.slice_dispersion[side] : 0;
  return stats::fit_run_spread(run_samples, rows, d > 0 ? d : 1.0);
}

// ---------------------------------------------------------------- per comparison

namespace {

constexpr double kKnown = std::numeric_limits<double>::infinity();

// A comparison's size: samples (summed over runs) and runs, per side.
struct Size {
  stats::Sides<uint64_t> samples;
  stats::Sides<size_t> runs;
};

// The floor from the test's power curve: d_hi the change found with
// kPowerAbove, d_lo the one found with kPowerBelow. Any floor between
// d_hi / kFoundAbove and d_lo / kMissedBelow keeps both promises; their
// geometric middle is the one that keeps them by the same factor.
double promised_floor(double d_hi, double d_lo) {
  if (!std::isfinite(d_hi)) return kKnown;
  return std::sqrt(d_hi / kFoundAbove * (d_lo / kMissedBelow));
}

// The rows whose BH threshold the row of the floor is held to. Two rows
// tested are each other's complement (the rows left untested hold a few
// samples at most): their changes mirror each other, their p-values agree,
// and BH finds both or neither at alpha x 2 / 2: one test at alpha.
size_t family(size_t tested) {
  return tested == 2 ? 1 : tested;
}

std::vector<FloorAt> combined_floors(const DetectFloor& f, std::span<const double> shares,
                                     const Size& size) {
  const double df = f.dispersion > 0 ? f.dispersion_df : kKnown;
  const stats::FloorTest hi{family(f.rows), f.alpha, kPowerAbove, df};
  const stats::FloorTest lo{family(f.rows), f.alpha, kPowerBelow, df};
  std::vector<FloorAt> out;
  std::vector<double> rv_hi, rv_lo;
  if (f.method == NoiseMethod::RunVariance) {
    rv_hi = stats::run_variance_floors_pp(shares, f.spread, size.runs, hi);
    rv_lo = stats::run_variance_floors_pp(shares, f.spread, size.runs, lo);
  }
  // Samples as the verdicts count them: over their dispersion.
  auto effective = [&](uint64_t n) {
    if (!(f.dispersion > 0)) return n;
    return static_cast<uint64_t>(std::llround(static_cast<double>(n) / f.dispersion));
  };
  const stats::Sides<uint64_t> samples{effective(size.samples.base), effective(size.samples.next)};
  const bool moderated = f.method == NoiseMethod::RunVariance && f.spread.fitted();
  for (size_t i = 0; i < shares.size(); ++i) {
    FloorAt at;
    at.share_pct = shares[i];
    at.sampling_pp = promised_floor(stats::sampling_floor_pp(shares[i], samples, hi),
                                    stats::sampling_floor_pp(shares[i], samples, lo));
    at.floor_pp = at.sampling_pp;
    if (!rv_hi.empty()) {
      const double rv = promised_floor(rv_hi[i], rv_lo[i]);
      at.run_variance_pp = rv;
      at.floor_pp = moderated ? rv : std::max(at.floor_pp, rv);
    }
    out.push_back(at);
  }
  return out;
}

// Whether `r` runs a side (same samples per run) halve every floor in `f.at`.
bool halves(const DetectFloor& f, size_t r) {
  const double k0 = static_cast<double>(r) / static_cast<double>(f.base_runs);
  const double k1 = static_cast<double>(r) / static_cast<double>(f.new_runs);
  const auto n0 = static_cast<uint64_t>(std::llround(static_cast<double>(f.base_samples) * k0));
  const auto n1 = static_cast<uint64_t>(std::llround(static_cast<double>(f.new_samples) * k1));
  std::vector<double> shares;
  for (const FloorAt& at : f.at) shares.push_back(at.share_pct);
  const std::vector<FloorAt> now = combined_floors(f, shares, {{n0, n1}, {r, r}});
  for (size_t i = 0; i < now.size(); ++i) {
    const double was = f.at[i].floor_pp, is = now[i].floor_pp;
    if (std::isinf(was) ? std::isinf(is) : is > was / 2) return false;
  }
  return true;
}

std::optional<size_t> runs_to_halve(const DetectFloor& f) {
  size_t bad = 1, good = 0;  // 1 run a side is no run-variance test
  for (size_t r = 2;; r *= 2) {
    r = std::min(r, kMaxPlanRuns);
    if (halves(f, r)) {
      good = r;
      break;
    }
    bad = r;
    if (r == kMaxPlanRuns) return std::nullopt;
  }
  while (good - bad > 1) {
    const size_t mid = bad + (good - bad) / 2;
    (halves(f, mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace

std::vector<DetectFloor> detectability(const DiffInput& in, const DiffResult& result,
                                       std::span<const double> shares_pct) {
  std::vector<DetectFloor> out;
  for (size_t s = 1; s < result.labels.size() && s < in.sides.size(); ++s) {
    DetectFloor f;
    f.side = s;
    f.label = result.labels[s];
    f.base_label = result.labels[0];
    f.method = s < result.noise.size() ? result.noise[s] : NoiseMethod::None;
    f.alpha = result.options.alpha;
    for (const DiffRow& row : result.rows) {
      f.rows += row.vs_base[s].sided != Sidedness::Neither && !row.vs_base[s].untested;
    }
    for (const DiffRun& run : in.sides[0].runs) f.base_samples += run.samples();
    for (const DiffRun& run : in.sides[s].runs) f.new_samples += run.samples();
    f.base_runs = in.sides[0].runs.size();
    f.new_runs = in.sides[s].runs.size();
    if (s < result.slice_dispersion.size()) f.dispersion = result.slice_dispersion[s];
    if (s < result.slice_dispersion_df.size()) f.dispersion_df = result.slice_dispersion_df[s];
    if (f.method != NoiseMethod::None) {
      if (f.method == NoiseMethod::RunVariance) {
        f.spread = s < result.spread.size() ? result.spread[s] : fit_run_spread(in, result, s);
      }
      f.at = combined_floors(f, shares_pct,
                             {{f.base_samples, f.new_samples}, {f.base_runs, f.new_runs}});
      if (f.method == NoiseMethod::Sampling) {
        f.halve_base_samples = 4 * f.base_samples;
        f.halve_new_samples = 4 * f.new_samples;
      } else {
        f.halve_runs = runs_to_halve(f);
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

// ---------------------------------------------------------------- text

namespace {

std::string grouped(uint64_t n) {  // 1234567 -> "1,234,567"
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Two significant digits: 0.93, 2.0, 12.
std::string two_digits(double v) {
  char buf[48];
  if (v >= 9.95) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (v >= 0.995 || v <= 0) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    const int decimals = std::min(8, 1 - static_cast<int>(std::floor(std::log10(v))));
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  }
  return buf;
}

std::string percent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", pct);
  return buf;
}

}  // namespace

void write_detectability(std::ostream& out, const std::vector<DetectFloor>& floors) {
  for (size_t i = 0; i < floors.size(); ++i) {
    const DetectFloor& f = floors[i];
    if (i) out << "\n";
    out << "Detectability floor for " << f.label << " against " << f.base_label;
    if (f.method == NoiseMethod::None) {
      out << ": none (a listing of shares without counts: nothing says how noisy its shares "
             "are)\n";
      continue;
    }
    out << " (";
    if (f.method == NoiseMethod::RunVariance) {
      out << "run-to-run variance, " << f.base_runs << " vs " << f.new_runs << " runs, ";
    } else {
      out << "sampling statistics, ";
    }
    if (f.dispersion > 0) {
      out << "counts' variance " << two_digits(f.dispersion) << "× binomial's over time slices, ";
    }
    out << grouped(f.base_samples) << " vs " << grouped(f.new_samples) << " samples, " << f.rows
        << (f.rows == 2 ? " rows (each the other's mirror: one test)" : " rows") << ", FDR "
        << percent(100 * f.alpha) << "; " << kFoundAbove << "× the floor is found at least "
        << percent(100 * kPowerAbove) << " of the time, " << kMissedBelow << "× at most "
        << percent(100 * kPowerBelow) << "):\n";
    if (f.base_samples == 0 || f.new_samples == 0) {
      out << "  none: a side has no samples\n";
      continue;
    }
    out << " ";
    bool beyond = false, reachable = false;
    for (const FloorAt& at : f.at) {
      reachable = reachable || std::isfinite(at.floor_pp);
      out << " a " << percent(at.share_pct) << " row: ";
      if (std::isinf(at.floor_pp)) {
        out << "beyond reach";
        beyond = true;
      } else {
        out << "±" << two_digits(at.floor_pp) << " pp";
      }
      out << "  ";
    }
    if (f.method == NoiseMethod::Sampling) {
      out << " (4× the samples per side halves it: ~" << grouped(f.halve_base_samples) << " vs "
          << grouped(f.halve_new_samples) << ")\n";
    } else if (f.halve_runs) {
      out << " (" << *f.halve_runs << " runs per side "
          << (!reachable ? "bring every row within reach"
              : beyond   ? "halve it and bring every row within reach"
                         : "halve it")
          << ")\n";
    } else {
      out << " (not even " << kMaxPlanRuns << " runs per side would "
          << (reachable ? "halve it" : "bring it within reach") << ")\n";
    }
    if (f.method == NoiseMethod::RunVariance) {
      out << "  one run's share spreads (SD, fitted over " << f.spread.rows << " rows) by";
      for (size_t k = 0; k < f.at.size(); ++k) {
        out << (k ? ", " : " ") << two_digits(f.spread.sd_pp(f.at[k].share_pct)) << " pp at "
            << percent(f.at[k].share_pct);
      }
      out << (f.spread.fitted() ? "\n"
                                : "; the pooled counts' sampling statistics bind where they "
                                  "are larger\n");
    }
    if (beyond) {
      out << "  beyond reach: no change of that row's share is found " << percent(100 * kPowerAbove)
          << " of the time with these runs\n";
    }
  }
}

}  // namespace kprof
