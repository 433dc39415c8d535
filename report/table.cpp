#include "report/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kprof {

namespace {

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Byte length of the first `n` code points of `s`.
size_t prefix_bytes(std::string_view s, size_t n) {
  size_t i = 0;
  for (size_t cp = 0; i < s.size() && cp < n; ++cp) {
    ++i;
    while (i < s.size() && is_continuation(static_cast<unsigned char>(s[i]))) ++i;
  }
  return i;
}

// Where a terminal escape sequence (ESC [ ... final byte) that starts at
// `i` ends: the index of its final byte; `i` itself when none starts there.
size_t escape_end(std::string_view s, size_t i) {
  if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return i;
  i += 2;
  while (i < s.size() && !(s[i] >= 0x40 && s[i] <= 0x7e)) ++i;
  return i;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    // A terminal escape sequence takes no room.
    if (const size_t end = escape_end(s, i); end != i) {
      i = end;
      continue;
    }
    if (i == 0 || !is_continuation(static_cast<unsigned char>(s[i]))) ++n;
  }
  return n;
}

std::string truncate_display(std::string_view s, size_t max_width) {
  if (max_width == 0 || display_width(s) <= max_width) return std::string(s);
  std::string out(s.substr(0, prefix_bytes(s, max_width - 1)));
  out += "\u2026";
  return out;
}

std::string shorten_name(std::string_view s, size_t max_width) {
  if (max_width == 0 || display_width(s) <= max_width) return std::string(s);
  std::string t(s);
  // The parameter list: the last ')' and its matching '('.
  if (const size_t close = t.rfind(')'); close != std::string::npos) {
    int depth = 0;
    for (size_t i = close + 1; i-- > 0;) {
      if (t[i] == ')') ++depth;
      if (t[i] == '(' && --depth == 0) {
        if (close > i + 1) t = t.substr(0, i + 1) + "\u2026" + t.substr(close);
        break;
      }
    }
  }
  const size_t n = display_width(t);
  if (n <= max_width) return t;
  if (max_width < 4) return truncate_display(t, max_width);
  const size_t keep = max_width - 1, head = (keep + 1) / 2, tail = keep - head;
  return t.substr(0, prefix_bytes(t, head)) + "\u2026" + t.substr(prefix_bytes(t, n - tail));
}

std::string wrap_line(std::string_view line, size_t width) {
  if (width == 0 || display_width(line) <= width) return std::string(line);
  // The line as shown (no colour escapes), to read its layout from.
  std::string plain;
  for (size_t i = 0; i < line.size(); ++i) {
    if (const size_t end = escape_end(line, i); end != i) {
      i = end;
      continue;
    }
    plain += line[i];
  }
  const size_t lead = std::min(plain.find_first_not_of(' '), plain.size());
  // The continuation's indent: a header line's value column ("# notice:
  // text" goes on under "text"), else the line's own indent and two more.
  std::string indent;
  if (plain.starts_with("# ")) {
    const size_t colon = plain.find(':');
    const size_t value = colon < 24 ? plain.find_first_not_of(' ', colon + 1) : std::string::npos;
    indent = "#" + std::string(value != std::string::npos && value < 30 ? value - 1 : 1, ' ');
  } else {
    indent.assign(lead + 2, ' ');
  }
  if (indent.size() + 20 > width) indent = "  ";
  std::string out;
  std::string_view rest = line;
  for (bool first = true;; first = false) {
    const size_t room = width - (first ? 0 : indent.size());
    if (!first) out += '\n' + indent;
    if (display_width(rest) <= room) {
      out += rest;
      return out;
    }
    // The last blank at which the piece still fits; escapes take no room.
    size_t col = 0, cut = 0, i = 0;
    for (; i < rest.size(); ++i) {
      if (const size_t end = escape_end(rest, i); end != i) {
        i = end;
        continue;
      }
      if (is_continuation(static_cast<unsigned char>(rest[i]))) continue;
      if (rest[i] == ' ' && i > 0) cut = i;
      if (++col > room) break;
    }
    if (cut == 0) cut = i;  // one word longer than the line: cut it
    out += rest.substr(0, cut);
    rest.remove_prefix(cut);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.empty()) return out;
  }
}

std::string pad(std::string_view s, size_t width, Align align) {
  size_t w = display_width(s);
  if (w >= width) return std::string(s);
  std::string blanks(width - w, ' ');
  return align == Align::Left ? std::string(s) + blanks : blanks + std::string(s);
}

