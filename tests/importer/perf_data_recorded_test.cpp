// The perf.data reader on files perf itself records here at test time
// (plain, -g, -a, two events, pipe mode, killed with SIGKILL), each
// compared with what perf reads from them. (Files built byte by byte:
// perf_data_test.cpp.)
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "importer/perf_data.h"
#include "tests/importer/perf_data_builder.h"
#include "tests/support/cli_run.h"

namespace kprof::importer {
namespace {

using test::expect_this_machine;
using test::PerfRecorded;
using test::walk;
using test::Walk;

TEST_F(PerfRecorded, Plain) {
  record("-e cpu-clock -F 1000", "plain.data", workload(0.3));
  const test::Read r = read("plain.data");
  const auto& h = r.reader->header();
  EXPECT_FALSE(h.pipe);
  EXPECT_TRUE(h.notices.empty()) << h.notices[0];
  expect_this_machine(h);
  auto version = sh("perf --version");
  EXPECT_NE(version.out.find("perf version " + h.perf_version), std::string::npos)
      << version.out << " vs " << h.perf_version;
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_EQ(h.events[0].type, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_FALSE(h.events[0].ids.empty());
  EXPECT_EQ(r.walk.status.problem, "");
  EXPECT_EQ(r.walk.status.bytes_read, h.data_size);
  EXPECT_GT(r.samples, 0u);
  EXPECT_EQ(r.samples, perf_samples("plain.data"));
  EXPECT_EQ(r.walk.offsets, perf_order("plain.data", false));
  // Every build id perf lists, and nothing else. (perf 6.1 writes the DSOs
  // that got samples: here the program and libc; [kernel.kallsyms] only
  // when a sample hit the kernel.)
  const std::set<std::string> want = test::perf_buildid_list(path("plain.data"), dir_);
  std::set<std::string> got;
  for (const auto& b : h.build_ids) got.insert(b.build_id + " " + b.filename);
  EXPECT_EQ(got, want);
  EXPECT_FALSE(got.empty());
  bool program = false;
  for (const auto& b : h.build_ids)
    program |= b.filename.find("kprof_prog_hotcold") != std::string::npos;
  EXPECT_TRUE(program);
}

TEST_F(PerfRecorded, CallGraph) {
  // perf 6.1 is known to abort at the end of some -g recordings
  // (util/build-id.c:1010); on this machine short recordings finish, and a
  // failure here fails the test.
  record("-e cpu-clock -F 1000 -g", "g.data", workload(0.3));
  const test::Read r = read("g.data");
  const auto& h = r.reader->header();
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_NE(h.events[0].sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  EXPECT_EQ(r.walk.status.problem, "");
  EXPECT_GT(r.samples, 0u);
  EXPECT_EQ(r.samples, perf_samples("g.data"));
  EXPECT_EQ(r.walk.offsets, perf_order("g.data", false));
  // The callchains decode with the event's layout.
  struct Chains : RecordSink {
    void on_sample(const Sample& s) override {
      frames += s.callchain.size();
      ++samples;
    }
    uint64_t frames = 0, samples = 0;
  } chains;
  r.reader->for_each_record([&](std::span<const uint8_t> rec, size_t event) {
    ASSERT_LT(event, h.events.size());
    perfabi::decode_perf_record(rec, h.events[event].layout(), chains);
  });
  EXPECT_EQ(chains.samples, r.samples);
  EXPECT_GT(chains.frames, chains.samples);  // most samples have a caller
}

TEST_F(PerfRecorded, SystemWideInTimeOrder) {
  record("-e cpu-clock -F 1000 -a", "a.data", workload(0.4));
  const test::Read r = read("a.data");
  const auto& h = r.reader->header();
  ASSERT_GE(h.events.size(), 1u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_EQ(r.walk.status.problem, "");
  EXPECT_EQ(r.samples, perf_samples("a.data"));
  EXPECT_EQ(r.walk.offsets, perf_order("a.data", false));
  // Samples come out in time order, though perf wrote them per CPU.
  std::vector<uint64_t> times;
  bool file_order = true;
  uint64_t last_offset = 0;
  for (size_t i = 0; i < r.walk.types.size(); ++i) {
    if (r.walk.types[i] != PERF_RECORD_SAMPLE) continue;
    const auto rec = std::span<const uint8_t>(r.bytes).subspan(r.walk.offsets[i]);
    times.push_back(*perfabi::record_time(rec.first(rec[6] | (rec[7] << 8)),
                                          h.events[r.walk.events[i]].layout()));
    file_order &= r.walk.offsets[i] >= last_offset;
    last_offset = r.walk.offsets[i];
  }
  ASSERT_GT(times.size(), 10u);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    EXPECT_FALSE(file_order);  // sorting happened
  }
  // The kernel was sampled: perf lists its build id, and so do we.
  bool perf_has_kernel = false;
  for (const auto& line : test::perf_buildid_list(path("a.data"), dir_))
    perf_has_kernel |= line.ends_with(" [kernel.kallsyms]");
  bool kernel = false;
  for (const auto& b : h.build_ids)
    if (b.filename == "[kernel.kallsyms]") kernel = b.kernel && b.build_id.size() == 40;
  EXPECT_TRUE(perf_has_kernel);  // the idle task, at least
  EXPECT_EQ(kernel, perf_has_kernel);
}

TEST_F(PerfRecorded, TwoEventsByIdentifier) {
  record("-e cpu-clock,task-clock -F 1000", "two.data", workload(0.3));
  const test::Read r = read("two.data");
  const auto& h = r.reader->header();
  ASSERT_EQ(h.events.size(), 2u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_EQ(h.events[1].name, "task-clock");
  EXPECT_EQ(r.walk.status.problem, "");
  const auto want = test::perf_script_events(path("two.data"), dir_);
  std::map<std::string, uint64_t> got;
  for (const auto& [event, n] : r.samples_by_event) {
    ASSERT_LT(event, h.events.size());
    got[h.events[event].name] = n;
  }
  EXPECT_EQ(got, want);
  EXPECT_GT(got["cpu-clock"], 0u);
  EXPECT_GT(got["task-clock"], 0u);
  EXPECT_EQ(r.walk.offsets, perf_order("two.data", false));
}

TEST_F(PerfRecorded, PipeMode) {
  auto run = sh("perf record -q -e cpu-clock -F 1000 -o - -- " + workload(0.3) + " > " +
                kprof::test::shell_quote(path("pipe.data")));
  ASSERT_EQ(run.status, 0) << run.err;
  const test::Read r = read("pipe.data");
  const auto& h = r.reader->header();
  EXPECT_TRUE(h.pipe);
  EXPECT_TRUE(h.notices.empty()) << h.notices[0];
  expect_this_machine(h);
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_FALSE(h.events[0].ids.empty());
  EXPECT_EQ(r.walk.status.problem, "");
  EXPECT_GT(r.samples, 0u);
  EXPECT_EQ(r.samples, perf_samples("pipe.data"));
  EXPECT_EQ(r.walk.offsets, perf_order("pipe.data", true));
}

TEST_F(PerfRecorded, KilledRecording) {
  // perf writes the data size (and the features) at exit only: killed, its
  // header says 0 and the records run to wherever it stopped. perf report
  // itself cannot read such a file, so there is nothing to compare with.
  // --no-buffering makes perf write as samples come. The workload outlives
  // perf; it is killed by its pid.
  const std::string file = kprof::test::shell_quote(path("killed.data"));
  auto run =
      sh("perf record -q -e cpu-clock -F 1000 --no-buffering -o " + file + " -- " + workload(3) +
         " & p=$!; sleep 1; c=$(pgrep -P $p); kill -9 $p; wait $p; "
         "s=$?; [ -n \"$c\" ] && kill $c; exit $s");
  ASSERT_EQ(run.status, 137) << run.err;  // SIGKILL
  const test::Read r = read("killed.data");
  const auto& h = r.reader->header();
  EXPECT_EQ(h.data_size, 0u);
  EXPECT_EQ(h.hostname, "");  // no feature sections
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_TRUE(r.walk.status.cut_short);
  EXPECT_GT(r.samples, 0u);
  EXPECT_EQ(r.walk.status.data_bytes, r.bytes.size() - h.data_offset);
  if (!r.walk.status.problem.empty()) {
    EXPECT_NE(r.walk.status.problem.find("runs past the end of the file"), std::string::npos)
        << r.walk.status.problem;
  } else {
    EXPECT_EQ(r.walk.status.bytes_read, r.walk.status.data_bytes);
  }
}

}  // namespace
}  // namespace kprof::importer
