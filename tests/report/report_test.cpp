// Golden-text tests of `kprof report` and `kprof info` output, on profiles
// written by ProfileBuilder. KPROF_UPDATE_GOLDEN=1 regenerates the goldens.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/file_layout.h"
#include "core/records_chunk.h"
#include "export/tables.h"
#include "perfabi/load.h"
#include "report/info.h"
#include "report/report.h"
#include "report/summary.h"
#include "tests/report/test_support.h"
#include "tests/support/cli_run.h"

namespace kprof {
namespace {

using test::ProfileBuilder;

FunctionCount row(uint32_t image, std::string function, Mode mode, uint64_t samples) {
  return {image, std::move(function), mode, samples, samples * 1000};
}

// 1000 samples in all, so percents are easy to check by eye.
Histogram bench_histogram() {
  Histogram h;
  h.images = {{"[kernel]", ""},
              {"/usr/lib/x86_64-linux-gnu/libc.so.6", "aa"},
              {"/usr/bin/bench", "bb"},
              {"[ext4]", ""},
              {"/opt/vendor/lib/libc.so.6", "cc"}};
  h.rows = {row(2, "compute_hash", Mode::User, 400),
            row(0, "do_syscall_64", Mode::Kernel, 300),
            row(1, "memcpy", Mode::User, 140),
            row(0, "schedule", Mode::Kernel, 50),
            row(0, "clear_page_erms", Mode::Kernel, 50),  // ties with schedule: by name
            row(3, "ext4_file_write_iter", Mode::Kernel, 25),
            row(2, "[unknown]", Mode::User, 15),
            row(2, "std::vector<int, std::allocator<int> >::_M_realloc_insert(int const&)",
                Mode::User, 10),
            row(4, "memcpy", Mode::User, 10)};
  return h;
}

struct Loaded {
  Profile profile;
  ProfileHistogram hist;
};

// Writes, loads back and renames the profile so the golden does not depend on
// where the build directory is.
Loaded build_and_load(const ProfileBuilder& b, const std::string& name) {
  std::string path = b.write(test::temp_dir(name) + "/" + name + ".kprof");
  Loaded l{perfabi::load_profile(path), {}};
  l.hist = histogram_of(l.profile);
  l.profile.path = name + ".kprof";
  return l;
}

ProfileBuilder bench_builder() {
  ProfileBuilder b;
  b.run = test::sample_run();
  b.summary = test::sample_summary();
  b.histogram = bench_histogram();
  return b;
}

std::string report_text(const Loaded& l, ReportOptions opts) {
  std::ostringstream out;
  write_report(out, l.profile, l.hist, opts);
  return out.str();
}

#define EXPECT_GOLDEN(name, text)                              \
  do {                                                         \
    std::string mismatch_ = test::golden_mismatch(name, text); \
    EXPECT_EQ(mismatch_, "") << mismatch_;                     \
  } while (0)

TEST(Report, SortByFunction) {
  Loaded l = build_and_load(bench_builder(), "sort_function");
  ASSERT_TRUE(l.profile.status.complete);
  EXPECT_TRUE(l.hist.notice.empty());
  std::string text = report_text(l, {});
  EXPECT_NE(text.find("    400  40.0000  bench "), std::string::npos) << text;
  EXPECT_GOLDEN("sort_function.txt", text);
}

TEST(Report, SortByImageShowsFullPathOnlyForClashingBasenames) {
  Loaded l = build_and_load(bench_builder(), "sort_image");
  std::string text = report_text(l, {.sort = SortKey::Image});
  EXPECT_NE(text.find("[kernel]"), std::string::npos);
  EXPECT_NE(text.find("/opt/vendor/lib/libc.so.6"), std::string::npos);
  EXPECT_NE(text.find("  bench\n"), std::string::npos) << text;
  EXPECT_GOLDEN("sort_image.txt", text);
}

TEST(Report, SortByMode) {
  Loaded l = build_and_load(bench_builder(), "sort_mode");
  std::string text = report_text(l, {.sort = SortKey::Mode, .header = false});
  EXPECT_EQ(text.find("# "), std::string::npos) << "--no-header still printed the header";
  EXPECT_GOLDEN("sort_mode.txt", text);
}

TEST(Report, TopNCutSaysWhatWasLeftOut) {
  Loaded l = build_and_load(bench_builder(), "top_n");
  std::string text = report_text(l, {.top = 3, .header = false});
  EXPECT_NE(text.find("(6 more functions not shown: 160 samples, 16.0000%)"), std::string::npos)
      << text;
  EXPECT_GOLDEN("top_n.txt", text);
}

TEST(Report, PercentLimitHidesSmallRows) {
  Loaded l = build_and_load(bench_builder(), "percent_limit");
  std::string text = report_text(l, {.percent_limit = 5.0, .header = false});
  EXPECT_NE(text.find("schedule"), std::string::npos);  // exactly 5%: kept
  EXPECT_EQ(text.find("ext4_file_write_iter"), std::string::npos);
  EXPECT_GOLDEN("percent_limit.txt", text);
}

TEST(Report, CsvQuotesNamesAndKeepsEveryRow) {
  ProfileBuilder b = bench_builder();
  b.histogram->rows.push_back(row(2, "operator,(A, B)", Mode::User, 3));
  b.histogram->rows.push_back(row(2, "foo\"bar", Mode::User, 2));
  Loaded l = build_and_load(b, "csv_quoting");
  std::ostringstream out;
  write_report_csv(out, l.hist.histogram, SortKey::Function);
  std::string csv = out.str();
  EXPECT_NE(csv.find("3,0.2985,/usr/bin/bench,\"operator,(A, B)\",user\r\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",\"foo\"\"bar\",user\r\n"), std::string::npos) << csv;
  // Every row, not only the top N: header + 11 rows.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 12);
  EXPECT_GOLDEN("csv_quoting.csv", csv);
}

TEST(Report, LongNamesCutInTableButNotInCsv) {
  ProfileBuilder b = bench_builder();
  std::string long_name = "ns::f<" + std::string(300, 'T') + ">(int)";
  b.histogram->rows.push_back(row(2, long_name, Mode::User, 500));
  Loaded l = build_and_load(b, "long_name");
  std::string text = report_text(l, {.header = false, .name_width = 40});
  EXPECT_EQ(text.find(long_name), std::string::npos);
  EXPECT_NE(text.find("ns::f<" + std::string(33, 'T') + "\u2026\n"), std::string::npos) << text;
  std::ostringstream csv;
  write_report_csv(csv, l.hist.histogram, SortKey::Function);
  EXPECT_NE(csv.str().find(long_name), std::string::npos);
}

TEST(Report, FallbackHeader) {
  ProfileBuilder b = bench_builder();
  b.run.event = {.requested = "CPU_CLK_UNHALTED:100000",
                 .name = "cpu-clock",
                 .type = 1,
                 .config = 0,
                 .use_freq = true,
                 .rate = 499,
                 .fell_back = true,
                 .fallback_reason = "no hardware PMU (ENOENT opening cycles)"};
  b.run.notices = {"CPU_CLK_UNHALTED could not open: sampling cpu-clock instead"};
  Loaded l = build_and_load(b, "fallback_header");
  std::string text = report_text(l, {.top = 2});
  EXPECT_NE(text.find("cpu-clock @ 499 Hz (fallback: CPU_CLK_UNHALTED:100000 cannot be sampled "
                      "here: no hardware PMU (ENOENT opening cycles))"),
            std::string::npos)
      << text;
  // Said once: the recorder's notice of the same fallback is not repeated.
  EXPECT_EQ(text.find("sampling cpu-clock instead"), std::string::npos) << text;
  EXPECT_EQ(run_notices(b.run).size(), 0u);
  RunInfo other = b.run;
  other.notices.push_back("kernel samples were not allowed");
  EXPECT_EQ(run_notices(other), std::vector<std::string>{"kernel samples were not allowed"});
  other.event.fell_back = false;
  EXPECT_EQ(run_notices(other).size(), 2u) << "without a fallback nothing repeats it";
  EXPECT_GOLDEN("fallback_header.txt", text);
}

TEST(Report, KilledWorkloadWithLostSamples) {
  ProfileBuilder b = bench_builder();
  b.summary->exit = {ExitStatus::Kind::Signaled, 9};
  b.summary->lost = 10;
  b.summary->samples = 990;
  b.summary->stop_reason = "workload killed";
  Loaded l = build_and_load(b, "killed_workload");
  std::string text = report_text(l, {.top = 2});
  EXPECT_NE(text.find("killed by signal 9 (SIGKILL)"), std::string::npos) << text;
  EXPECT_NE(text.find("10 (1.0000% of all samples)"), std::string::npos) << text;
  EXPECT_GOLDEN("killed_workload.txt", text);
}

TEST(Report, CallchainProfileSaysTheTableIsSelfAndWhereTheGraphIs) {
  ProfileBuilder b = bench_builder();
  EXPECT_EQ(report_text(build_and_load(b, "flat"), {.top = 2}).find("# callchains:"),
            std::string::npos);
  b.run.event.callchains = true;
  std::string text = report_text(build_and_load(b, "chains"), {.top = 2});
  EXPECT_NE(text.find("# callchains:"), std::string::npos) << text;
  EXPECT_NE(text.find("the flat table counts self samples"), std::string::npos) << text;
  EXPECT_NE(text.find("--children"), std::string::npos) << text;
}

TEST(Report, ThrottlingIsShownOnlyWhenItHappened) {
  ProfileBuilder b = bench_builder();
  EXPECT_EQ(report_text(build_and_load(b, "calm"), {.top = 2}).find("# throttled:"),
            std::string::npos);
  b.summary->throttled = 296;
  std::string text = report_text(build_and_load(b, "busy"), {.top = 2});
  EXPECT_NE(text.find("# throttled:"), std::string::npos) << text;
  EXPECT_NE(text.find("296 times the kernel paused sampling"), std::string::npos) << text;
  EXPECT_NE(text.find("lower -F"), std::string::npos) << text;
}

// Meta + Kallsyms + two Records chunks, the second chopped: what a kill -9
// leaves. Kernel samples are named from the snapshot, user ones by image.
ProfileBuilder cut_short_builder() {
  ProfileBuilder b;
  b.run = test::sample_run();
  b.kallsyms =
      "ffffffff81000000 T _stext\n"
      "ffffffff81001000 T do_syscall_64\n"
      "ffffffff81002000 t schedule\n"
      "ffffffff81003000 T _etext\n";
  RecordEncoder enc;
  enc.add(Comm{.time = 1, .pid = 100, .tid = 100, .exec = true, .comm = "bench"});
  enc.add(Mmap{.time = 2,
               .pid = 100,
               .tid = 100,
               .start = 0x400000,
               .len = 0x10000,
               .prot = 5,
               .filename = "/usr/bin/bench"});
  auto sample = [](uint64_t t, uint64_t ip, Mode m) {
    return Sample{.time = t, .ip = ip, .pid = 100, .tid = 100, .mode = m, .period = 1};
  };
  enc.add(sample(10, 0xffffffff81001010, Mode::Kernel));
  enc.add(sample(11, 0xffffffff81001020, Mode::Kernel));
  enc.add(sample(12, 0xffffffff81002010, Mode::Kernel));
  enc.add(sample(13, 0x400123, Mode::User));
  b.records.push_back(enc.take());
  for (int i = 0; i < 50; ++i) enc.add(sample(20 + i, 0xffffffff81002010, Mode::Kernel));
  b.records.push_back(enc.take());
  b.end = false;
  return b;
}

std::string chopped_profile(const std::string& name) {
  std::string path = cut_short_builder().write(test::temp_dir(name) + "/" + name + ".kprof");
  std::string bytes = test::read_text(path);
  test::write_text(path, bytes.substr(0, bytes.size() - 7));
  return path;
}

TEST(Report, CutShortFileNamesKernelFunctionsFromSnapshot) {
  std::string path = chopped_profile("cut_short");
  Loaded l{perfabi::load_profile(path), {}};
  ASSERT_FALSE(l.profile.status.complete);
  ASSERT_FALSE(l.profile.histogram.has_value());
  l.hist = histogram_of(l.profile);
  EXPECT_TRUE(l.hist.recovered);
  EXPECT_EQ(l.hist.histogram.total_samples(), 4u);
  EXPECT_NE(l.hist.notice.find("recovered 4 samples (user functions not named"), std::string::npos)
      << l.hist.notice;
  l.profile.path = "cut_short.kprof";
  std::string text = report_text(l, {});
  EXPECT_NE(text.find("do_syscall_64"), std::string::npos) << text;
  EXPECT_NE(text.find("bench     [unknown]"), std::string::npos) << text;
  // The reader's wording of the problem belongs to core; keep the golden about ours.
  const std::string& problem = l.profile.status.problem;
  ASSERT_FALSE(problem.empty());
  for (size_t at; (at = text.find(problem)) != std::string::npos;) {
    text.replace(at, problem.size(), "<problem>");
  }
  // The notice names the command that names user functions, with the path.
  EXPECT_NE(text.find("kprof symbolize " + path + " names them"), std::string::npos) << text;
  for (size_t at; (at = text.find(path)) != std::string::npos;) {
    text.replace(at, path.size(), "<path>");
  }
  EXPECT_GOLDEN("cut_short.txt", text);
}

// `ssh host cat x.kprof | kprof report -`: standard input (and a FIFO) is read
// once and its bytes kept, so even a cut-short profile's records are decoded
// from them; the table is the file's.
TEST(Report, ReadsAProfileFromAPipeOrAFifo) {
  const std::string path = chopped_profile("from_pipe");
  const std::string dir = path.substr(0, path.rfind('/'));
  const std::string q = test::shell_quote(path);
  const std::string bin = test::shell_quote(KPROF_BINARY);
  const test::CliRun file = test::run_shell(bin + " report --no-header " + q, dir);
  ASSERT_EQ(file.status, 0) << file.err;
  EXPECT_NE(file.out.find("schedule"), std::string::npos) << file.out;
  const test::CliRun pipe =
      test::run_shell("cat " + q + " | " + bin + " report --no-header -", dir);
  ASSERT_EQ(pipe.status, 0) << pipe.err;
  EXPECT_EQ(pipe.out, file.out);
  const test::CliRun header = test::run_shell("cat " + q + " | " + bin + " report -", dir);
  EXPECT_NE(header.out.find("# profile:  stdin"), std::string::npos) << header.out;
  EXPECT_NE(header.out.find("recovered 4 samples"), std::string::npos) << header.out;
  EXPECT_NE(header.out.find("kprof symbolize FILE (a saved copy)"), std::string::npos)
      << header.out;

  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const test::CliRun named =
      test::run_shell("(cat " + q + " > " + test::shell_quote(fifo) + " &); " + bin +
                          " report --no-header " + test::shell_quote(fifo),
                      dir);
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(named.out, file.out);
  const test::CliRun diff =
      test::run_shell("cat " + q + " | " + bin + " diff - " + q + " --top 3", dir);
  EXPECT_EQ(diff.status, 0) << diff.err;
  EXPECT_NE(diff.out.find("Matched diff"), std::string::npos) << diff.out;

  // Nothing or garbage on the pipe: one line naming stdin, exit 1.
  for (const char* input : {"printf ''", "echo 'not a profile'", "head -c 100 "}) {
    const std::string cmd =
        std::string(input) + (input[0] == 'h' ? q : "") + " | " + bin + " report -";
    const test::CliRun bad = test::run_shell(cmd, dir);
    EXPECT_EQ(bad.status, 1) << cmd << ": " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << cmd << ": " << bad.err;
    EXPECT_NE(bad.err.find("stdin"), std::string::npos) << cmd << ": " << bad.err;
  }
}

TEST(Report, CompleteProfileDoesNotDecodeRecords) {
  // A Records chunk that would not decode: report must not touch it.
  ProfileBuilder b = bench_builder();
  b.records.push_back({0xff, 0xff, 0xff, 0xff});
  Loaded l = build_and_load(b, "undecoded_records");
  EXPECT_FALSE(l.hist.recovered);
  EXPECT_EQ(l.hist.histogram.total_samples(), 1000u);
}

TEST(Report, RowsMergeModesAndBreakTiesByName) {
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/bin/a", ""}};
  h.rows = {row(1, "f", Mode::User, 5), row(1, "f", Mode::Kernel, 5), row(0, "b", Mode::Kernel, 10),
            row(0, "a", Mode::Kernel, 10)};
  std::vector<ReportRow> rows = report_rows(h, SortKey::Function);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].image, "/bin/a");  // "/bin/a" < "[kernel]"
  EXPECT_EQ(rows[0].mode, "user+kernel");
  EXPECT_EQ(rows[1].function, "a");
  EXPECT_EQ(rows[2].function, "b");
  EXPECT_THROW(parse_sort_key("symbol"), Error);
}

