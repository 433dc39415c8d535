#include "importer/text_table.h"

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/file_layout.h"
#include "importer/listing_parse.h"

namespace kprof::importer {
namespace listing {

// ---------------------------------------------------------------- text helpers

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

string_view ltrim(string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}
string_view rtrim(string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}
string_view trim(string_view s) {
  return rtrim(ltrim(s));
}

std::vector<string_view> split_lines(string_view text) {
  std::vector<string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<Token> tokenize(string_view line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t b = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > b) out.push_back({line.substr(b, i - b), b});
  }
  return out;
}

// Quoting before a heading ("> ", tabs): what follows it is stripped the same way.
string_view quote_prefix(string_view line) {
  size_t i = 0;
  while (i < line.size() && (is_space(line[i]) || line[i] == '>')) ++i;
  return line.substr(0, i);
}
// Email quoting ("> ", ">"), repeated: for rows with no heading to take a prefix from.
string_view unquote(string_view line) {
  while (line.starts_with('>')) line.remove_prefix(line.starts_with("> ") ? 2 : 1);
  return line;
}
string_view strip_prefix(string_view line, string_view prefix) {
  size_t i = 0;
  while (i < prefix.size() && i < line.size() && line[i] == prefix[i]) ++i;
  return line.substr(i);
}

bool parse_u64(string_view s, uint64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

// A percentage ("13.2561", "0.00", "8.2e-04") as millionths of the whole
// (13.2561 -> 132561). Only 0..100%: "nan", "inf" and the like are not shares.
bool parse_share(string_view s, uint64_t& out) {
  double v = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !(v >= 0 && v <= 100)) return false;
  out = static_cast<uint64_t>(std::llround(v * 10000));
  return true;
}

// perf's "60.97%".
bool parse_percent(string_view s, uint64_t& out) {
  return s.size() > 1 && s.back() == '%' && parse_share(s.substr(0, s.size() - 1), out);
}

// "0x4330", or a bare run of 8+ hex digits with a decimal digit ("0000000000000000",
// but not a name such as "deadbeef").
bool is_hex_address(string_view s) {
  const bool prefixed = s.size() > 2 && (s.starts_with("0x") || s.starts_with("0X"));
  if (prefixed) s.remove_prefix(2);
  return s.find_first_not_of("0123456789abcdefABCDEF") == npos &&
         (prefixed || (s.size() >= 8 && s.find_first_of("0123456789") != npos));
}

string_view basename(string_view path) {
  const size_t slash = path.rfind('/');
  return slash == npos ? path : path.substr(slash + 1);
}

// ---------------------------------------------------------------- names

// The kernel ("[kernel]") or a module file ("[ext4]") by a path's last part.
std::optional<std::string> kernel_image(string_view base) {
  if (base == "vmlinux" || base.starts_with("vmlinux-") || base.starts_with("vmlinux.") ||
      base.ends_with(".vmlinux") || base == "no-vmlinux" || base.starts_with("[kernel.kallsyms]") ||
      base == "[kernel.vmlinux]") {
    return "[kernel]";
  }
  for (const string_view suffix : {".ko", ".ko.gz", ".ko.xz", ".ko.zst"}) {
    if (base.size() > suffix.size() && base.ends_with(suffix)) {
      return "[" + std::string(base.substr(0, base.size() - suffix.size())) + "]";
    }
  }
  return std::nullopt;
}

Placed opreport_image(string_view image, string_view symbol) {
  const size_t tgid = image.find(" (tgid:");  // anonymous memory, [vdso]
  if (tgid != npos) image = rtrim(image.substr(0, tgid));
  const string_view base = basename(image);
  if (auto kernel = kernel_image(base)) return {*kernel, Mode::Kernel};
  // A module oprofile found no file for: "/ext4", or "ext4" with the symbol "/ext4".
  if (!base.empty() && base.find(".so") == npos &&
      ((image.size() == base.size() + 1 && image[0] == '/') ||
       (image == base && symbol.size() == base.size() + 1 && symbol[0] == '/' &&
        symbol.substr(1) == base))) {
    return {"[" + std::string(base) + "]", Mode::Kernel};
  }
  if (tgid != npos && image == "anon") return {"[anon]", Mode::User};
  if (image.empty()) return {"[unknown]", Mode::Unknown};
  return {std::string(image), Mode::User};
}

Placed perf_image(string_view dso, bool has_dso_column, Mode mode) {
  if (!has_dso_column || dso.empty())
    return {mode == Mode::Kernel ? "[kernel]" : "[unknown]", mode};
  if (auto kernel = kernel_image(basename(dso))) {
    return {*kernel, mode == Mode::Unknown ? Mode::Kernel : mode};  // no Symbol column
  }
  return {std::string(dso), mode};
}

std::string function_name(string_view symbol, string_view image) {
  symbol = trim(symbol);
  if (symbol.empty() || symbol == "(no symbols)" || is_hex_address(symbol)) return "[unknown]";
  // opreport names an image it could not read by its path: "/no-vmlinux".
  if (symbol[0] == '/' && basename(symbol) == basename(image)) return "[unknown]";
  return std::string(symbol);
}

// Mode from perf's symbol mark.
Mode perf_level(char c) {
  constexpr std::pair<char, Mode> kMarks[] = {{'k', Mode::Kernel},
                                              {'.', Mode::User},
                                              {'g', Mode::GuestKernel},
                                              {'u', Mode::GuestUser},
                                              {'H', Mode::Hypervisor}};
  for (const auto& [mark, mode] : kMarks) {
    if (mark == c) return mode;
  }
  return Mode::Unknown;
}

bool is_mark(string_view tok) {
  return tok.size() == 3 && tok[0] == '[' && tok[2] == ']';
}

// ---------------------------------------------------------------- histogram

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "skipped 3 lines that are not rows"; nothing when n is 0.
void note_skipped(TableListing& out, size_t n, const char* one, const char* many,
                  const char* tail) {
  if (n > 0) out.notes.push_back("skipped " + plural(n, one, many) + tail);
}

}  // namespace listing

