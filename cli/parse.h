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
  // Every command's --help ends with the version, and takes --version.
  if (app.get_footer().empty()) app.footer("kprof " KPROF_VERSION);
  app.set_version_flag("--version", "kprof " KPROF_VERSION);
  try {
    app.parse(std::forward<Args>(args)...);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError&) {
    // CLI11's own message lists them last first.
    std::string list;
    for (const std::string& a : app.remaining()) list += (list.empty() ? "" : " ") + a;
    throw Error("unexpected argument" + std::string(app.remaining().size() > 1 ? "s" : "") + ": " +
                    list + " (try --help)",
                2);
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

// A check for an option that takes a whole number in [min, max]: its message
// says so in words ("must be between 1 and 100000 (NAME)", "must be 0 or
// more"), not CLI11's range of 300 digits. `max_name` says where max comes
// from; max < 0: no upper bound.
inline CLI::Validator whole_number(long long min, long long max = -1,
                                   const std::string& max_name = "") {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long v = 0;
        size_t used = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        const bool ok = used == text.size() && used > 0 && v >= min && (max < 0 || v <= max);
        if (ok) return "";
        std::string range = max < 0 ? "must be " + std::to_string(min) + " or more"
                                    : "must be between " + std::to_string(min) + " and " +
                                          std::to_string(max) +
                                          (max_name.empty() ? "" : " (" + max_name + ")");
        return range + ", not '" + text + "'";
      },
      max < 0 ? ">=" + std::to_string(min) : std::to_string(min) + ".." + std::to_string(max));
}

}  // namespace kprof::cli