TEST(Report, EmptyHistogram) {
  ProfileBuilder b = bench_builder();
  b.histogram = Histogram{};
  Loaded l = build_and_load(b, "empty_histogram");
  EXPECT_NE(report_text(l, {.header = false}).find("no samples"), std::string::npos);
}

// The value of the "key:" line of `kprof info` output; "<missing>" if none.
std::string info_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    size_t v = line.find_first_not_of(' ', key.size() + 1);
    return v == std::string::npos ? "" : line.substr(v);
  }
  return "<missing>";
}

TEST(Info, ShowsEveryKeyField) {
  ProfileBuilder b = bench_builder();
  b.kallsyms = cut_short_builder().kallsyms;
  b.run.scores = {{"tps", 1234.5}};
  b.run.notices = {"perf_event_paranoid=2: kernel samples need root"};
  std::string path = b.write(test::temp_dir("info") + "/info.kprof");
  Profile p = perfabi::load_profile(path);
  ProfileHistogram hist = histogram_of(p);
  p.path = "info.kprof";
  std::ostringstream out;
  write_info(out, p, hist, chunk_counts(p.status));
  std::string text = out.str();
  const std::pair<const char*, const char*> want[] = {
      {"format version", "1"},
      {"status", "complete"},
      {"chunks", "meta 1, kallsyms 1, summary 1, histogram 1, end 1"},
      {"recorded", "2024-05-01 12:34:56 UTC"},
      {"event", "cycles @ 4000 Hz"},
      {"sampling", "frequency 4000 Hz"},
      {"fell back", "no"},
      {"kernel release", "6.18.0-kprof"},
      {"kernel build id", "0123456789abcdef0123456789abcdef01234567"},
      {"host", "testbox"},
      {"cpus", "8"},
      {"command", "./bench --iterations 3"},
      {"duration", "2.000 s"},
      {"samples", "1000"},
      {"lost", "0 (0.0000%)"},
      {"workload", "exited 0 (shell status 0)"},
      {"workload time", "real 1.980 s, user 1.750 s, sys 0.200 s"},
      {"interrupts/s", "1000"},
      {"ctxsw/s", "1000"},
      {"cpu us/sys/idle/iowait", "20.0% / 10.0% / 60.0% / 10.0%"},
      {"kallsyms", "4 symbols"},
      {"histogram samples", "1000"},
      {"images", "5"},
      {"functions", "9"},
      {"score tps", "1234.500000"},
      {"notice", "perf_event_paranoid=2: kernel samples need root"},
      {"per thread",
       "no table (older files, imports of listings): --sort tid|cpu, --tid and "
       "--cpu read the records"},
  };
  for (const auto& [key, value] : want) {
    EXPECT_EQ(info_value(text, key), value) << "key '" << key << "' in:\n" << text;
  }
  EXPECT_GOLDEN("info.txt", text);
  // A recording's table: its threads and CPUs counted.
  p.threads = ThreadCounts{{{1, 1, "a"}, {2, 1, "a"}, {2, 1, "b"}},
                           {{0, 0, 0, 5, 5}, {1, 3, 0, 1, 1}, {2, 3, 1, 1, 1}}};
  std::ostringstream with;
  write_info(with, p, hist, chunk_counts(p.status));
  EXPECT_EQ(info_value(with.str(), "per thread"),
            "2 threads on 2 CPUs, 3 (thread, CPU, function) counts: --sort tid|cpu|comm|pid, "
            "--tid, --cpu, --comm and --pid read them");
  // A table whose chunk was damaged: said so, not called missing.
  p.threads.reset();
  p.status.damaged.push_back({static_cast<uint16_t>(ChunkType::ThreadCounts), 1234, 80,
                              "bad checksum (the bytes were damaged)"});
  std::ostringstream damaged;
  write_info(damaged, p, hist, chunk_counts(p.status));
  EXPECT_EQ(
      info_value(damaged.str(), "per thread"),
      "table damaged (skipped, see status): --sort tid|cpu, --tid and --cpu read the records");
}

