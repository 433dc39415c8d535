// Runs the built kprof (or any command line) through the shell with stdout
// and stderr captured in files under a directory, for the CLI tests.
#pragma once

#include <string>

namespace kprof::test {

struct CliRun {
  int status = -1;  // the exit status, or 128 + signal as a shell reports it
  std::string out, err;
};

// Runs `command` with /bin/sh; writes DIR/stdout and DIR/stderr.
CliRun run_shell(const std::string& command, const std::string& dir);
// run_shell of `binary` (quoted) followed by `args` (shell text).
CliRun run_cli(const std::string& binary, const std::string& args, const std::string& dir);
// Single-quoted for /bin/sh.
std::string shell_quote(const std::string& s);

}  // namespace kprof::test
