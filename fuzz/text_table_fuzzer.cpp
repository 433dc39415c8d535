// Fuzzes the opreport / perf report listing reader. Input: the listing text.
// Checks that parse_listing returns or throws kprof::Error only (anything
// else escapes and libFuzzer reports it), and that what it returns is a
// well-formed histogram: image indices in range, images named once and all
// used, one row per (image, function, mode), no row over the input's means
// (a share row is at most 100% per input line), single-line notes, the same
// result twice.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "core/error.h"
#include "importer/text_table.h"

namespace {

bool one_line(std::string_view s) {
  return s.find('\n') == std::string_view::npos;
}

void check(const kprof::importer::TableListing& l, std::string_view in) {
  if (l.format != "opreport" && l.format != "perf report") __builtin_trap();
  const auto& h = l.histogram;
  if (h.rows.empty()) __builtin_trap();
  std::set<std::string> names;
  std::set<uint32_t> used;
  for (const auto& img : h.images) {
    if (img.name.empty() || !one_line(img.name) || !names.insert(img.name).second) __builtin_trap();
  }
  std::set<std::tuple<uint32_t, std::string, kprof::Mode>> keys;
  size_t lines = 1;
  for (const char c : in) lines += c == '\n' ? 1 : 0;
  unsigned __int128 sum = 0;
  for (const auto& r : h.rows) {
    if (r.image >= h.images.size()) __builtin_trap();
    if (r.function.empty() || !one_line(r.function) || r.period != 0) __builtin_trap();
    if (static_cast<uint8_t>(r.mode) > static_cast<uint8_t>(kprof::Mode::Unknown)) __builtin_trap();
    if (!keys.insert({r.image, r.function, r.mode}).second) __builtin_trap();
    used.insert(r.image);
    sum += r.samples;
  }
  if (used.size() != h.images.size()) __builtin_trap();  // no image without a row
  if (h.rows.size() > lines) __builtin_trap();           // one row per line at most
  // Shares: each row line gives at most 100% (1000000 millionths).
  if (!l.has_counts && sum > static_cast<unsigned __int128>(lines) * 1000000) __builtin_trap();
  if (!one_line(l.event) || !one_line(l.cpu)) __builtin_trap();
  for (const auto& n : l.notes) {
    if (n.empty() || !one_line(n)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)kprof::importer::looks_like_listing(in);
  kprof::importer::TableListing first;
  try {
    first = kprof::importer::parse_listing(in, "fuzz");
  } catch (const kprof::Error& e) {
    const std::string_view what = e.what();
    if (!what.starts_with("fuzz: ") || !one_line(what)) __builtin_trap();
    return 0;
  }
  check(first, in);
  const auto again = kprof::importer::parse_listing(in, "fuzz");
  if (again.histogram != first.histogram || again.notes != first.notes ||
      again.has_counts != first.has_counts || again.event != first.event ||
      again.total != first.total || again.period != first.period) {
    __builtin_trap();
  }
  return 0;
}