TEST(Info, CutShortFile) {
  std::string path = chopped_profile("info_cut_short");
  Profile p = perfabi::load_profile(path);
  ProfileHistogram hist = histogram_of(p);
  std::ostringstream out;
  write_info(out, p, hist, chunk_counts(p.status));
  std::string text = out.str();
  EXPECT_EQ(info_value(text, "status").rfind("cut short: ", 0), 0u) << text;
  EXPECT_EQ(info_value(text, "summary"), "missing (recording did not end normally)");
  EXPECT_EQ(info_value(text, "histogram samples"), "4 (recovered from records)");
  EXPECT_EQ(info_value(text, "chunks"), "meta 1, kallsyms 1, records 1");
  EXPECT_EQ(info_value(text, "functions"), "3");
}

}  // namespace
}  // namespace kprof

namespace kprof {
namespace {

// --sort comm / pid[,function] (issue 29): a -g profile's samples per
// process, and per process and leaf function.
Stacks two_processes() {
  Stacks st;
  st.images = {{"[kernel]", ""}, {"/usr/bin/postgres", ""}};
  st.frames = {{0, "copy_user", Mode::Kernel}, {1, "ExecScan", Mode::User}};
  st.processes = {{10, "postgres"}, {11, "postgres"}, {12, "pgbench"}};
  st.stacks = {{0, {0, 1}, 5, 50}, {0, {1}, 3, 30}, {1, {0}, 2, 20}, {2, {0}, 4, 40}};
  return st;
}

TEST(Report, ProcessSortGroupsTheStacksByProcess) {
  const Histogram comm = process_histogram(two_processes(), parse_process_sort("comm"));
  std::vector<ReportRow> rows = report_rows(comm, SortKey::Image);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].image, "postgres");
  EXPECT_EQ(rows[0].samples, 10u) << "both postgres processes";
  EXPECT_EQ(rows[1].image, "pgbench");
  EXPECT_EQ(rows[1].samples, 4u);

