#include "collector/score_from.h"

#include <cctype>
#include <cstdlib>

#include "core/error.h"

namespace kprof::collector {
namespace {

// A line longer than this is matched in pieces of this size.
constexpr size_t kMaxLine = size_t{64} * 1024;

bool identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') {
      return false;
    }
  }
  return true;
}

// The first number in `text` ("12", "-1.5e3", "123.4"), if any.
std::optional<double> first_number(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool starts = std::isdigit(static_cast<unsigned char>(c)) ||
                        ((c == '-' || c == '+' || c == '.') && i + 1 < text.size() &&
                         std::isdigit(static_cast<unsigned char>(text[i + 1])));
    if (!starts) continue;
    char* end = nullptr;
    const double v = std::strtod(text.c_str() + i, &end);
    if (end != text.c_str() + i) return v;
  }
  return std::nullopt;
}

}  // namespace

ScoreFrom::ScoreFrom(const std::string& spec) : pattern_(spec) {
  if (const size_t eq = spec.find('='); eq != std::string::npos && identifier(spec.substr(0, eq))) {
    name_ = spec.substr(0, eq);
    pattern_ = spec.substr(eq + 1);
  }
  if (pattern_.empty()) throw Error("--score-from needs a regular expression: [NAME=]REGEX", 2);
  try {
    regex_ = std::regex(pattern_, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Error("--score-from '" + pattern_ + "' is not a valid regular expression: " + e.what(),
                2);
  }
}

void ScoreFrom::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (c == '\n') {
      line(partial_);
      partial_.clear();
    } else {
      partial_ += c;
      if (partial_.size() == kMaxLine) {
        line(partial_);
        partial_.clear();
      }
    }
  }
}

void ScoreFrom::finish() {
  if (!partial_.empty()) line(partial_);
  partial_.clear();
}

void ScoreFrom::line(std::string_view text) {
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(text.begin(), text.end(), m, regex_)) return;
  const std::string found = m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
  if (const auto v = first_number(found)) value_ = v;
}

}  // namespace kprof::collector