using namespace listing;

bool looks_like_listing(string_view text) {
  const string_view kprof_magic(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  if (text.starts_with(kprof_magic) || text.starts_with("PERFILE")) return false;
  text = text.substr(0, 4096);
  size_t control = 0;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0) return false;
    if (u < 0x20 && c != '\n' && c != '\t' && c != '\r' && c != '\f') ++control;
  }
  if (control * 100 > text.size()) return false;
  for (const string_view line : split_lines(text)) {
    const string_view s = line.substr(quote_prefix(line).size());
    if (perf_heading(s) || !opreport_heading(s).empty()) return true;
  }
  return false;
}

TableListing parse_listing(string_view text, const std::string& name) {
  const std::vector<string_view> lines = split_lines(text);
  TableListing out;
  // The first heading decides the format; failing that, the first row-like line.
  bool found = false;
  for (size_t i = 0; i < lines.size() && !found; ++i) {
    const string_view s = lines[i].substr(quote_prefix(lines[i]).size());
    if (perf_heading(s))
      parse_perf(lines, i, true, out), found = true;
    else if (!opreport_heading(s).empty())
      parse_opreport(lines, i, true, out), found = true;
  }
  for (size_t i = 0; i < lines.size() && !found; ++i) {
    const string_view s = trim(unquote(lines[i]));
    if (perf_headless(s))
      parse_perf(lines, i, false, out), found = true;
    else if (!opreport_headless(s).empty())
      parse_opreport(lines, i, false, out), found = true;
  }
  if (out.histogram.rows.empty()) {
    throw Error(name +
                ": no opreport or perf report rows found; expected an 'opreport -l' or "
                "'perf report --stdio' listing");
  }
  return out;
}

}  // namespace kprof::importer
