#include "tests/importer/perf_data_builder.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/support/cli_run.h"
#include "tests/support/sampling.h"

namespace kprof::importer::test {

Walk walk(const PerfDataReader& r, std::span<const uint8_t> file) {
  Walk w;
  w.status = r.for_each_record([&](std::span<const uint8_t> rec, size_t event) {
    EXPECT_GE(rec.data(), file.data());
    EXPECT_LE(rec.data() + rec.size(), file.data() + file.size());
    w.offsets.push_back(static_cast<uint64_t>(rec.data() - file.data()));
    w.events.push_back(event);
    uint32_t type;
    std::memcpy(&type, rec.data(), 4);
    w.types.push_back(type);
  });
  return w;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    PerfDataReader r(bytes, "t.data");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Read read_recording(const std::string& path) {
  Read r;
  std::ifstream in(path, std::ios::binary);
  r.bytes.assign(std::istreambuf_iterator<char>(in), {});
  r.reader = std::make_unique<PerfDataReader>(r.bytes, path);
  r.walk = walk(*r.reader, r.bytes);
  for (size_t i = 0; i < r.walk.types.size(); ++i) {
    if (r.walk.types[i] == PERF_RECORD_SAMPLE) {
      ++r.samples;
      ++r.samples_by_event[r.walk.events[i]];
    }
  }
  return r;
}

namespace {

std::string perf(const std::string& args, const std::string& path, const std::string& dir) {
  auto r = kprof::test::run_shell(
      "perf " + args + " -i " + kprof::test::shell_quote(path) + " 2>/dev/null", dir);
  EXPECT_EQ(r.status, 0) << "perf " << args << ": " << r.err;
  return r.out;
}

}  // namespace

std::vector<uint64_t> perf_report_order(const std::string& path, bool pipe,
                                        const std::string& dir) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
  // Lines such as "1 8086608398957 0x8e38 [0x38]: PERF_RECORD_SAMPLE(...)",
  // printed as perf delivers the record; a pipe's offsets count from the
  // end of its 16-byte header.
  std::vector<uint64_t> out;
  std::istringstream lines(perf("report -D", path, dir));
  for (std::string line; std::getline(lines, line);) {
    const size_t rec = line.find("]: PERF_RECORD_");
    if (rec == std::string::npos) continue;
    const size_t open = line.rfind(" [0x", rec);
    if (open == std::string::npos || open == 0) continue;
    const size_t start = line.rfind(' ', open - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    const uint64_t off = std::stoull(line.substr(from, open - from), nullptr, 16) + (pipe ? 16 : 0);
    uint32_t type = 0;
    if (off + 4 <= bytes.size()) std::memcpy(&type, &bytes[off], 4);
    if (type < 64) out.push_back(off);  // perf's own records are not delivered
  }
  return out;
}

uint64_t perf_report_samples(const std::string& path, const std::string& dir) {
  uint64_t n = 0;
  std::istringstream lines(perf("report -D", path, dir));
  for (std::string line; std::getline(lines, line);)
    n += line.find(": PERF_RECORD_SAMPLE(") != std::string::npos ? 1 : 0;
  return n;
}

std::map<std::string, uint64_t> perf_script_events(const std::string& path,
                                                   const std::string& dir) {
  std::map<std::string, uint64_t> out;
  std::istringstream lines(perf("script -F event", path, dir));
  for (std::string line; std::getline(lines, line);) {
    const size_t b = line.find_first_not_of(' '), c = line.find(':');
    if (c != std::string::npos && b < c) ++out[line.substr(b, c - b)];
  }
  return out;
}

std::set<std::string> perf_buildid_list(const std::string& path, const std::string& dir) {
  std::set<std::string> out;
  std::istringstream lines(perf("buildid-list", path, dir));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.insert(line);
  return out;
}

void PerfRecorded::SetUp() {
  KPROF_REQUIRE_SAMPLING();
  const std::string base = std::string(KPROF_TEST_BINARY_DIR) + "/perf_data_recordings";
  std::filesystem::create_directories(base);
  if (kprof::test::run_shell("command -v perf", base).status != 0)
    GTEST_SKIP() << "perf is not installed";
  dir_ = base + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir_);
}

std::string PerfRecorded::workload(double seconds) const {
  return kprof::test::shell_quote(std::string(KPROF_PROGRAMS_DIR) + "/kprof_prog_hotcold") + " " +
         std::to_string(seconds);
}

kprof::test::CliRun PerfRecorded::sh(const std::string& command) const {
  return kprof::test::run_shell(command, dir_);
}

void PerfRecorded::record(const std::string& options, const std::string& file,
                          const std::string& what) {
  auto r = sh("perf record -q " + options + " -o " + kprof::test::shell_quote(path(file)) + " -- " +
              what);
  ASSERT_EQ(r.status, 0) << "perf record " << options << ": " << r.err;
}

void expect_this_machine(const PerfDataHeader& h) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(h.hostname, host);
  EXPECT_EQ(h.os_release, u.release);
  EXPECT_EQ(h.arch, u.machine);
  EXPECT_EQ(h.nr_cpus_online, static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_GE(h.nr_cpus_available, h.nr_cpus_online);
  ASSERT_GE(h.cmdline.size(), 2u);
  EXPECT_EQ(h.cmdline[1], "record");
  EXPECT_FALSE(h.perf_version.empty());
  EXPECT_FALSE(h.cpuid.empty());
}

}  // namespace kprof::importer::test