void TextTable::write(std::ostream& out, bool titles) const {
  const size_t ncols = columns_.size();
  // Cut cells first so widths are measured on what is printed.
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows_.size() + 1);
  if (titles) {
    std::vector<std::string> t;
    for (const Column& c : columns_) t.push_back(c.title);
    cells.push_back(std::move(t));
  }
  for (const auto& row : rows_) {
    std::vector<std::string> r(ncols);
    for (size_t i = 0; i < ncols && i < row.size(); ++i) {
      r[i] = truncate_display(row[i], columns_[i].max_width);
    }
    cells.push_back(std::move(r));
  }
  std::vector<size_t> width(ncols, 0);
  for (const auto& r : cells) {
    for (size_t i = 0; i < ncols; ++i) width[i] = std::max(width[i], display_width(r[i]));
  }
  if (line_width_ > 0) fit_cells(cells, width, titles);
  for (size_t k = 0; k < cells.size(); ++k) {
    const auto& r = cells[k];
    const size_t row = titles ? k - 1 : k;  // index into styles_ (k = 0 is the titles)
    const std::string& style = (titles && k == 0) ? std::string() : styles_[row];
    std::string line = style;
    for (size_t i = 0; i < ncols; ++i) {
      if (i) line += "  ";
      bool last = i + 1 == ncols;
      line += (last && columns_[i].align == Align::Left) ? r[i]
                                                         : pad(r[i], width[i], columns_[i].align);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!style.empty()) line += "\x1b[0m";
    out << line << '\n';
  }
}

void TextTable::fit_cells(std::vector<std::vector<std::string>>& cells, std::vector<size_t>& width,
                          bool titles) const {
  constexpr size_t kMinName = 12;
  size_t total = 0;
  for (size_t w : width) total += w;
  total += 2 * (width.empty() ? 0 : width.size() - 1);
  if (total <= line_width_) return;
  // Short titles first: recount the widths with them.
  if (titles) {
    bool swapped = false;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].short_title.empty()) continue;
      cells[0][i] = columns_[i].short_title;
      swapped = true;
    }
    if (swapped) {
      total = 2 * (width.empty() ? 0 : width.size() - 1);
      for (size_t i = 0; i < width.size(); ++i) {
        width[i] = 0;
        for (const auto& r : cells) width[i] = std::max(width[i], display_width(r[i]));
        total += width[i];
      }
      if (total <= line_width_) return;
    }
  }
  std::vector<size_t> target = width;
  size_t excess = total - line_width_;
  // The names give up room, widest first.
  for (; excess > 0; --excess) {
    size_t widest = width.size();
    for (size_t i = 0; i < width.size(); ++i) {
      if (columns_[i].max_width == 0 || target[i] <= kMinName) continue;
      if (widest == width.size() || target[i] > target[widest]) widest = i;
    }
    if (widest == width.size()) break;  // the numbers alone are wider
    --target[widest];
  }
  for (size_t i = 0; i < width.size(); ++i) {
    if (target[i] == width[i]) continue;
    for (size_t k = 0; k < cells.size(); ++k) {
      const bool title = titles && k == 0;
      if (!title && columns_[i].max_width == 0) continue;  // numbers are never cut
      if (!title && i >= rows_[titles ? k - 1 : k].size()) continue;
      const std::string& title_text =
          columns_[i].short_title.empty() ? columns_[i].title : columns_[i].short_title;
      cells[k][i] = shorten_name(title ? title_text : rows_[titles ? k - 1 : k][i], target[i]);
    }
    width[i] = target[i];
  }
}

std::string TextTable::str(bool titles) const {
  std::ostringstream out;
  write(out, titles);
  return out.str();
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return value != value ? "nan" : (value > 0 ? "inf" : "-inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s = buf;
  // "-0.0000" reads as a negative change that is not there.
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string format_percent(double percent, int decimals) {
  return format_fixed(percent, decimals);
}

double percent_of(uint64_t part, uint64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(total);
}

std::string format_count(uint64_t n) {
  return std::to_string(n);
}

std::string format_seconds(uint64_t ns) {
  return format_fixed(static_cast<double>(ns) / 1e9, 3) + " s";
}

std::string format_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                                   "XYZ0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

std::string_view path_basename(std::string_view path) {
  if (path.empty() || path.front() == '[') return path;
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == path.size()) return path;
  return path.substr(slash + 1);
}

std::string styled(std::string_view text, Style style, bool on) {
  if (!on) return std::string(text);
  return style_code(style, true) + std::string(text) + "\x1b[0m";
}

std::string style_code(Style style, bool on) {
  if (!on) return "";
  const char* code = "";
  switch (style) {
    case Style::Grew:
      code = "\x1b[31m";  // red: took more of the samples
      break;
    case Style::Shrank:
      code = "\x1b[34m";  // blue: took fewer
      break;
    case Style::Dim:
      code = "\x1b[2m";  // within noise
      break;
    case Style::OneSided:
      code = "\x1b[35m";  // magenta: only on one side
      break;
    case Style::Notice:
      code = "\x1b[1;33m";  // bold yellow
      break;
  }
  return code;
}

}  // namespace kprof
