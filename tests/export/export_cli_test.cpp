// Runs the built `kprof export` (KPROF_BINARY): options, where output goes,
// and bad input or output as exactly one line on stderr.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/fd.h"
#include "export/export.h"
#include "tests/export/export_support.h"
#include "tests/report/test_support.h"

namespace kprof {
namespace {

using test::shell_quote;

test::CommandResult kprof(const std::string& args, const std::string& dir) {
  return test::run_cli(KPROF_BINARY, args, dir);
}

std::string bench_profile(const std::string& dir, const std::string& name = "run.kprof") {
  const Stacks st = test::bench_stacks();
  return test::write_profile(dir + "/" + name, test::sample_run(), test::sample_summary(),
                             leaf_histogram(st), st);
}

std::string folded_of(const Stacks& st, const FoldedOptions& opts = {}) {
  std::ostringstream out;
  write_folded(out, st, opts);
  return out.str();
}

// Exactly kprof's own exit code and one line "kprof export: ..." on stderr.
void expect_one_line_error(const test::CommandResult& r, int code = 1) {
  EXPECT_EQ(r.status, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("kprof export: ", 0), 0u) << r.err;
}

TEST(ExportCli, HelpNamesTheFormats) {
  const std::string dir = test::temp_dir("cli_help");
  test::CommandResult r = kprof("export --help", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("--format"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("folded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pprof"), std::string::npos) << r.out;
  r = kprof("--help", dir);
  EXPECT_NE(r.out.find("  export "), std::string::npos) << r.out;
}

TEST(ExportCli, MissingFileIsOneLine) {
  const std::string dir = test::temp_dir("cli_missing");
  const test::CommandResult r =
      kprof("export " + shell_quote(dir + "/nope.kprof") + " -f pprof", dir);
  expect_one_line_error(r);
  EXPECT_NE(r.err.find("nope.kprof"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/nope.pb.gz"));  // nothing written
}

TEST(ExportCli, ForeignFileIsOneLine) {
  const std::string dir = test::temp_dir("cli_foreign");
  test::write_text(dir + "/notes.txt", "not a profile\n");
  expect_one_line_error(kprof("export " + shell_quote(dir + "/notes.txt") + " -f folded", dir));
  test::write_text(dir + "/empty.kprof", "");
  expect_one_line_error(kprof("export " + shell_quote(dir + "/empty.kprof") + " -f pprof", dir));
}

TEST(ExportCli, FormatIsRequiredAndChecked) {
  const std::string dir = test::temp_dir("cli_format");
  const std::string file = shell_quote(bench_profile(dir));
  expect_one_line_error(kprof("export " + file, dir), 2);
  expect_one_line_error(kprof("export " + file + " --format svg", dir), 2);
}

TEST(ExportCli, FoldedGoesToStdout) {
  const std::string dir = test::temp_dir("cli_folded");
  const std::string file = shell_quote(bench_profile(dir));
  test::CommandResult r = kprof("export " + file + " --format folded", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, folded_of(test::bench_stacks()));
  EXPECT_NE(r.out.find("bench;__libc_start_main;main;compute;hash_block 55\n"), std::string::npos);

  r = kprof("export " + file + " -f folded --per-pid -o " + shell_quote(dir + "/out.folded"), dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(test::read_text(dir + "/out.folded"), folded_of(test::bench_stacks(), {.pid = true}));
  EXPECT_EQ(r.err, "kprof export: wrote folded of 100 samples (call stacks) to '" + dir +
                       "/out.folded'\n");
}

TEST(ExportCli, PprofDefaultsToAFileBesideTheProfile) {
  const std::string dir = test::temp_dir("cli_pprof_default");
  const std::string file = bench_profile(dir);
  test::CommandResult r = kprof("export " + shell_quote(file) + " --format pprof", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string pb = dir + "/run.pb.gz";
  const test::PprofProfile p = test::parse_pprof(test::gunzip(test::read_text(pb)));
  EXPECT_EQ(p.samples.size(), test::bench_stacks().stacks.size());
  // Issue 23, item 14: every output is created 0600, as the profile is.
  namespace fs = std::filesystem;
  EXPECT_EQ(fs::status(pb).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  r = kprof("report " + shell_quote(file) + " --csv " + shell_quote(dir + "/t.csv") + " --html " +
                shell_quote(dir + "/t.html"),
            dir);
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* out : {"/t.csv", "/t.html"}) {
    EXPECT_EQ(fs::status(dir + out).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write)
        << out;
  }

  // The default FILE, kprof.data, gets kprof.data.pb.gz.
  bench_profile(dir, "kprof.data");
  r = test::run_shell(
      "cd " + shell_quote(dir) + " && " + shell_quote(KPROF_BINARY) + " export -f pprof", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/kprof.data.pb.gz"));
}

TEST(ExportCli, PprofToRedirectedStdout) {
  const std::string dir = test::temp_dir("cli_pprof_stdout");
  const std::string file = bench_profile(dir);
  const test::CommandResult r = kprof("export " + shell_quote(file) + " -f pprof -o -", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const test::PprofProfile p = test::parse_pprof(test::gunzip(r.out));
  EXPECT_EQ(p.sample_types.size(), 2u);
}

// Runs kprof with its stdout on a pseudo-terminal; returns the exit status
// and what it wrote to the terminal and to stderr.
test::CommandResult run_on_terminal(const std::vector<std::string>& args, const std::string& dir) {
  test::CommandResult r;
  const Fd master(posix_openpt(O_RDWR | O_NOCTTY));
  if (!master || grantpt(master.get()) != 0 || unlockpt(master.get()) != 0) {
    ADD_FAILURE() << "no pseudo-terminal";
    return r;
  }
  const std::string slave_name = ptsname(master.get());
  const std::string err_path = dir + "/tty.stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    const int slave = open(slave_name.c_str(), O_RDWR | O_NOCTTY);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (slave < 0 || err < 0) _exit(120);
    dup2(slave, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(KPROF_BINARY));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(KPROF_BINARY, argv.data());
    _exit(121);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // Whatever reached the terminal (non-blocking: the child is gone).
  fcntl(master.get(), F_SETFL, O_NONBLOCK);
  char buf[4096];
  for (ssize_t n; (n = read(master.get(), buf, sizeof buf)) > 0;) r.out.append(buf, n);
  r.err = test::read_text(err_path);
  return r;
}

TEST(ExportCli, PprofNeverGoesToATerminal) {
  const std::string dir = test::temp_dir("cli_pprof_tty");
  const std::string file = bench_profile(dir);
  const test::CommandResult r = run_on_terminal({"export", file, "-f", "pprof", "-o", "-"}, dir);
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("terminal"), std::string::npos) << r.err;
  // Folded text may.
  const test::CommandResult t = run_on_terminal({"export", file, "-f", "folded"}, dir);
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("hash_block 55"), std::string::npos) << t.out;
}

TEST(ExportCli, FullDiskIsOneLine) {
  const std::string dir = test::temp_dir("cli_full");
  const std::string file = shell_quote(bench_profile(dir));
  for (const char* format : {"folded", "pprof"}) {
    const test::CommandResult r = kprof("export " + file + " -f " + format + " -o /dev/full", dir);
    expect_one_line_error(r);
    EXPECT_EQ(r.err,
              "kprof export: cannot write '/dev/full': No space left on device (disk full)\n");
  }
  // stdout on a full disk too.
  const test::CommandResult r = kprof("export " + file + " -f folded >/dev/full", dir);
  expect_one_line_error(r);
  EXPECT_NE(r.err.find("cannot write stdout"), std::string::npos) << r.err;
}

TEST(ExportCli, OutputThatCannotBeCreatedIsOneLine) {
  const std::string dir = test::temp_dir("cli_no_dir");
  const std::string file = shell_quote(bench_profile(dir));
  const std::string out = dir + "/missing/out.pb.gz";
  const test::CommandResult r = kprof("export " + file + " -f pprof -o " + shell_quote(out), dir);
  expect_one_line_error(r);
  EXPECT_EQ(r.err, "kprof export: cannot create '" + out + "': No such file or directory\n");
}

TEST(ExportCli, RefusesToOverwriteTheProfile) {
  const std::string dir = test::temp_dir("cli_overwrite");
  const std::string file = bench_profile(dir);
  const std::string before = test::read_text(file);
  const test::CommandResult r =
      kprof("export " + shell_quote(file) + " -f folded -o " + shell_quote(file), dir);
  expect_one_line_error(r, 2);
  EXPECT_EQ(test::read_text(file), before);
}

TEST(ExportCli, ProfileWithoutCallStacksExportsFunctions) {
  const std::string dir = test::temp_dir("cli_flat");
  const std::string file =
      test::write_profile(dir + "/flat.kprof", test::sample_run(), test::sample_summary(),
                          leaf_histogram(test::bench_stacks()), std::nullopt);
  const test::CommandResult r = kprof("export " + shell_quote(file) + " -f folded", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "[libc.so.6] 3\n"
            "compute 20\n"
            "hash_block 55\n"
            "ksys_write_[k] 10\n"
            "recurse 12\n");
}

}  // namespace
}  // namespace kprof
