// Numbers in the JSON that the exports write: the tables (tables.cpp) keep
// every digit, the page's data island (html.cpp) rounds to what its views
// show. Either way a value that is not finite (or absent) is null.
// Export-internal: not part of export.h.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

namespace kprof {

// `v` with full precision; null when it is infinite or undefined.
inline nlohmann::json json_number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}
inline nlohmann::json json_number(const std::optional<double>& v) {
  return v ? json_number(*v) : nlohmann::json();
}

// `v` to `digits` significant digits (printf's %.*g, read back); null when
// it is infinite or undefined. The page's default, 6, is as many as any of
// its views shows (shares to 4 decimals, p-values to 3 digits), which keeps
// its data island small.
inline nlohmann::json json_rounded(double v, int digits = 6) {
  if (!std::isfinite(v)) return nullptr;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return std::strtod(buf, nullptr);
}
inline nlohmann::json json_rounded(const std::optional<double>& v, int digits = 6) {
  return v ? json_rounded(*v, digits) : nlohmann::json();
}

}  // namespace kprof
