// Where a perf.data's kernel names come from (importer/import.h), in order:
// --kallsyms FILE, this machine's kallsyms when it runs the recorded kernel,
// perf's build-id cache, else none with a notice; a kallsyms of another
// boot moved by the KASLR offset; the event picked with --event. Built on
// synthetic files (perf_data_builder.h) and an injected "running kernel".
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "importer/import.h"
#include "perfabi/load.h"
#include "tests/importer/perf_data_builder.h"
#include "tests/support/text_files.h"

namespace kprof::importer {
namespace {

using test::Bytes;
using test::record;

constexpr uint64_t kText = 0xffffffff81000000ULL;
constexpr uint64_t kHot = kText + 0x1234;  // inside kernel_hot_path
const std::vector<uint8_t> kBuildId = {0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
                                       0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01};
constexpr const char* kBuildIdHex = "abcdef0123456789abcdef0123456789abcdef01";

// kallsyms text with _text and two functions at `text` (the boot's base).
std::string kallsyms_at(uint64_t text) {
  char buf[256];
  std::snprintf(
      buf, sizeof buf, "%016llx T _text\n%016llx T kernel_hot_path\n%016llx T kernel_other\n",
      static_cast<unsigned long long>(text), static_cast<unsigned long long>(text + 0x1000),
      static_cast<unsigned long long>(text + 0x2000));
  return buf;
}

std::vector<uint8_t> kernel_sample(uint64_t id, uint64_t time, uint64_t ip) {
  return record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
                Bytes().u64(id).u64(ip).u32(7).u32(7).u64(time).u64(1000));
}

// perf's synthesized kernel mapping: pgoff is _text as the recording saw it.
std::vector<uint8_t> kernel_mmap(uint64_t id, uint64_t text) {
  Bytes b;
  b.u32(0xffffffff).u32(0).u64(text).u64(0x1000000).u64(text);
  const std::string name = "[kernel.kallsyms]_text";
  b.raw(name.data(), name.size()).zeros(8 - name.size() % 8);
  b.u32(0xffffffff).u32(0).u64(0).u64(id);
  return record(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, b);
}

// A recording of kernel "6.1.0-test" (build-id kBuildId) whose 10 samples
// are in kernel_hot_path, and whose attribute list has a second event.
std::vector<uint8_t> recording(uint64_t recorded_text = kText) {
  test::PerfFile f;
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK), {11});
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK), {12});
  f.add(kernel_mmap(11, recorded_text));
  for (uint64_t t = 1; t <= 10; ++t) f.add(kernel_sample(11, 100 + t, recorded_text + 0x1234));
  f.add(kernel_sample(12, 200, recorded_text + 0x2010));
  f.features[4] = Bytes().header_string("6.1.0-test").bytes();  // OSRELEASE
  f.features[2] = test::build_id(PERF_RECORD_MISC_KERNEL, kBuildId, "[kernel.kallsyms]");
  return f.build();
}

