// Plain-text tables and the number formats every report shares (report,
// info, diff). Widths are counted in UTF-8 code points, so "…" and names
// with non-ASCII characters line up. Nothing here reads a profile.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

enum class Align { Left, Right };

struct Column {
  std::string title;
  Align align = Align::Left;
  size_t max_width = 0;  // cells wider than this are cut with "…"; 0 = never cut
  // A shorter title for a table that must fit a narrower line (TextTable::fit),
  // as "base %" for a side's long label; "" for none.
  std::string short_title;
};

// A table rendered with two spaces between columns, a title line, and no
// trailing blanks (the last column is never padded). Cells beyond the column
// count are ignored; missing cells are empty.
class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  void add_row(std::vector<std::string> cells) { add_row(std::move(cells), ""); }
  // `style`: a terminal escape sequence the whole printed line is wrapped in
  // (then reset); "" for none. Widths do not count it.
  void add_row(std::vector<std::string> cells, std::string style) {
    rows_.push_back(std::move(cells));
    styles_.push_back(std::move(style));
  }
  size_t rows() const { return rows_.size(); }
  // Fit every line in `columns` (a terminal's width; 0: no limit): when the
  // table is wider, titles give way to their short_title, then the columns
  // with a max_width (the names) give up room,
  // widest first, down to 12 code points each, their cells shortened in the
  // middle (shorten_name). Columns without one (numbers) are never cut, so
  // a table of many numbers can stay wider than `columns`.
  void fit(size_t columns) { line_width_ = columns; }

  // `titles`: print the title line first.
  void write(std::ostream& out, bool titles = true) const;
  std::string str(bool titles = true) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  void fit_cells(std::vector<std::vector<std::string>>& cells, std::vector<size_t>& width,
                 bool titles) const;
  std::vector<std::string> styles_;  // per row
  size_t line_width_ = 0;
};

// Code points in a UTF-8 string (invalid bytes count as one each); terminal
// escape sequences (colour) count as none.
size_t display_width(std::string_view s);

// Terminal colours (SGR), shared by report and diff: `text` wrapped in the
// code and a reset when `on`, else as it is.
enum class Style { Grew, Shrank, Dim, OneSided, Notice };
std::string styled(std::string_view text, Style style, bool on);
// The escape sequence that starts `style` ("" when off).
std::string style_code(Style style, bool on);
// `s` cut to at most `max_width` code points, the last one "…" when cut.
std::string truncate_display(std::string_view s, size_t max_width);
// `s` in at most `max_width` code points, for a name: a C++ parameter list
// gives way first ("f(int, long) const" -> "f(…) const"), then the middle,
// so that both the start and the end stay ("ns::Bo…::work(…)").
std::string shorten_name(std::string_view s, size_t max_width);
// `line` (no '\n') broken at blanks into lines of at most `width` code
// points ('\n' between them; escapes take no room), for prose on a
// terminal. Continuations are indented: a "# key:  value" header line's
// under its value, any other two more than the line. A word longer than a
// line is broken where it reaches `width`. `width` 0, or a line that fits:
// the line as it is. (A table too wide for the terminal wraps this way too,
// each row under itself, rather than the terminal's cut at any character.)
std::string wrap_line(std::string_view line, size_t width);
// `s` padded with blanks to `width` code points, on the right (Left) or left (Right).
std::string pad(std::string_view s, size_t width, Align align);

// 12.3456 (oprofile's "%.4f"); `decimals` digits after the point.
std::string format_percent(double percent, int decimals = 4);
// `part` as a percent of `total` (0 when total is 0).
double percent_of(uint64_t part, uint64_t total);
// Fixed-point number with `decimals` digits: format_fixed(1.5, 2) == "1.50".
std::string format_fixed(double value, int decimals);
// 1234567 -> "1234567" (no separators: tables are read by scripts too).
std::string format_count(uint64_t n);
// Nanoseconds as seconds: "12.345 s".
std::string format_seconds(uint64_t ns);
// A command line, with arguments that need it quoted for a POSIX shell.
std::string format_command(const std::vector<std::string>& argv);
// Basename of a path: "/usr/lib/libc.so.6" -> "libc.so.6"; "[kernel]" unchanged.
std::string_view path_basename(std::string_view path);

}  // namespace kprof
