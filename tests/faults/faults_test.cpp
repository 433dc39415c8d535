// Faults while recording: a disk that fills up, an output path that cannot
// or must not be written, an unprivileged user, hidden kernel addresses.
// Each case asserts the one-line message, the exit status, and what was kept.
// Mounts, sysctls and user switches need root: without it they skip.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "core/aggregate.h"
#include "core/compact.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "core/profile_reader.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/faults/fault_helpers.h"
#include "tests/support/sampling.h"

namespace kprof::faults {
namespace {

using namespace std::chrono_literals;
using e2e::kprof_binary;
using e2e::Process;
using e2e::program;
using e2e::RunResult;
using e2e::TempDir;

std::vector<std::string> record_argv(const std::string& out, const std::vector<std::string>& cmd,
                                     const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {kprof_binary(), "record", "-F", "999", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.insert(argv.end(), cmd.begin(), cmd.end());
  return argv;
}

// Waits until `path` holds at least one chunk of `type` while `kprof` writes
// it; false after `timeout`, or as soon as kprof has exited.
bool wait_for_chunk(const std::string& path, ChunkType type, std::chrono::milliseconds timeout,
                    const Process& kprof) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (count_chunks(path, type) > 0) return true;
    if (!is_running(kprof.pid())) return count_chunks(path, type) > 0;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

// Why no PerfRecords chunk came: kprof's own output (it is stopped first when
// still running), so a failure says what kprof met rather than only a timeout.
std::string no_records_chunk(Process& kprof) {
  const bool exited = !is_running(kprof.pid());
  if (!exited) kprof.signal(SIGKILL);
  return std::string(exited ? "kprof exited before writing a Records chunk\n"
                            : "no Records chunk after 30 s\n") +
         kprof.wait(10).describe();
}

std::string pattern_bytes(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 251) & 0xff);
  return s;
}

class Faults : public ::testing::Test {
 protected:
  void SetUp() override { KPROF_REQUIRE_SAMPLING(); }
  TempDir logs_;  // the captured stdout/stderr of each run; never on the small mounts
};

// ------------------------------------------------------------------ full disk

TEST_F(Faults, DiskFullMidRecordingKeepsSamplesAndThePreviousProfile) {
  TempDir area;
  const std::string mnt = area.file("mnt");
  TmpfsMount mount(mnt, "size=3m,mode=0700");
  KPROF_REQUIRE_ROOT_SETUP(mount.ok(), mount.why());
  const std::string out = mnt + "/x.kprof";
  const std::string previous = pattern_bytes(64 << 10);
  e2e::write_text(out, previous);

  Process kprof = Process::start(record_argv(out, {program("kprof_prog_hotcold"), "60"}),
                                 logs_.path(), {.new_process_group = true});
  ASSERT_TRUE(wait_for_chunk(out, ChunkType::PerfRecords, 30s, kprof)) << no_records_chunk(kprof);
  const std::vector<pid_t> workload = e2e::children_of(kprof.pid());
  ASSERT_FALSE(workload.empty());
  ASSERT_GT(fill_disk(mnt), 0u) << "the 3 MB tmpfs was already full";
  RunResult r = kprof.wait(20);

  // One clear line, a plain non-zero exit (not a crash), and the workload gone.
  ASSERT_FALSE(r.timed_out) << "kprof kept running on a full disk\n" << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();  // kprof's own failure, not a crash or sanitizer
  auto lines = lines_mentioning(r.err_lines(), "disk full");
  ASSERT_EQ(lines.size(), 1u) << r.describe();
  EXPECT_EQ(lines[0].rfind("kprof", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(out), std::string::npos) << lines[0];
  for (pid_t pid : workload) EXPECT_FALSE(is_running(pid)) << "workload " << pid << " left running";

  // What was written before the disk filled still reads.
  SampleCounter counter;
  Profile p;
  try {
    p = perfabi::load_profile(out, {.records = &counter});
  } catch (const Error& e) {
    FAIL() << "the profile cut short by a full disk must load: " << e.what();
  }
  EXPECT_FALSE(p.status.complete);
  EXPECT_EQ(p.status.good_bytes, p.status.file_bytes)
      << "a partial chunk was left: " << p.status.problem;
  EXPECT_GT(counter.samples, 0u) << p.status.problem;
  // The previous profile was moved aside, byte for byte.
  EXPECT_EQ(e2e::read_text(out + ".old"), previous);

  // Once there is room again, `kprof symbolize` names the recovered samples.
  std::filesystem::remove(mnt + "/filler");
  RunResult s = e2e::run({kprof_binary(), "symbolize", out}, logs_.path(), 60);
  ASSERT_EQ(s.exit_code, 0) << s.describe();
  Profile done = perfabi::load_profile(out);
  EXPECT_TRUE(done.status.complete) << done.status.problem;
  ASSERT_TRUE(done.histogram.has_value());
  EXPECT_EQ(done.histogram->total_samples(), counter.samples);
  auto user = by_function(*done.histogram, Mode::User, "/kprof_prog_hotcold");
  EXPECT_GT(user["kprof_hot"], 0u) << dump(*done.histogram);
}

// kill -9 while sampling every CPU at the highest allowed rate: the Records
// chunks written so far (uncompressed while recording) read back, the file
// reports as cut short, and kprof symbolize completes and compresses it.
TEST_F(Faults, KillDuringHighRateRecordingLeavesAReadableFile) {
  const std::string rate = std::to_string(
      std::min(100000L, std::stol(e2e::read_text("/proc/sys/kernel/perf_event_max_sample_rate"))));
  const std::string out = logs_.file("high.kprof");
  Process kprof = Process::start({kprof_binary(), "record", "-a", "-F", rate, "-o", out, "--",
                                  program("kprof_prog_hotcold"), "60"},
                                 logs_.path(), {.new_process_group = true});
  // Opening an event per CPU can wait on the kernel's event mutex while
  // another test's recording closes hundreds of tracepoint events (each an
  // RCU grace period, slower still under ASan): once no chunk came in 30 s.
  ASSERT_TRUE(wait_for_chunk(out, ChunkType::PerfRecords, 90s, kprof)) << no_records_chunk(kprof);
  std::this_thread::sleep_for(1500ms);  // several chunks, one maybe half written
  const std::vector<pid_t> workload = e2e::children_of(kprof.pid());
  kprof.signal(SIGKILL);
  for (pid_t pid : workload) ::kill(pid, SIGKILL);
  RunResult killed = kprof.wait(10);
  ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << killed.describe();

  const Profile p = perfabi::load_profile(out);
  EXPECT_FALSE(p.status.complete);
  ASSERT_TRUE(p.counted);
  EXPECT_GT(p.counted->samples, 1000u) << p.status.problem;
  RunResult report = e2e::run({kprof_binary(), "report", out}, logs_.path(), 60);
  ASSERT_EQ(report.exit_code, 0) << report.describe();
  EXPECT_NE((report.out + report.err).find("cut short"), std::string::npos) << report.describe();
  RunResult info = e2e::run({kprof_binary(), "info", out}, logs_.path(), 60);
  ASSERT_EQ(info.exit_code, 0) << info.describe();
  EXPECT_NE(info.out.find("recovered from records"), std::string::npos) << info.describe();

  RunResult s = e2e::run({kprof_binary(), "symbolize", out}, logs_.path(), 120);
  ASSERT_EQ(s.exit_code, 0) << s.describe();
  const Profile done = perfabi::load_profile(out);
  EXPECT_TRUE(done.status.complete) << done.status.problem;
  ASSERT_TRUE(done.histogram.has_value());
  EXPECT_EQ(done.histogram->total_samples(), p.counted->samples);
  ProfileReader reader = ProfileReader::open(out);
  size_t records = 0, compressed = 0;
  reader.for_each_chunk([](uint16_t t) { return t == static_cast<uint16_t>(ChunkType::Records); },
                        [&](const Chunk& c) {
                          ++records;
                          if (c.flags & kChunkZstd) ++compressed;
                        });
  EXPECT_GT(records, 0u);
  EXPECT_EQ(compressed, records);
}

// No room for the compressed copy when recording ends: the profile stays
// complete, with its records uncompressed, and kprof says so in one line.
TEST_F(Faults, NoRoomToCompressKeepsTheCompleteProfile) {
  TempDir area;
  const std::string mnt = area.file("mnt");
  TmpfsMount mount(mnt, "size=4m,mode=0700");
  KPROF_REQUIRE_ROOT_SETUP(mount.ok(), mount.why());
  const std::string out = mnt + "/x.kprof";
  // Recorded elsewhere, then copied in and the disk filled around it, so the
  // copy compact_records() makes cannot be written.
  const std::string source = logs_.file("src.kprof");
  RunResult r =
      e2e::run(record_argv(source, {program("kprof_prog_hotcold"), "1"}), logs_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  {
    // Undo the compression kprof record did, to have something to compress.
    ProfileReader reader = ProfileReader::open(source);
    ProfileWriter w = ProfileWriter::create(out);
    reader.for_each_chunk(
        [](uint16_t) { return true; },
        [&](const Chunk& c) { w.write_chunk(static_cast<ChunkType>(c.type), c.payload, false); });
  }
  const std::vector<uint8_t> before = read_bytes(out);
  ASSERT_GT(fill_disk(mnt), 0u);
  try {
    perfabi::compact_profile(out);
    ADD_FAILURE() << "compact_records wrote a copy on a full disk";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("disk full"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(out), before);
  const Profile p = perfabi::load_profile(out);
  EXPECT_TRUE(p.status.complete) << p.status.problem;
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(mnt)) ++entries;
  EXPECT_EQ(entries, 2u) << "a temporary copy was left beside the profile";  // x.kprof, filler
}

// The kallsyms snapshot does not fit: nothing is recorded, and the previous
// profile stays where it was. (--no-kallsyms-cache: with this boot's cache
// the snapshot is not written at the start at all.)
TEST_F(Faults, DiskFullBeforeAnySampleLeavesThePreviousProfileInPlace) {
  TempDir area;
  const std::string mnt = area.file("mnt");
  TmpfsMount mount(mnt, "size=128k,mode=0700");
  KPROF_REQUIRE_ROOT_SETUP(mount.ok(), mount.why());
  const std::string out = mnt + "/x.kprof";
  const std::string previous = pattern_bytes(32 << 10);
  e2e::write_text(out, previous);

  RunResult r =
      e2e::run(record_argv(out, {program("kprof_prog_hotcold"), "5"}, {"--no-kallsyms-cache"}),
               logs_.path(), 30);
  ASSERT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();  // kprof's own failure, not a crash or sanitizer
  auto lines = lines_mentioning(r.err_lines(), "disk full");
  ASSERT_EQ(lines.size(), 1u) << r.describe();
  EXPECT_NE(lines[0].find(out), std::string::npos) << lines[0];
  EXPECT_EQ(e2e::read_text(out), previous) << "the previous profile was not put back";
  EXPECT_FALSE(std::filesystem::exists(out + ".old"));
  // The workload never ran: it would have printed its rounds.
  EXPECT_EQ(r.out.find("rounds"), std::string::npos) << r.describe();
}

// ------------------------------------------------------------ output paths

// One line on stderr, starting "kprof", naming `must_mention`; exit 1 (kprof's
// own failure: a crash or a sanitizer's report exits otherwise).
void expect_one_line(const RunResult& r, const std::string& must_mention,
                     const std::string& also = "") {
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.describe();
  EXPECT_EQ(lines[0].rfind("kprof", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(must_mention), std::string::npos) << lines[0];
  if (!also.empty()) {
    EXPECT_EQ(lines_mentioning(lines, also).size(), 1u) << lines[0];
  }
}

TEST_F(Faults, ReadOnlyOutputDirectoryFailsWithOneLine) {
  TempDir area;
  const std::string mnt = area.file("ro");
  TmpfsMount mount(mnt, "size=1m", /*read_only=*/true);
  KPROF_REQUIRE_ROOT_SETUP(mount.ok(), mount.why());
  const std::string out = mnt + "/x.kprof";
  RunResult r = e2e::run(record_argv(out, {program("kprof_prog_exit"), "0"}), logs_.path(), 30);
  expect_one_line(r, out, "read-only");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(Faults, OutputDirectoryNotWritableByTheUserFailsWithOneLine) {
  std::string why;
  std::vector<std::string> argv = as_nobody(&why);
  KPROF_REQUIRE_ROOT_SETUP(!argv.empty(), why);
  TempDir area;
  ::chmod(area.path().c_str(), 0755);  // nobody may enter, not write
  const std::string out = area.file("x.kprof");
  for (const std::string& a : record_argv(out, {program("kprof_prog_exit"), "0"})) {
    argv.push_back(a);
  }
  RunResult r = e2e::run(argv, logs_.path(), 30);
  expect_one_line(r, out, "permission denied");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(Faults, OutputThatIsASymlinkIsRefused) {
  TempDir area;
  const std::string target = area.file("precious.txt"), link = area.file("x.kprof");
  e2e::write_text(target, "not a profile; must survive\n");
  std::filesystem::create_symlink(target, link);
  RunResult r = e2e::run(record_argv(link, {program("kprof_prog_exit"), "0"}), logs_.path(), 30);
  expect_one_line(r, link, "link");
  EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link was moved or replaced";
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(link + ".old")));
  EXPECT_EQ(e2e::read_text(target), "not a profile; must survive\n");
}

TEST_F(Faults, OutputThatIsADirectoryIsRefused) {
  TempDir area;
  const std::string dir = area.file("out");
  std::filesystem::create_directory(dir);
  e2e::write_text(dir + "/keep", "kept\n");
  RunResult r = e2e::run(record_argv(dir, {program("kprof_prog_exit"), "0"}), logs_.path(), 30);
  expect_one_line(r, dir, "directory");
  EXPECT_TRUE(std::filesystem::is_directory(dir)) << "the directory was moved or replaced";
  EXPECT_FALSE(std::filesystem::exists(dir + ".old"));
  EXPECT_EQ(e2e::read_text(dir + "/keep"), "kept\n");
}

// ------------------------------------------------------- unprivileged user

TEST_F(Faults, UnprivilegedUserRecordsUserSpaceWithANotice) {
  std::string why;
  std::vector<std::string> argv = as_nobody(&why);
  KPROF_REQUIRE_ROOT_SETUP(!argv.empty(), why);
  // This case is about paranoid 2 (users may sample their own tasks, not the
  // kernel): Debian's default, but many kernels ship 3 or more. Set it.
  SysctlGuard paranoid("kernel/perf_event_paranoid", "2");
  KPROF_REQUIRE_ROOT_SETUP(paranoid.ok(), paranoid.why());
  TempDir area;
  ::chmod(area.path().c_str(), 0777);
  const std::string out = area.file("n.kprof");
  for (const std::string& a : record_argv(out, {program("kprof_prog_syscalls"), "1"})) {
    argv.push_back(a);
  }
  RunResult r = e2e::run(argv, logs_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto said = lines_mentioning(r.err_lines(), "perf_event_paranoid");
  ASSERT_EQ(said.size(), 1u) << r.describe();
  EXPECT_NE(said[0].find("sysctl"), std::string::npos) << "the notice says how to allow it\n"
                                                       << said[0];

  Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.status.complete) << p.status.problem;
  EXPECT_TRUE(p.run.event.exclude_kernel);
  EXPECT_EQ(lines_mentioning(p.run.notices, "perf_event_paranoid").size(), 1u)
      << "the profile keeps the notice for report";
  ASSERT_TRUE(p.histogram.has_value());
  EXPECT_TRUE(by_function(*p.histogram, Mode::Kernel).empty()) << dump(*p.histogram);
  auto user = by_function(*p.histogram, Mode::User);
  uint64_t n = 0;
  for (const auto& [name, count] : user) n += count;
  EXPECT_GT(n, 20u) << dump(*p.histogram);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// Off-CPU as a user: the times are recorded (the user's own switches), the
// wakeups (system-wide) and the stacks (the kernel's) are not, each said once.
TEST_F(Faults, UnprivilegedOffCpuRecordsTimesAndSaysWhatIsMissing) {
  std::string why;
  std::vector<std::string> argv = as_nobody(&why);
  KPROF_REQUIRE_ROOT_SETUP(!argv.empty(), why);
  SysctlGuard paranoid("kernel/perf_event_paranoid", "2");
  KPROF_REQUIRE_ROOT_SETUP(paranoid.ok(), paranoid.why());
  TempDir area;
  ::chmod(area.path().c_str(), 0777);
  const std::string out = area.file("o.kprof");
  for (const std::string& a :
       record_argv(out, {program("kprof_prog_offcpu"), "0.3"}, {"--off-cpu"})) {
    argv.push_back(a);
  }
  RunResult r = e2e::run(argv, logs_.path(), 60);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(lines_mentioning(r.err_lines(), "without wakeups").size(), 1u) << r.describe();
  EXPECT_EQ(lines_mentioning(r.err_lines(), "off-CPU stacks are not known").size(), 1u)
      << r.describe();
  Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.off_cpu.has_value()) << r.describe();
  ASSERT_EQ(p.off_cpu->threads.size(), 2u);
  for (const OffCpuThread& t : p.off_cpu->threads) {
    EXPECT_EQ(t.on_ns + t.blocked_ns + t.runq_ns, t.wall_ns());
    EXPECT_GT(t.switches, 0u);
  }
  EXPECT_EQ(p.off_cpu->wakeups, 0u);
}

TEST_F(Faults, UnprivilegedSystemWideSaysWhatPermissionIsMissing) {
  std::string why;
  std::vector<std::string> argv = as_nobody(&why);
  KPROF_REQUIRE_ROOT_SETUP(!argv.empty(), why);
  // Below 1 a user may sample every CPU: set the default Debian ships.
  SysctlGuard paranoid("kernel/perf_event_paranoid", "2");
  KPROF_REQUIRE_ROOT_SETUP(paranoid.ok(), paranoid.why());
  TempDir area;
  ::chmod(area.path().c_str(), 0777);
  const std::string out = area.file("a.kprof");
  for (const std::string& a : record_argv(out, {program("kprof_prog_exit"), "0"}, {"-a"})) {
    argv.push_back(a);
  }
  RunResult r = e2e::run(argv, logs_.path(), 30);
  expect_one_line(r, "permission denied", "perf_event_paranoid");
  EXPECT_EQ(lines_mentioning(r.err_lines(), "CAP_PERFMON").size(), 1u) << r.describe();
  EXPECT_FALSE(std::filesystem::exists(out));
}

// ------------------------------------------------------ hidden kernel symbols

// Records kprof_prog_syscalls with kptr_restrict set to `value` only while
// kprof takes its kallsyms snapshot (the setting is machine-wide; keep the
// window short). --no-kallsyms-cache: the per-boot cache would hand kprof a
// snapshot taken under another setting. *setup says what went wrong in the
// machine's setup (empty when kprof ran as intended).
RunResult record_with_kptr_restrict(const std::string& value, const std::string& out,
                                    const std::string& logs, std::string* setup) {
  std::optional<SysctlGuard> guard(std::in_place, "kernel/kptr_restrict", value);
  if (!guard->ok()) {
    *setup = guard->why();
    return {};
  }
  Process kprof = Process::start(
      record_argv(out, {program("kprof_prog_syscalls"), "1.5"}, {"--no-kallsyms-cache"}), logs);
  const bool snapshot_taken = wait_for_chunk(out, ChunkType::Kallsyms, 10s, kprof);
  guard.reset();
  RunResult r = kprof.wait(60);
  if (!snapshot_taken)
    *setup =
        "no Kallsyms chunk within 10 s: the snapshot may have been "
        "taken after kptr_restrict was put back\n" +
        r.describe();
  return r;
}

TEST_F(Faults, KptrRestrictOneStillNamesKernelFunctionsForRoot) {
  TempDir area;
  const std::string out = area.file("k1.kprof");
  std::string setup;
  RunResult r = record_with_kptr_restrict("1", out, logs_.path(), &setup);
  KPROF_REQUIRE_ROOT_SETUP(setup.empty(), setup);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
  if (p.run.event.exclude_kernel) GTEST_SKIP() << "kernel samples excluded here";
  EXPECT_TRUE(lines_mentioning(p.run.notices, "kptr_restrict").empty())
      << "root (CAP_SYSLOG) sees addresses under kptr_restrict=1";
  auto kernel = by_function(*p.histogram, Mode::Kernel);
  uint64_t all = 0;
  for (const auto& [name, n] : kernel) all += n;
  ASSERT_GT(all, 50u) << dump(*p.histogram);
  EXPECT_GE((all - kernel["[unknown]"]) * 10, all * 9) << dump(*p.histogram);
}

TEST_F(Faults, KptrRestrictTwoKeepsKernelSamplesUnnamedWithANotice) {
  TempDir area;
  const std::string out = area.file("k2.kprof");
  std::string setup;
  RunResult r = record_with_kptr_restrict("2", out, logs_.path(), &setup);
  KPROF_REQUIRE_ROOT_SETUP(setup.empty(), setup);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(lines_mentioning(r.err_lines(), "kptr_restrict").size(), 1u)
      << "the notice is shown while recording\n"
      << r.describe();
  Profile p = perfabi::load_profile(out);
  ASSERT_TRUE(p.histogram.has_value()) << p.status.problem;
  if (p.run.event.exclude_kernel) GTEST_SKIP() << "kernel samples excluded here";
  ASSERT_TRUE(p.kallsyms.starts_with("0000000000000000")) << "kallsyms was not hidden";
  EXPECT_EQ(lines_mentioning(p.run.notices, "kptr_restrict").size(), 1u);
  uint64_t kernel_samples = 0;
  for (const FunctionCount& row : p.histogram->rows) {
    if (row.mode != Mode::Kernel) continue;
    kernel_samples += row.samples;
    ASSERT_LT(row.image, p.histogram->images.size());
    EXPECT_EQ(p.histogram->images[row.image].name, "[kernel]") << dump(*p.histogram);
    EXPECT_EQ(row.function, "[unknown]") << dump(*p.histogram);
  }
  EXPECT_GT(kernel_samples, 50u) << "kernel samples must be kept, unnamed\n" << dump(*p.histogram);
  RunResult rep = e2e::run({kprof_binary(), "report", out}, logs_.path(), 60);
  ASSERT_EQ(rep.exit_code, 0) << rep.describe();
  EXPECT_NE(rep.out.find("kptr_restrict"), std::string::npos) << rep.describe();
}

}  // namespace
}  // namespace kprof::faults
