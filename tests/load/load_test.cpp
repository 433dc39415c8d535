// Load tests: `kprof report`, `info` and `diff` on multi-million-sample
// profiles succeed, name the right hot function, and stay within a fixed
// memory bound (peak RSS of the kprof child, from wait4).
//
// Sample count: $KPROF_LOAD_SAMPLES, else 1 million (200 thousand in sanitizer
// builds, which run ~10x slower), to keep the suite fast;
// `KPROF_LOAD_SAMPLES=10000000 load_test` and bench/big_profile.sh run 10M.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/load/gen_profile.h"

#if defined(__SANITIZE_ADDRESS__)
#define KPROF_LOAD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KPROF_LOAD_SANITIZED 1
#endif
#endif
#ifndef KPROF_LOAD_SANITIZED
#define KPROF_LOAD_SANITIZED 0
#endif

namespace kprof::load {
namespace {

namespace fs = std::filesystem;

// Memory bound for one kprof command. A profile is read chunk by chunk and
// its records (when it was cut short) counted by address, so the bound does
// not grow with the file: holding the file (8 bytes per sample) or every
// decoded sample (~80) would break it at 1M samples. ASan's shadow memory
// and quarantine inflate RSS several times over.
constexpr long kMaxRssMb = KPROF_LOAD_SANITIZED ? 1024 : 64;

long rss_bound_mb(uint64_t /*file_bytes*/) {
  return kMaxRssMb;
}

uint64_t sample_count() {
  if (const char* env = std::getenv("KPROF_LOAD_SAMPLES"); env && *env) {
    return std::strtoull(env, nullptr, 10);
  }
  return KPROF_LOAD_SANITIZED ? 200'000 : 1'000'000;
}

struct ChildResult {
  int exit_code = -1;
  long max_rss_mb = 0;
  double seconds = 0;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv with stdout/stderr to files in `dir`; its peak RSS comes from
// wait4(). A forked child's peak includes the pages it shares with this
// process before exec, so the figure is an upper bound on kprof's own.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& dir,
                      const std::string& stdin_file = "") {
  const std::string out = dir + "/child.out", err = dir + "/child.err";
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    if (!stdin_file.empty()) {
      int i = open(stdin_file.c_str(), O_RDONLY | O_CLOEXEC);
      if (i < 0 || dup2(i, 0) < 0) _exit(126);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid) throw std::runtime_error("wait4 failed");
  ChildResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.max_rss_mb = ru.ru_maxrss / 1024;  // KiB on Linux
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The whole sample count, digits only, appears in `text` (whatever the
// thousands separator).
bool mentions_count(const std::string& text, uint64_t n) {
  std::string digits = " ";
  for (char c : text) digits += (c >= '0' && c <= '9') ? c : (c == ',' || c == '\'') ? '\0' : ' ';
  std::erase(digits, '\0');
  return (digits + " ").find(" " + std::to_string(n) + " ") != std::string::npos;
}

class LoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kprof-load-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  GenResult generate(const char* name, GenOptions options) {
    options.samples = sample_count();
    const auto t0 = std::chrono::steady_clock::now();
    GenResult g = generate_profile(file(name), options);
    std::cout << "generated " << name << ": " << g.samples << " samples, "
              << g.bytes / (1024 * 1024) << " MiB in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s\n";
    return g;
  }

  ChildResult kprof(std::vector<std::string> args, const std::string& stdin_file = "") {
    args.insert(args.begin(), KPROF_BINARY);
    ChildResult r = run_child(args, dir_, stdin_file);
    std::cout << "kprof " << args[1] << ": exit " << r.exit_code << ", " << r.seconds
              << " s, peak RSS " << r.max_rss_mb << " MiB\n";
    return r;
  }
  std::string file(const char* name) const { return dir_ + "/" + name; }

  // report, info and diff on the two generated profiles: each succeeds, shows
  // what was generated, and stays under the memory bound.
  void expect_commands_work(const GenResult& base, const GenResult& other, bool cut_short) {
    ChildResult r = kprof({"report", file("base.kprof")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (cut_short) {
      EXPECT_NE((r.out + r.err).find("cut short"), std::string::npos) << r.out << r.err;
    }
    EXPECT_NE(r.out.find(base.top_kernel_function), std::string::npos) << r.out;
    EXPECT_LT(r.max_rss_mb, rss_bound_mb(base.bytes));

    r = kprof({"info", file("base.kprof")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(mentions_count(r.out, base.samples)) << r.out;
    EXPECT_LT(r.max_rss_mb, rss_bound_mb(base.bytes));

    r = kprof({"diff", file("base.kprof"), file("new.kprof")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(base.top_kernel_function), std::string::npos) << r.out;
    EXPECT_LT(r.max_rss_mb, rss_bound_mb(base.bytes + other.bytes));
  }

  std::string dir_;
};

// The CSV rows of `kprof report FILE --sort SORT` (every row), sorted; with
// `kernel_only` the kernel rows alone.
std::vector<std::string> csv_rows(const std::string& csv, bool kernel_only) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (!kernel_only || line.ends_with(",kernel\r")) rows.push_back(line);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// As `kprof record` leaves them: records, then the symbolized histogram.
TEST_F(LoadTest, CompleteProfiles) {
  const GenResult base = generate("base.kprof", {.seed = 1});
  const GenResult other = generate("new.kprof", {.seed = 2});
  expect_commands_work(base, other, false);

  // kprof's own aggregation against the generator's tally: the same records
  // without their histogram are counted again by kprof report. Kernel rows
  // are named from the profile's kallsyms, so they match row for row; the
  // generated user images are not real ELF files here, so their functions
  // are [unknown] and match per image.
  generate("raw.kprof", {.seed = 1, .histogram = false, .end = false});
  for (const char* sort : {"function", "image"}) {
    SCOPED_TRACE(sort);
    const bool kernel_only = std::string(sort) == "function";
    ASSERT_EQ(
        kprof({"report", file("base.kprof"), "--sort", sort, "--csv", file("s.csv")}).exit_code, 0);
    ASSERT_EQ(
        kprof({"report", file("raw.kprof"), "--sort", sort, "--csv", file("r.csv")}).exit_code, 0);
    const std::vector<std::string> stored = csv_rows(slurp(file("s.csv")), kernel_only);
    const std::vector<std::string> rebuilt = csv_rows(slurp(file("r.csv")), kernel_only);
    ASSERT_GE(stored.size(), kernel_only ? 100u : 3u);  // [kernel] and the generated images
    EXPECT_EQ(stored.size(), rebuilt.size());
    size_t differ = 0;
    for (size_t i = 0; i < std::min(stored.size(), rebuilt.size()); ++i) {
      if (stored[i] != rebuilt[i] && ++differ <= 5)
        ADD_FAILURE() << "stored " << stored[i] << "\nrebuilt " << rebuilt[i];
    }
    EXPECT_EQ(differ, 0u) << "rows counted differently from the records";
  }
}

// As a recording killed with SIGKILL leaves them: records only, no histogram
// and no end marker, so every command aggregates the records again.
TEST_F(LoadTest, CutShortProfiles) {
  const GenResult base = generate("base.kprof", {.seed = 3, .histogram = false, .end = false});
  const GenResult other = generate("new.kprof", {.seed = 4, .histogram = false, .end = false});
  expect_commands_work(base, other, true);

  // Read from standard input (once, as a stream): the same table, the same bound.
  ASSERT_EQ(kprof({"report", file("base.kprof"), "--csv", file("f.csv")}).exit_code, 0);
  const ChildResult r = kprof({"report", "-", "--csv", file("s.csv")}, file("base.kprof"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(csv_rows(slurp(file("s.csv")), false), csv_rows(slurp(file("f.csv")), false));
  EXPECT_LT(r.max_rss_mb, kMaxRssMb);
}

}  // namespace
}  // namespace kprof::load
