// `kprof diff` and `kprof report` on a real pseudo-terminal (forkpty):
// - colours: a changed row's Δ in red or blue, rows within noise dimmed,
//   notices highlighted; nothing on a pipe, with NO_COLOR or TERM=dumb; and
//   the coloured table lines up as the plain one does;
// - the terminal's width: tables fitted (names shortened in the middle,
//   numbers whole), prose wrapped; a pipe gets the same bytes as before;
// - the pager: on a terminal only, never with --no-pager, and quitting it
//   early loses nothing the command writes to files.
#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/fd.h"
#include "tests/report/test_support.h"
#include "tests/support/cli_run.h"
#include "tests/support/text_files.h"

namespace kprof {
namespace {

// Runs `args` (after the kprof binary) on a pseudo-terminal 400 columns wide
// with the environment changed by `env` ("NAME=value", or "NAME" to unset);
// returns what the terminal showed, without the carriage returns it adds.
// No pager unless `env` names one (KPROF_PAGER=cat).
std::string on_terminal(const std::vector<std::string>& args, std::vector<std::string> env,
                        unsigned short columns = 400) {
  env.insert(env.begin(), "KPROF_PAGER=cat");
  winsize ws{};
  ws.ws_row = 60;
  ws.ws_col = columns;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
  if (pid < 0) {
    ADD_FAILURE() << "forkpty: " << std::strerror(errno);
    return "";
  }
  if (pid == 0) {
    for (const std::string& e : env) {
      const size_t eq = e.find('=');
      if (eq == std::string::npos) {
        ::unsetenv(e.c_str());
      } else {
        ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
      }
    }
    std::vector<std::string> all = {KPROF_BINARY};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const Fd terminal(master);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(terminal.get(), buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed the terminal
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << "\n" << out;
  std::string clean;
  for (char c : out) {
    if (c != '\r') clean += c;
  }
  return clean;
}

std::string without_escapes(const std::string& s) {
  return std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), "");
}

class Color : public ::testing::Test {
 protected:
  void SetUp() override {
    // 2,000 of 10,000 samples in `hot` -> 1,000: a real change (it shrank);
    // `steady` the same share on both sides: noise.
    test::write_text(base_,
                     "samples  %        image name  symbol name\n"
                     "2000     20.0000  vmlinux     hot\n"
                     "500       5.0000  vmlinux     steady\n"
                     "7500     75.0000  vmlinux     rest\n");
    test::write_text(next_,
                     "samples  %        image name  symbol name\n"
                     "1000     10.0000  vmlinux     hot\n"
                     "500       5.0000  vmlinux     steady\n"
                     "8500     85.0000  vmlinux     rest\n");
  }
  std::vector<std::string> diff(const std::string& color = "") const {
    std::vector<std::string> a = {"diff", base_, next_};
    if (!color.empty()) a.push_back("--color=" + color);
    return a;
  }
  // One directory per test (run_cli writes its stdout and stderr there, and
  // ctest runs tests side by side).
  std::string dir_ = test::temp_dir(
      std::string("color_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::string base_ = dir_ + "/kprof_color_base_" + std::to_string(::getpid()) + ".txt";
  std::string next_ = dir_ + "/kprof_color_new_" + std::to_string(::getpid()) + ".txt";
};

const char* const kBlue = "\x1b[34m";
const char* const kDim = "\x1b[2m";

TEST_F(Color, TerminalGetsChangedDeltasColouredAndNoiseDimmed) {
  const std::string out = on_terminal(diff(), {"TERM=xterm", "NO_COLOR"});
  EXPECT_NE(out.find(std::string(kBlue) + "-10.0000"), std::string::npos) << out;
  // The noise row (steady) is dimmed whole: its line starts with the code.
  EXPECT_TRUE(std::regex_search(out, std::regex("\x1b\\[2m[^\n]*steady")))
      << "no dimmed 'steady' row\n"
      << out;
  EXPECT_FALSE(std::regex_search(out, std::regex("\x1b\\[2m[^\n]*hot"))) << out;
}

TEST_F(Color, NoColourOnAPipeWithNoColorOrOnADumbTerminal) {
  const test::CliRun piped = test::run_cli(
      KPROF_BINARY, "diff " + test::shell_quote(base_) + " " + test::shell_quote(next_), dir_);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out.find('\x1b'), std::string::npos) << piped.out;
  EXPECT_EQ(on_terminal(diff(), {"TERM=xterm", "NO_COLOR=1"}).find('\x1b'), std::string::npos);
  EXPECT_EQ(on_terminal(diff(), {"TERM=dumb", "NO_COLOR"}).find('\x1b'), std::string::npos);
  EXPECT_EQ(on_terminal(diff("never"), {"TERM=xterm", "NO_COLOR"}).find('\x1b'), std::string::npos);
}

TEST_F(Color, AlwaysColoursAPipeAndLinesUpAsThePlainText) {
  const std::string args = "diff " + test::shell_quote(base_) + " " + test::shell_quote(next_);
  const test::CliRun coloured = test::run_cli(KPROF_BINARY, args + " --color=always", dir_);
  const test::CliRun plain = test::run_cli(KPROF_BINARY, args + " --color=never", dir_);
  ASSERT_EQ(coloured.status, 0) << coloured.err;
  EXPECT_NE(coloured.out.find(kBlue), std::string::npos) << coloured.out;
  EXPECT_EQ(without_escapes(coloured.out), plain.out);
}

TEST_F(Color, ReportHighlightsItsNotices) {
  const std::string out = on_terminal({"report", base_}, {"TERM=xterm", "NO_COLOR"});
  EXPECT_NE(out.find("\x1b[1;33m# notice:"), std::string::npos) << out;
  const test::CliRun plain =
      test::run_cli(KPROF_BINARY, "report " + test::shell_quote(base_), dir_);
  EXPECT_EQ(without_escapes(out), plain.out);
}

// Code points of each line (escapes stripped), the widest first.
size_t widest_line(const std::string& text) {
  size_t widest = 0;
  std::string line;
  std::istringstream in(without_escapes(text));
  while (std::getline(in, line)) {
    size_t n = 0;
    for (unsigned char c : line) n += (c & 0xC0) != 0x80;
    widest = std::max(widest, n);
  }
  return widest;
}

// Issue 23, item 11.
class Terminal : public Color {
 protected:
  void SetUp() override {
    const std::string name =
        "ns::detail::Allocator<std::pair<long, std::basic_string<char>>>::allocate_block("
        "unsigned long, std::pair<long, std::basic_string<char>> const*)";
    test::write_text(base_,
                     "samples  %        image name  symbol name\n"
                     "2000     20.0000  libbig.so   " +
                         name +
                         "\n"
                         "8000     80.0000  vmlinux     rest\n");
    test::write_text(next_,
                     "samples  %        image name  symbol name\n"
                     "1000     10.0000  libbig.so   " +
                         name +
                         "\n"
                         "9000     90.0000  vmlinux     rest\n");
  }
};

TEST_F(Terminal, TablesFitTheWidthAndProseWraps) {
  const std::string out = on_terminal(diff(), {"TERM=xterm"}, 100);
  EXPECT_LE(widest_line(out), 100u) << out;
  // Shortened in the middle: the start and the method stay, the parameters go first.
  EXPECT_TRUE(
      std::regex_search(out, std::regex("ns::detail::[^\n ]*…[^\n ]*allocate_block\\(…\\)")))
      << out;
  EXPECT_NE(out.find("base %"), std::string::npos) << "short titles on a narrow terminal\n" << out;
  // The numbers are whole.
  EXPECT_NE(out.find("-10.0000"), std::string::npos) << out;
  const std::string report = on_terminal({"report", base_}, {"TERM=xterm"}, 80);
  EXPECT_LE(widest_line(report), 80u) << report;
  // A pipe gets what it always got, and so does a terminal wide enough.
  const test::CliRun piped = test::run_cli(
      KPROF_BINARY, "diff " + test::shell_quote(base_) + " " + test::shell_quote(next_), dir_);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_GT(widest_line(piped.out), 100u);
  EXPECT_EQ(piped.out.find("base %"), std::string::npos);
  EXPECT_EQ(without_escapes(on_terminal(diff(), {"TERM=xterm"}, 400)), piped.out);
}

TEST_F(Terminal, OutputIsPagedOnATerminalOnly) {
  const std::string paged =
      on_terminal({"report", base_}, {"TERM=dumb", "KPROF_PAGER=sed 's/^/paged: /'"}, 120);
  EXPECT_NE(paged.find("paged: # profile:"), std::string::npos) << paged;
  const std::string unpaged =
      on_terminal({"report", base_, "--no-pager"}, {"TERM=dumb", "KPROF_PAGER=sed 's/^/paged: /'"});
  EXPECT_EQ(unpaged.find("paged:"), std::string::npos) << unpaged;
  EXPECT_NE(unpaged.find("# profile:"), std::string::npos) << unpaged;
  const std::string via_pager_var =
      on_terminal({"info", base_}, {"TERM=dumb", "KPROF_PAGER", "PAGER=sed 's/^/P: /'"});
  EXPECT_NE(via_pager_var.find("P: "), std::string::npos) << via_pager_var;
  const test::CliRun piped =
      test::run_shell("KPROF_PAGER=\"sed 's/^/paged: /'\" " + test::shell_quote(KPROF_BINARY) +
                          " report " + test::shell_quote(base_),
                      dir_);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out.find("paged:"), std::string::npos) << piped.out;
}

TEST_F(Terminal, QuittingThePagerEarlyLosesNothingWritten) {
  // The pager reads one line and goes; kprof still writes the CSV, exit 0
  // (on_terminal checks the status).
  // 3,000 rows more than a pipe holds: kprof writes on after the pager left.
  std::string big = "samples  %  image name  symbol name\n";
  for (int i = 0; i < 3000; ++i) {
    big += "10  0.0333  libbig.so   some_rather_long_function_name_" + std::to_string(i) + "\n";
  }
  const std::string big_base = dir_ + "/big_base.txt", big_new = dir_ + "/big_new.txt";
  test::write_text(big_base, big);
  test::write_text(big_new, big);
  const std::string csv = dir_ + "/rows.csv";
  const std::string out = on_terminal({"diff", big_base, big_new, "--top", "0", "--csv", csv},
                                      {"TERM=dumb", "KPROF_PAGER=head -n 1"});
  EXPECT_EQ(out.find("Matched diff"), std::string::npos) << out;
  const std::string rows = test::read_text(csv);
  EXPECT_NE(rows.find("some_rather_long_function_name_2999"), std::string::npos);
}

}  // namespace
}  // namespace kprof
