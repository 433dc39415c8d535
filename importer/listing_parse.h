// Internal to the listing parser (text_table.cpp, text_table_opreport.cpp,
// text_table_perf.cpp): what the opreport and perf report parsers share. Not a
// public contract; the public one is importer/text_table.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/model.h"
#include "importer/text_table.h"

namespace kprof::importer::listing {

using std::string_view;
constexpr size_t npos = string_view::npos;

// ---------------------------------------------------------------- text helpers

bool is_space(char c);
string_view ltrim(string_view s);
string_view rtrim(string_view s);
string_view trim(string_view s);

std::vector<string_view> split_lines(string_view text);

struct Token {
  string_view text;
  size_t pos = 0;  // offset in the line
  size_t end() const { return pos + text.size(); }
};

std::vector<Token> tokenize(string_view line);

// Quoting before a heading ("> ", tabs): what follows it is stripped the same way.
string_view quote_prefix(string_view line);
// Email quoting ("> ", ">"), repeated: for rows with no heading to take a prefix from.
string_view unquote(string_view line);
string_view strip_prefix(string_view line, string_view prefix);

bool parse_u64(string_view s, uint64_t& out);
// A percentage ("13.2561", "0.00", "8.2e-04") as millionths of the whole
// (13.2561 -> 132561). Only 0..100%: "nan", "inf" and the like are not shares.
bool parse_share(string_view s, uint64_t& out);
// perf's "60.97%".
bool parse_percent(string_view s, uint64_t& out);
// "0x4330", or a bare run of 8+ hex digits with a decimal digit ("0000000000000000",
// but not a name such as "deadbeef").
bool is_hex_address(string_view s);
string_view basename(string_view path);

// ---------------------------------------------------------------- names

struct Placed {
  std::string image;
  Mode mode;
};

// The kernel ("[kernel]") or a module file ("[ext4]") by a path's last part.
std::optional<std::string> kernel_image(string_view base);
Placed opreport_image(string_view image, string_view symbol);
Placed perf_image(string_view dso, bool has_dso_column, Mode mode);
std::string function_name(string_view symbol, string_view image);
// Mode from perf's symbol mark.
Mode perf_level(char c);
bool is_mark(string_view tok);

// ---------------------------------------------------------------- histogram

class Builder {
 public:
  void add(const Placed& where, std::string function, uint64_t samples) {
    auto [img, fresh] = images_.try_emplace(where.image, static_cast<uint32_t>(h_.images.size()));
    if (fresh) h_.images.push_back({where.image, ""});
    auto [row, added] = rows_.try_emplace({img->second, function, where.mode}, h_.rows.size());
    if (added) {
      h_.rows.push_back({img->second, std::move(function), where.mode, 0, 0});
    }
    uint64_t& total = h_.rows[row->second].samples;
    total = samples > UINT64_MAX - total ? UINT64_MAX : total + samples;
  }
  bool empty() const { return h_.rows.empty(); }
  Histogram take() { return std::move(h_); }

 private:
  std::map<std::string, uint32_t, std::less<>> images_;
  std::map<std::tuple<uint32_t, std::string, Mode>, size_t> rows_;
  Histogram h_;
};

std::string join(const std::vector<std::string>& items);
std::string plural(size_t n, const char* one, const char* many);
// "skipped 3 lines that are not rows"; nothing when n is 0.
void note_skipped(TableListing& out, size_t n, const char* one, const char* many,
                  const char* tail = "");

// ---------------------------------------------------------------- opreport

enum class Col { Vma, Samples, Percent, Linenr, Image, App, Symbol, Other };

// The columns of an opreport heading ("samples  %  image name  symbol name"),
// or empty when `line` (quoting removed) is not one.
std::vector<Col> opreport_heading(string_view line);
// Columns for a row with no heading: "samples % image symbol", or "samples %
// symbol" with three fields. Empty when the line does not start that way.
std::vector<Col> opreport_headless(string_view line);
// Reads `lines` from `first` (the heading when `headed`, else the first row) into `out`.
void parse_opreport(const std::vector<string_view>& lines, size_t first, bool headed,
                    TableListing& out);

// ---------------------------------------------------------------- perf report

// "# Overhead ..." or "# Children ..." (quoting removed).
bool perf_heading(string_view line);
// A row with no heading: a leading "NN.NN%" and a "[.]" mark.
bool perf_headless(string_view line);
// Reads `lines` from `first` (the heading when `headed`, else the first row) into `out`.
void parse_perf(const std::vector<string_view>& lines, size_t first, bool headed,
                TableListing& out);

}  // namespace kprof::importer::listing
