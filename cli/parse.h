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

}  // namespace kprof::cli
