// opreport -l listings: see importer/text_table.h.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "importer/listing_parse.h"

namespace kprof::importer::listing {

// The columns of an opreport heading ("samples  %  image name  symbol name"),
// or empty when `line` (quoting removed) is not one.
std::vector<Col> opreport_heading(string_view line) {
  const auto t = tokenize(line);
  const size_t n = t.size();
  if (n < 3 || t[n - 2].text != "symbol" || t[n - 1].text != "name") return {};
  struct Name {
    string_view first, second;  // second "": a one-word name
    Col col;
  };
  static constexpr Name kNames[] = {
      {"samples", "", Col::Samples},   {"%", "", Col::Percent},   {"vma", "", Col::Vma},
      {"image", "name", Col::Image},   {"app", "name", Col::App}, {"linenr", "info", Col::Linenr},
      {"cum.", "samples", Col::Other}, {"cum.", "%", Col::Other}};
  std::vector<Col> cols;
  size_t others = 0;
  for (size_t i = 0; i + 2 < n; ++i) {
    const string_view w = t[i].text, next = i + 3 < n ? t[i + 1].text : string_view();
    const Name* hit = nullptr;
    for (const Name& name : kNames) {
      if (w == name.first && (name.second.empty() || next == name.second)) hit = &name;
    }
    if (hit) {
      cols.push_back(hit->col);
      i += hit->second.empty() ? 0 : 1;
      continue;
    }
    // --separate adds short lower-case columns ("cpu", "tid"); anything else is prose.
    if (++others > 2 || w.size() > 8 || w.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != npos) {
      return {};
    }
    cols.push_back(Col::Other);
  }
  bool percent = false;
  for (const Col c : cols) percent = percent || c == Col::Percent;
  if (!percent || (cols[0] != Col::Samples && cols[0] != Col::Percent && cols[0] != Col::Vma)) {
    return {};
  }
  cols.push_back(Col::Symbol);
  return cols;
}

namespace {

struct OpRow {
  uint64_t samples = 0, share = 0;
  bool placed = false;  // an image (or, without one, an app name) column was read
  string_view image, symbol;
};

// One opreport row under `cols`; false when the line is not one.
bool parse_opreport_row(string_view line, const std::vector<Col>& cols, OpRow& r) {
  const auto t = tokenize(line);
  size_t i = 0;
  bool have_samples = false, have_share = false;
  for (const Col col : cols) {
    if (i >= t.size()) return false;
    const string_view tok = t[i].text;
    uint64_t v = 0;
    switch (col) {
      case Col::Symbol:
        r.symbol = rtrim(line.substr(t[i].pos));
        return have_share;
      case Col::Vma:
        if (tok.find_first_not_of("0123456789abcdefABCDEF") != npos) return false;
        ++i;
        break;
      case Col::Samples:
      case Col::Percent:
        if (!(col == Col::Samples ? parse_u64(tok, v) : parse_share(tok, v))) return false;
        if (col == Col::Samples && !have_samples) r.samples = v, have_samples = true;
        if (col == Col::Percent && !have_share) r.share = v, have_share = true;
        ++i;
        break;
      case Col::Image:
      case Col::App:
      case Col::Linenr: {
        // Values that hold spaces: "anon (tgid:12 range:0x1-0x2)", "x (deleted)",
        // "(no location information)". Taken up to the token closing the parenthesis.
        size_t last = i;
        const bool open = col == Col::Linenr ? tok.starts_with('(') : false;
        if (open || (i + 1 < t.size() &&
                     (t[i + 1].text.starts_with("(tgid:") || t[i + 1].text == "(deleted)"))) {
          size_t j = open ? i : i + 1;
          while (j + 1 < t.size() && !t[j].text.ends_with(')')) ++j;
          if (t[j].text.ends_with(')') && j + 1 < t.size()) last = j;
        }
        // Without an image column, an app name column names the image (old opreport).
        if (col == Col::Image || (col == Col::App && !r.placed)) {
          r.image = line.substr(t[i].pos, t[last].end() - t[i].pos);
          r.placed = true;
        }
        i = last + 1;
        break;
      }
      case Col::Other:
        ++i;
        break;
    }
  }
  return false;
}

}  // namespace

// Columns for a row with no heading: "samples % image symbol", or "samples %
// symbol" with three fields. Empty when the line does not start that way.
std::vector<Col> opreport_headless(string_view line) {
  const auto t = tokenize(line);
  uint64_t v = 0;
  if (t.size() < 3 || !parse_u64(t[0].text, v) || !parse_share(t[1].text, v) ||
      t[1].text.find_first_of(".eE") == npos) {
    return {};
  }
  if (t.size() == 3) return {Col::Samples, Col::Percent, Col::Symbol};
  return {Col::Samples, Col::Percent, Col::Image, Col::Symbol};
}

void parse_opreport(const std::vector<string_view>& lines, size_t first, bool headed,
                    TableListing& out) {
  out.format = "opreport";
  std::vector<std::string> events;
  for (size_t i = 0; i < first; ++i) {  // lines before the heading or first row
    const string_view s = trim(lines[i].substr(quote_prefix(lines[i]).size()));
    if (s.starts_with("CPU:") && out.cpu.empty()) out.cpu = std::string(trim(s.substr(4)));
    if (!s.starts_with("Counted ")) continue;
    const auto t = tokenize(s);
    if (t.size() >= 2) events.emplace_back(t[1].text);
    if (const size_t c = s.rfind(" count "); c != npos && !out.period) {
      uint64_t period = 0;
      const auto rest = tokenize(s.substr(c + 7));
      if (!rest.empty() && parse_u64(rest[0].text, period)) out.period = period;
    }
  }
  if (!events.empty()) out.event = events[0];

  std::vector<Col> cols;
  string_view prefix;
  size_t start = first;
  if (headed) {
    prefix = quote_prefix(lines[first]);
    cols = opreport_heading(lines[first].substr(prefix.size()));
    start = first + 1;
    size_t pairs = 0;
    for (const Col c : cols) pairs += c == Col::Percent ? 1 : 0;
    if (pairs > 1) {
      out.notes.push_back("the listing has " + std::to_string(pairs) + " events" +
                          (events.size() == pairs ? " (" + join(events) + ")" : "") +
                          "; read the first" + (events.empty() ? "" : ", " + events[0]));
    }
  } else {
    out.notes.push_back(
        "no column heading: rows read as 'samples % image symbol' ('samples % symbol' with "
        "three fields)");
  }
  out.has_counts = !headed || std::find(cols.begin(), cols.end(), Col::Samples) != cols.end();
  bool callgraph = false;
  size_t skipped = 0, graph_lines = 0;
  Builder b;
  for (size_t i = start; i < lines.size(); ++i) {
    const string_view s = headed ? strip_prefix(lines[i], prefix) : unquote(lines[i]);
    const string_view bare = trim(s);
    if (bare.empty()) continue;
    if (bare.size() >= 10 && bare.find_first_not_of('-') == npos) {  // opreport -c separator
      callgraph = true;
      continue;
    }
    if (callgraph && is_space(s[0])) {  // a caller or callee of the primary row
      ++graph_lines;
      continue;
    }
    const std::vector<Col> row_cols = headed ? cols : opreport_headless(bare);
    OpRow r;
    if (row_cols.empty() || !parse_opreport_row(bare, row_cols, r)) {
      ++skipped;
      continue;
    }
    const Placed where =
        r.placed ? opreport_image(r.image, r.symbol) : Placed{"[unknown]", Mode::Unknown};
    out.listed_share += r.share;
    b.add(where, function_name(r.symbol, r.image), out.has_counts ? r.samples : r.share);
  }
  note_skipped(out, graph_lines, "caller/callee line", "caller/callee lines", " of the call graph");
  note_skipped(out, skipped, "line that is not a row", "lines that are not rows");
  out.histogram = b.take();
}

}  // namespace kprof::importer::listing
