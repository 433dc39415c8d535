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

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    // A terminal escape sequence (ESC [ ... final byte) takes no room.
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= 0x40 && s[i] <= 0x7e)) ++i;
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
