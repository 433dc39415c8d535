#include "cli/terminal.h"

#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "core/fd.h"
#include "report/table.h"

namespace kprof::cli {

namespace {

// `less` found in PATH (Debian's minimal images lack it).
bool in_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path && *path ? path : "/usr/bin:/bin";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string file = std::string(dirs.substr(0, colon)) + "/" + std::string(name);
    if (::access(file.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return false;
}

// The pager's command line; "" for none.
std::string pager_command() {
  for (const char* var : {"KPROF_PAGER", "PAGER"}) {
    if (const char* v = std::getenv(var)) {
      const std::string_view cmd = v;
      return cmd == "cat" ? std::string() : std::string(cmd);
    }
  }
  return in_path("less") ? "less" : "";
}

}  // namespace

size_t terminal_columns() {
  if (::isatty(STDOUT_FILENO) != 1) return 0;
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(c, &end, 10);
    if (end != c && *end == '\0' && n >= 20 && n <= 10000) return n;
  }
  return 80;
}

void add_pager_option(CLI::App& app, bool& no_pager) {
  app.add_flag("--no-pager", no_pager,
               "on a terminal, do not page the output through $KPROF_PAGER, $PAGER or "
               "less -FRSX (output to a pipe or file is never paged)");
}

Pager::Pager(bool no_pager) {
  if (no_pager || ::isatty(STDOUT_FILENO) != 1) return;
  const std::string cmd = pager_command();
  if (cmd.empty()) return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no pager: print as it is
  Fd read_end(fds[0]), write_end(fds[1]);
  std::cout.flush();
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    ::dup2(read_end.get(), STDIN_FILENO);
    ::setenv("LESS", "FRSX", 0);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (::dup2(write_end.get(), STDOUT_FILENO) < 0) {
    // Output would be lost: let the pager see end of input and go on unpaged.
    write_end.reset();
    read_end.reset();
    ::waitpid(pid, nullptr, 0);
    return;
  }
  std::signal(SIGPIPE, SIG_IGN);
  pid_ = pid;
}

Pager::~Pager() {
  if (pid_ <= 0) return;
  std::cout.flush();
  std::fflush(stdout);
  ::close(STDOUT_FILENO);  // the pager's end of input
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

// Holds a line until its '\n', then writes it wrapped to `dest`.
class LineWrapper::Buf : public std::streambuf {
 public:
  Buf(std::streambuf* dest, size_t columns) : dest_(dest), columns_(columns) {}
  void finish() {
    if (!line_.empty()) put(wrap_line(line_, columns_));
    line_.clear();
    dest_->pubsync();
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    take(traits_type::to_char_type(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) take(s[i]);
    return n;
  }
  int sync() override { return dest_->pubsync(); }

 private:
  void take(char c) {
    if (c != '\n') {
      line_ += c;
      return;
    }
    put(wrap_line(line_, columns_) + '\n');
    line_.clear();
  }
  void put(const std::string& s) { dest_->sputn(s.data(), static_cast<std::streamsize>(s.size())); }

  std::streambuf* dest_;
  size_t columns_;
  std::string line_;
};

LineWrapper::LineWrapper(size_t columns) {
  if (columns == 0) return;
  saved_ = std::cout.rdbuf();
  buf_ = std::make_unique<Buf>(saved_, columns);
  std::cout.rdbuf(buf_.get());
}

LineWrapper::~LineWrapper() {
  if (!buf_) return;
  buf_->finish();
  std::cout.rdbuf(saved_);
}

}  // namespace kprof::cli