struct Fixture : ::testing::Test {
  // One directory per test: ctest runs them side by side.
  std::string dir = ::testing::TempDir() + "/kprof_import_kernel_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                    std::to_string(::getpid());
  void SetUp() override {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // The function the profile's samples of kernel_hot_path's address got.
  static std::string hot_name(const Profile& p) {
    if (!p.histogram) return "(no histogram)";
    for (const FunctionCount& r : p.histogram->rows) {
      if (r.samples == 10) return r.function;
    }
    return "(no row of 10 samples)";
  }
  static std::string notices(const Profile& p) {
    std::string s;
    for (const std::string& n : p.run.notices) s += n + "\n";
    return s;
  }
  static bool has_notice(const Profile& p, const std::string& part) {
    return notices(p).find(part) != std::string::npos;
  }
  ImportOptions running(const std::string& release, const std::string& build_id,
                        uint64_t text = kText) {
    ImportOptions o;
    o.running.release = release;
    o.running.build_id = build_id;
    o.running.kallsyms = [text] { return kallsyms_at(text); };
    o.running.modules = [] { return std::string(); };
    return o;
  }
};

TEST_F(Fixture, KallsymsFileComesFirst) {
  const std::string file = dir + "/kallsyms";
  kprof::test::write_text(file, "ffffffff81001000 T from_the_file\n");
  ImportOptions o = running("6.1.0-test", kBuildIdHex);
  o.kallsyms_file = file;
  const Profile p = import_perf_data(recording(), "t.data", o);
  EXPECT_EQ(hot_name(p), "from_the_file") << notices(p);
  EXPECT_TRUE(has_notice(p, "kernel symbols from --kallsyms " + file)) << notices(p);
  o.kallsyms_file = dir + "/missing";
  EXPECT_THROW(import_perf_data(recording(), "t.data", o), Error);
}

TEST_F(Fixture, RunningKernelWhenReleaseAndBuildIdMatch) {
  const Profile p = import_perf_data(recording(), "t.data", running("6.1.0-test", kBuildIdHex));
  EXPECT_EQ(hot_name(p), "kernel_hot_path") << notices(p);
  EXPECT_TRUE(has_notice(p, "this machine's /proc/kallsyms")) << notices(p);
  EXPECT_EQ(p.run.kernel_release, "6.1.0-test");
  EXPECT_EQ(p.run.kernel_build_id, kBuildIdHex);
  EXPECT_EQ(p.run.source_format, "perf.data");
  EXPECT_FALSE(p.run.event.fell_back);
}

TEST_F(Fixture, BuildIdCacheWhenTheRunningKernelDiffers) {
  const std::string cache = dir + "/debug/[kernel.kallsyms]/" + kBuildIdHex;
  std::filesystem::create_directories(cache);
  kprof::test::write_text(cache + "/kallsyms", kallsyms_at(kText));
  for (const char* other_id : {"", "1111111111111111111111111111111111111111"}) {
    ImportOptions o = running(*other_id ? "6.1.0-test" : "6.9.9-other", other_id);
    o.running.kallsyms = [] { return std::string("ffffffff81001000 T wrong_kernel\n"); };
    o.buildid_dir = dir + "/debug";
    const Profile p = import_perf_data(recording(), "t.data", o);
    EXPECT_EQ(hot_name(p), "kernel_hot_path") << notices(p);
    EXPECT_TRUE(has_notice(p, "perf's build-id cache")) << notices(p);
  }
}

TEST_F(Fixture, NoKallsymsLeavesKernelUnknownAndSaysHowToFixIt) {
  ImportOptions o = running("6.9.9-other", "");
  o.buildid_dir = dir + "/empty";
  const Profile p = import_perf_data(recording(), "t.data", o);
  EXPECT_EQ(hot_name(p), "[unknown]") << notices(p);
  EXPECT_TRUE(has_notice(p, "10 kernel samples not named")) << notices(p);
  EXPECT_TRUE(has_notice(p, "--kallsyms FILE")) << notices(p);
  EXPECT_TRUE(has_notice(p, "it ran kernel 6.1.0-test, this machine runs 6.9.9-other"))
      << notices(p);
}

TEST_F(Fixture, KallsymsOfAnotherBootIsMovedByTheKaslrOffset) {
  // Recorded with the kernel at +0x2000000; this boot has it at kText.
  const Profile p = import_perf_data(recording(kText + 0x2000000), "t.data",
                                     running("6.1.0-test", kBuildIdHex, kText));
  EXPECT_EQ(hot_name(p), "kernel_hot_path") << notices(p);
  EXPECT_TRUE(has_notice(p, "KASLR offset")) << notices(p);
}

TEST_F(Fixture, KernelTextOutsideTheImageIsNamedFromAFreshKallsyms) {
  // A sample past the kernel image's last function (a BPF program, say): an
  // earlier snapshot of this boot may not know it, so kallsyms is read again.
  test::PerfFile f;
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK), {11});
  f.add(kernel_mmap(11, kText));
  f.add(kernel_sample(11, 100, kText + 0x9000));
  f.features[4] = Bytes().header_string("6.1.0-test").bytes();
  ImportOptions o = running("6.1.0-test", "");
  o.running.kallsyms_now = [] {
    return kallsyms_at(kText) + "ffffffff81009000 t bpf_prog_1234_handler\t[bpf]\n";
  };
  const Profile p = import_perf_data(f.build(), "t.data", o);
  ASSERT_TRUE(p.histogram.has_value());
  ASSERT_EQ(p.histogram->rows.size(), 1u);
  EXPECT_EQ(p.histogram->rows[0].function, "bpf_prog_1234_handler") << notices(p);
}

TEST_F(Fixture, EventPicksWhichSamplesAreShown) {
  ImportOptions o = running("6.1.0-test", kBuildIdHex);
  const Profile first = import_perf_data(recording(), "t.data", o);
  ASSERT_TRUE(first.summary.has_value());
  EXPECT_EQ(first.summary->samples, 10u);
  EXPECT_EQ(first.run.event.name, "cpu-clock");
  EXPECT_TRUE(has_notice(first,
                         "holds 2 events: showing cpu-clock (10 samples); also "
                         "task-clock (1 samples)"))
      << notices(first);
  o.event = "task-clock";
  const Profile task = import_perf_data(recording(), "t.data", o);
  EXPECT_EQ(task.summary->samples, 1u);
  ASSERT_TRUE(task.histogram.has_value());
  ASSERT_EQ(task.histogram->rows.size(), 1u);
  EXPECT_EQ(task.histogram->rows[0].function, "kernel_other");
  o.event = "cycles";
  try {
    import_perf_data(recording(), "t.data", o);
    FAIL() << "no error for an event the file does not hold";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no event 'cycles'; it holds: cpu-clock, task-clock"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Fixture, ImportWritesAProfileThatLoadsTheSame) {
  const std::string out = dir + "/x.kprof";
  const Profile p = [&] {
    ProfileWriter w = ProfileWriter::create(out);
    return import_perf_data(recording(), "t.data", running("6.1.0-test", kBuildIdHex), &w);
  }();
  const Profile back = perfabi::load_profile(out);
  EXPECT_TRUE(back.status.complete) << back.status.problem;
  EXPECT_EQ(back.run.event, p.run.event);
  EXPECT_EQ(back.run.notices, p.run.notices);
  EXPECT_EQ(back.run.command, p.run.command);
  EXPECT_EQ(back.run.target, p.run.target);
  EXPECT_EQ(back.run.kernel_build_id, p.run.kernel_build_id);
  EXPECT_EQ(back.run.source_format, p.run.source_format);
  EXPECT_EQ(back.run, p.run);
  ASSERT_TRUE(back.histogram.has_value());
  EXPECT_EQ(*back.histogram, *p.histogram);
  EXPECT_EQ(back.kallsyms, kallsyms_at(kText));
  struct Count : RecordSink {
    void on_sample(const Sample&) override { ++samples; }
    uint64_t samples = 0;
  } count;
  perfabi::load_profile(out, {.records = &count});
  EXPECT_EQ(count.samples, 10u) << "the chosen event's samples are kept as records";
}

}  // namespace
}  // namespace kprof::importer
