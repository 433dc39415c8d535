#include "tests/support/cli_run.h"

#include <sys/wait.h>

#include <cstdlib>

#include "tests/support/text_files.h"

namespace kprof::test {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

CliRun run_shell(const std::string& command, const std::string& dir) {
  const std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  const std::string cmd =
      "(" + command + ") >" + shell_quote(out_path) + " 2>" + shell_quote(err_path);
  CliRun r;
  const int rc = std::system(cmd.c_str());
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

CliRun run_cli(const std::string& binary, const std::string& args, const std::string& dir) {
  return run_shell(shell_quote(binary) + " " + args, dir);
}

}  // namespace kprof::test
