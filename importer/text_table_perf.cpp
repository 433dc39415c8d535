// perf report --stdio listings: see importer/text_table.h.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "importer/listing_parse.h"

namespace kprof::importer::listing {

bool perf_heading(string_view line) {
  if (line.empty() || line[0] != '#') return false;
  const string_view rest = ltrim(line.substr(1));
  for (const string_view w : {"Overhead", "Children"}) {
    if (rest.starts_with(w) && (rest.size() == w.size() || is_space(rest[w.size()]))) return true;
  }
  return false;
}

namespace {

struct PerfCol {
  std::string name;
  size_t begin = 0, end = npos;  // from the rule; end npos: to the end of the line
};

struct PerfLayout {
  std::vector<PerfCol> cols;
  bool ruled = false;
  int self = -1, children = -1, samples = -1, dso = -1, sym = -1;
  size_t numeric = 0;  // leading columns that hold one number each
};

bool is_numeric_column(string_view name) {
  return name == "Children" || name == "Self" || name == "Overhead" || name == "Samples" ||
         name == "Period" || name == "sys" || name == "usr" || name == "guest sys" ||
         name == "guest usr";
}

// Heading "# Overhead  Samples  Command ..." and, when `rule` is perf's
// "# ........  ......" line under it, each column's extent.
PerfLayout perf_layout(string_view heading, string_view rule) {
  PerfLayout l;
  for (size_t i = 1; i < heading.size(); ++i) {  // names are 2+ spaces apart
    if (is_space(heading[i])) continue;
    const size_t e = std::min(heading.find("  ", i), heading.size());
    l.cols.push_back({std::string(heading.substr(i, e - i)), i, npos});
    i = e;
  }
  std::vector<std::pair<size_t, size_t>> runs;  // the rule's runs of dots
  const bool rule_ok = rule.starts_with('#') && rule.find_first_not_of("#. ") == npos;
  for (size_t i = 1; rule_ok && i < rule.size(); ++i) {
    if (rule[i] == '.' && rule[i - 1] != '.') runs.push_back({i, i});
    if (rule[i] == '.') runs.back().second = i + 1;
  }
  if (!runs.empty() && runs.size() == l.cols.size()) {
    l.ruled = true;
    for (size_t c = 0; c < runs.size(); ++c) {
      l.cols[c].begin = runs[c].first;
      l.cols[c].end = c + 1 < runs.size() ? runs[c].second : npos;
    }
  }
  for (size_t c = 0; c < l.cols.size(); ++c) {
    const std::string& n = l.cols[c].name;
    const int ci = static_cast<int>(c);
    if (n == "Self" || (n == "Overhead" && l.self < 0)) l.self = ci;
    if (n == "Children") l.children = ci;
    if (n == "Samples") l.samples = ci;
    if (n == "Shared Object") l.dso = ci;
    if (n == "Symbol") l.sym = ci;
    if (l.numeric == c && is_numeric_column(n)) ++l.numeric;
  }
  return l;
}

struct PerfRow {
  uint64_t share = 0, samples = 0;
  string_view dso, symbol;
};

bool check_field(const PerfLayout& l, int c, string_view field, PerfRow& r) {
  uint64_t v = 0;
  if (c == l.self || c == l.children) {
    if (!parse_percent(field, v)) return false;
    if (c == l.self) r.share = v;
  } else if (c == l.samples) {
    if (!parse_u64(field, r.samples)) return false;
  } else if (l.cols[c].name == "Period") {
    if (!parse_u64(field, v)) return false;
  } else if (c == l.dso) {
    r.dso = field;
  } else if (c == l.sym) {
    if (field.empty()) return false;
    r.symbol = field;
  }
  return true;
}

// By the rule's column extents; false when a value does not sit in its column.
bool perf_row_ruled(string_view line, const PerfLayout& l, PerfRow& r) {
  if (!trim(line.substr(0, l.cols[0].begin)).empty()) return false;
  for (size_t c = 0; c < l.cols.size(); ++c) {
    const size_t b = l.cols[c].begin;
    if (b > 0 && b < line.size() && !is_space(line[b - 1])) return false;
    const string_view field = b < line.size() ? trim(line.substr(b, l.cols[c].end - b)) : "";
    if (!check_field(l, static_cast<int>(c), field, r)) return false;
  }
  return true;
}

// By whitespace: the numeric columns one token each; then, when Symbol is
// the last column, the symbol from its "[.]" mark to the end, the text
// columns before it one token each from the right and the first one what is
// left ("busy worker"); otherwise the text columns one token each, the last
// one the rest of the line.
bool perf_row_split(string_view line, const PerfLayout& l, PerfRow& r) {
  const auto t = tokenize(line);
  size_t i = 0;
  for (size_t c = 0; c < l.numeric; ++c, ++i) {
    if (i >= t.size() || !check_field(l, static_cast<int>(c), t[i].text, r)) return false;
  }
  const size_t ncols = l.cols.size();
  if (l.numeric == ncols) return i == t.size();
  if (l.sym == static_cast<int>(ncols) - 1) {
    size_t m = i;
    while (m < t.size() && !is_mark(t[m].text)) ++m;
    if (m == t.size()) {
      if (l.numeric + 1 < ncols) return false;  // no mark: only a lone Symbol column
      m = i;
    }
    if (m >= i + 2 && is_hex_address(t[m - 2].text) && t[m - 1].text.size() == 1) m -= 2;  // -v
    if (m >= t.size() || !check_field(l, l.sym, rtrim(line.substr(t[m].pos)), r)) return false;
    size_t end = m;
    const size_t texts = ncols - 1 - l.numeric;
    if (end - i < texts || (texts == 0 && end != i)) return false;
    for (size_t c = ncols - 1; c-- > l.numeric;) {
      const size_t b = c == l.numeric ? i : end - 1;
      const string_view field = line.substr(t[b].pos, t[end - 1].end() - t[b].pos);
      if (!check_field(l, static_cast<int>(c), field, r)) return false;
      end = b;
    }
    return true;
  }
  for (size_t c = l.numeric; c < ncols; ++c, ++i) {
    if (i >= t.size()) return false;
    const string_view field = c + 1 == ncols ? rtrim(line.substr(t[i].pos)) : t[i].text;
    if (!check_field(l, static_cast<int>(c), field, r)) return false;
  }
  return true;
}

// "# Samples: 279  of event 'cpu-clock'": the event, and the count when exact.
bool perf_samples_line(string_view s, std::string& event, std::optional<uint64_t>& total) {
  if (!s.starts_with("# Samples:")) return false;
  const size_t of = s.find("of event '");
  if (of == npos) return false;
  const size_t q = s.rfind('\'');
  event = q > of + 10 ? std::string(s.substr(of + 10, q - of - 10)) : "";
  uint64_t n = 0;
  const auto t = tokenize(s.substr(10, of - 10));
  total.reset();
  if (t.size() == 1 && parse_u64(t[0].text, n)) total = n;
  return true;
}

}  // namespace

void parse_perf(const std::vector<string_view>& lines, size_t first, bool headed,
                TableListing& out) {
  out.format = "perf report";
  uint64_t lost = 0;
  bool have_event = false;
  for (size_t i = 0; i < first; ++i) {  // lines before the heading or first row
    const string_view s = trim(lines[i].substr(quote_prefix(lines[i]).size()));
    if (s.starts_with("# Total Lost Samples:")) {
      const auto t = tokenize(s.substr(21));
      if (!t.empty()) parse_u64(t[0].text, lost);
    }
    std::optional<uint64_t> total;
    std::string event;
    if (!have_event && perf_samples_line(s, event, total)) {
      out.event = event, out.total = total, have_event = true;
    }
  }
  string_view prefix;
  PerfLayout l;
  size_t start = first;
  if (headed) {
    prefix = quote_prefix(lines[first]);
    const string_view rule = first + 1 < lines.size() ? strip_prefix(lines[first + 1], prefix) : "";
    l = perf_layout(rtrim(lines[first].substr(prefix.size())), rtrim(rule));
    start = first + (l.ruled ? 2 : 1);
    if (l.children >= 0 && l.self >= 0) {
      out.notes.push_back(
          "read the Self column; Children shares (self plus callees) do not add up");
    }
    if (l.sym < 0) out.notes.push_back("no Symbol column: every function is [unknown]");
  } else {  // rows only ("perf report -q"): "60.97%  busy  busy  [.] spin", or Children first
    const auto t = tokenize(unquote(lines[first]));
    uint64_t v = 0;
    const bool two = t.size() > 1 && parse_percent(t[1].text, v);
    l = perf_layout(two ? "# Children  Self  Command  Shared Object  Symbol"
                        : "# Overhead  Command  Shared Object  Symbol",
                    "");
    out.notes.push_back("no column heading: rows read as perf report's '" +
                        std::string(two ? "Children Self " : "Overhead ") +
                        "Command Shared Object Symbol'");
  }
  out.has_counts = l.samples >= 0;
  if (l.self < 0) return;
  std::vector<std::string> others;
  bool graph_ok = false, done = false;
  size_t skipped = 0, graph_lines = 0;
  Builder b;
  for (size_t i = start; i < lines.size(); ++i) {
    const string_view s = rtrim(headed ? strip_prefix(lines[i], prefix) : unquote(lines[i]));
    if (s.empty()) {
      graph_ok = false;
      continue;
    }
    if (s[0] == '#') {
      std::string event;
      std::optional<uint64_t> total;
      if (perf_samples_line(s, event, total)) {  // the next event's section
        others.push_back("'" + event + "'");
        done = true;
      }
      continue;
    }
    if (done) continue;
    PerfRow r;
    bool row = l.ruled && perf_row_ruled(s, l, r);
    if (!row) row = perf_row_split(s, l, r = PerfRow{});
    if (!row) {
      // Call-graph lines are indented, or "60.02% a;b;c" flush left (-g folded).
      if (graph_ok &&
          (is_space(s[0]) || s[0] == '|' || s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        ++graph_lines;
      } else {
        ++skipped;
        graph_ok = false;
      }
      continue;
    }
    graph_ok = true;
    Mode mode = Mode::Unknown;
    string_view symbol = r.symbol;
    const auto st = tokenize(symbol);  // -v: "0x1743  B [.] spin(unsigned long)"
    if (st.size() > 2 && is_hex_address(st[0].text) && st[1].text.size() == 1 &&
        is_mark(st[2].text)) {
      symbol = symbol.substr(st[2].pos);
    }
    if (symbol.size() >= 3 && is_mark(symbol.substr(0, 3)) &&
        (symbol.size() == 3 || is_space(symbol[3]))) {
      mode = perf_level(symbol[1]);
      symbol = trim(symbol.substr(3));
    }
    const Placed where = perf_image(trim(r.dso), l.dso >= 0, mode);
    out.listed_share += r.share;
    b.add(where, l.sym >= 0 ? function_name(symbol, r.dso) : "[unknown]",
          out.has_counts ? r.samples : r.share);
  }
  if (!others.empty()) {
    out.notes.push_back("read event '" + out.event + "' only; the listing also has " +
                        join(others));
  }
  if (lost > 0)
    out.notes.push_back("perf lost " + plural(lost, "sample", "samples") + " while recording");
  note_skipped(out, graph_lines, "call-graph line", "call-graph lines", " under the rows");
  note_skipped(out, skipped, "line that is not a row", "lines that are not rows");
  out.histogram = b.take();
}

// A row with no heading: a leading "NN.NN%" and a "[.]" mark.
bool perf_headless(string_view line) {
  const auto t = tokenize(line);
  uint64_t v = 0;
  return !t.empty() && parse_percent(t[0].text, v) &&
         std::any_of(t.begin(), t.end(), [](const Token& k) { return is_mark(k.text); });
}

}  // namespace kprof::importer::listing
