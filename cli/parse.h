// Option parsing shared by every subcommand: CLI11's help goes to stdout
// with exit 0; any other parse problem becomes one kprof::Error line (exit 2)
// that names the problem and points at --help, like every other error.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace kprof::cli {

// Returns an exit code when parsing already answered (--help), else nullopt.
template <typename... Args>
std::optional<int> parse_args(CLI::App& app, Args&&... args) {
  try {
    app.parse(std::forward<Args>(args)...);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    while (!what.empty() && (what.back() == '\n' || what.back() == '.')) what.pop_back();
    throw Error(what + " (try --help)", 2);
  }
  return std::nullopt;
}

// --color=auto|always|never: terminal colours. auto: only when stdout is a
// terminal, NO_COLOR is unset or empty, and TERM is set and not "dumb".
inline void add_color_option(CLI::App& app, std::string& when) {
  app.add_option("--color", when,
                 "terminal colours: auto (a terminal, unless NO_COLOR is set or TERM=dumb), "
                 "always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}
bool use_color(const std::string& when);

}  // namespace kprof::cli
