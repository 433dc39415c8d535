// Text for a person at a terminal, as perf and git give it: tables fitted to
// the terminal's width, and long output paged. Nothing changes when stdout
// is a pipe or a file: scripts read the same bytes as before.
#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <memory>
#include <streambuf>

namespace kprof::cli {

// The width of the terminal stdout is (TIOCGWINSZ; where it says 0, as on a
// fresh pty, $COLUMNS, else 80); 0 when stdout is not a terminal.
size_t terminal_columns();

// --no-pager, for the commands that print tables (report, diff, info).
void add_pager_option(CLI::App& app, bool& no_pager);

// While it lives, this process's stdout goes through a pager: $KPROF_PAGER,
// else $PAGER, else `less` (LESS=FRSX unless LESS is set: quit when it fits
// one screen, colours, no wrapping, no screen clearing). Started only when
// stdout is a terminal and not `no_pager`; a pager set to "" or "cat", or a
// default `less` that is not installed, means none. SIGPIPE is ignored while
// paging, so quitting the pager early does not kill kprof (a command still
// writes its files). Going: flushes stdout, closes it, and waits for the
// pager, so the shell's prompt comes back after it.
class Pager {
 public:
  explicit Pager(bool no_pager);
  ~Pager();
  Pager(const Pager&) = delete;
  Pager& operator=(const Pager&) = delete;
  // Paging: a failed write to stdout is the pager having quit, not an error.
  bool active() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

// While it lives, std::cout's lines wider than `columns` are wrapped at
// blanks (report/table.h wrap_line), so notices and warnings read on a
// terminal; tables are fitted before they get here. `columns` 0: nothing
// changes. Going: writes what is left and puts std::cout back.
class LineWrapper {
 public:
  explicit LineWrapper(size_t columns);
  ~LineWrapper();
  LineWrapper(const LineWrapper&) = delete;
  LineWrapper& operator=(const LineWrapper&) = delete;

 private:
  class Buf;
  std::unique_ptr<Buf> buf_;
  std::streambuf* saved_ = nullptr;
};

}  // namespace kprof::cli
