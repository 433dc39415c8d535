#include "report/timeline.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "report/table.h"

namespace kprof {

namespace {

constexpr const char* kLevels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

// One character per value, ▁ for 0 (or the lowest) to █ for the highest.
std::string sparkline(const std::vector<double>& v, double lo, double hi) {
  std::string out;
  for (double x : v) {
    const double f = hi > lo ? (x - lo) / (hi - lo) : 1.0;
    out += kLevels[std::clamp(static_cast<int>(std::lround(f * 7)), 0, 7)];
  }
  return out;
}

std::string seconds(uint64_t ns, uint64_t start_ns) {
  return format_fixed(static_cast<double>(ns - std::min(ns, start_ns)) / 1e9, 2);
}

std::string pct(double share) {
  return format_fixed(100 * share, share < 0.1 ? 2 : 1) + "%";
}

// "name" cut or padded to `width` columns (names are ASCII but for "…").
std::string fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s + std::string(width - s.size(), ' ');
  return s.substr(0, width - 1) + "…";
}

}  // namespace

std::optional<Timeline> build_timeline(const Histogram& h, const std::vector<uint64_t>& times,
                                       uint64_t start_ns, size_t top, std::string* why) {
  const std::vector<uint64_t> totals = h.slice_totals();
  const uint64_t n = times.size();
  if (totals.empty() || n == 0) {
    *why = "its rows keep no time slices (a profile of an older kprof, or an import)";
    return std::nullopt;
  }
  // All slices are `width` samples (a power of two) but the last, never empty.
  const uint64_t s = totals.size();
  uint64_t width = 1;
  while (s * width < n) width *= 2;
  if ((s - 1) * width >= n) {
    *why = "its " + std::to_string(s) + " time slices do not fit its " + std::to_string(n) +
           " samples read again";
    return std::nullopt;
  }
  Timeline t;
  t.start_ns = start_ns;
  for (uint64_t j = 0; j < s; ++j) {
    t.edges.push_back(times[j * width]);
    t.in_slice.push_back(j + 1 < s ? width : n - j * width);
  }
  t.edges.push_back(times.back());
  for (uint64_t j = 0; j < s; ++j) {
    const uint64_t span = t.edges[j + 1] > t.edges[j] ? t.edges[j + 1] - t.edges[j] : 1;
    t.rate.push_back(static_cast<double>(t.in_slice[j]) / (static_cast<double>(span) / 1e9));
  }
  t.total = std::accumulate(totals.begin(), totals.end(), uint64_t{0});
  std::vector<size_t> order(h.rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return h.rows[a].samples > h.rows[b].samples; });
  order.resize(std::min(order.size(), top));
  for (size_t i : order) {
    const FunctionCount& r = h.rows[i];
    TimelineRow row{r.image < h.images.size() ? h.images[r.image].name : "[unknown]",
                    r.function,
                    r.samples,
                    {}};
    for (uint64_t j = 0; j < s; ++j) {
      const uint32_t in = j < r.slices.size() ? r.slices[j] : 0;
      row.share.push_back(totals[j] ? static_cast<double>(in) / static_cast<double>(totals[j]) : 0);
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

void write_timeline(std::ostream& out, const Timeline& t) {
  const size_t s = t.slices();
  out << "# timeline: " << s << " slices of " << format_count(t.in_slice.front())
      << " samples each, from " << seconds(t.edges.front(), t.start_ns) << " s to "
      << seconds(t.edges.back(), t.start_ns)
      << " s after the start; each line's lowest value is ▁, its highest █\n";
  constexpr size_t kName = 34;
  const auto [lo, hi] = std::minmax_element(t.rate.begin(), t.rate.end());
  out << fit("samples per second", kName + 9) << sparkline(t.rate, 0, *hi) << "  "
      << format_count(static_cast<uint64_t>(*lo)) << " to "
      << format_count(static_cast<uint64_t>(*hi)) << "/s\n";
  for (const TimelineRow& r : t.rows) {
    const auto [min, max] = std::minmax_element(r.share.begin(), r.share.end());
    const size_t peak = static_cast<size_t>(max - r.share.begin());
    std::string name = r.function;
    if (const size_t slash = r.image.rfind('/'); r.function == "[unknown]") {
      name += " " + (slash == std::string::npos ? r.image : r.image.substr(slash + 1));
    }
    const std::string share =
        pct(static_cast<double>(r.samples) / static_cast<double>(std::max<uint64_t>(t.total, 1)));
    out << std::string(share.size() < 8 ? 8 - share.size() : 0, ' ') << share << " "
        << fit(name, kName) << sparkline(r.share, 0, *max) << "  " << pct(*min) << " to "
        << pct(*max) << ", highest at " << seconds(t.edges[peak], t.start_ns) << " s\n";
  }
  out << "# slices start at (s):";
  for (size_t j = 0; j < s; j += std::max<size_t>(1, s / 8)) {
    out << " " << seconds(t.edges[j], t.start_ns);
  }
  out << " …\n";
}

}  // namespace kprof