  const Histogram pid = process_histogram(two_processes(), parse_process_sort("pid,function"));
  rows = report_rows(pid, SortKey::Function);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].image, "10 postgres");
  EXPECT_EQ(rows[0].function, "copy_user");
  EXPECT_EQ(rows[0].samples, 5u);
  EXPECT_EQ(rows[0].mode, "kernel");
  EXPECT_EQ(rows[1].image, "12 pgbench");
  EXPECT_EQ(rows[1].samples, 4u);
  uint64_t total = 0;
  for (const ReportRow& r : rows) total += r.samples;
  EXPECT_EQ(total, 14u);
}

TEST(Report, ProcessSortKeys) {
  EXPECT_EQ(parse_process_sort("function").by, ProcessSort::By::None);
  EXPECT_EQ(parse_process_sort("comm").by, ProcessSort::By::Comm);
  EXPECT_FALSE(parse_process_sort("comm").functions);
  EXPECT_TRUE(parse_process_sort("pid,function").functions);
  EXPECT_EQ(parse_process_sort("tid").by, ProcessSort::By::Tid);
  EXPECT_EQ(parse_process_sort("cpu,function").by, ProcessSort::By::Cpu);
  EXPECT_TRUE(parse_process_sort("cpu,function").functions);
  for (const char* bad : {"tid,image", "cpu,", "comm,image", "comm,", "function,comm"}) {
    try {
      parse_process_sort(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2) << bad;
    }
  }
}

}  // namespace
}  // namespace kprof
