// SampleSelection (core/sample_selection.h): perf's --cpu and --time syntax,
// and the sink that keeps the selected CPU samples and every other record.
#include "core/sample_selection.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace kprof {
namespace {

constexpr uint64_t kStart = 1'000'000'000'000;  // perf time of the recording's start
constexpr uint64_t kSec = 1'000'000'000;

int exit_code_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.exit_code();
  }
  return 0;
}

TEST(SampleSelection, CpuListTakesNumbersAndRanges) {
  EXPECT_EQ(parse_cpu_list({"0-2", "7", "1"}), (std::vector<uint32_t>{0, 1, 2, 7}));
  EXPECT_EQ(parse_cpu_list({"3"}), (std::vector<uint32_t>{3}));
  for (const char* bad : {"", "x", "2-1", "-1", "1-", "1.5", "0-99999999"}) {
    EXPECT_EQ(exit_code_of([&] { parse_cpu_list({bad}); }), 2) << bad;
  }
}

TEST(SampleSelection, TimeRangeInSecondsFromTheStart) {
  TimeRange r = parse_time_range("1.5,3", kStart, 10 * kSec);
  EXPECT_EQ(r.from_ns, kStart + 1'500'000'000);
  EXPECT_EQ(r.to_ns, kStart + 3 * kSec);
  EXPECT_TRUE(r.contains(kStart + 2 * kSec));
  EXPECT_FALSE(r.contains(kStart + 3 * kSec)) << "the end is not in the range";
  EXPECT_TRUE(r.contains(kStart + 1'500'000'000));
  r = parse_time_range("5,", kStart, 0);
  EXPECT_EQ(r.from_ns, kStart + 5 * kSec);
  EXPECT_EQ(r.to_ns, UINT64_MAX);
  r = parse_time_range(",2", kStart, 0);
  EXPECT_EQ(r.from_ns, 0u);
  EXPECT_EQ(r.to_ns, kStart + 2 * kSec);
}

TEST(SampleSelection, TimeRangeInPercentOfTheLength) {
  const TimeRange r = parse_time_range("10%,20%", kStart, 10 * kSec);
  EXPECT_EQ(r.from_ns, kStart + kSec);
  EXPECT_EQ(r.to_ns, kStart + 2 * kSec);
  EXPECT_EQ(parse_time_range("50%,", kStart, 4 * kSec).from_ns, kStart + 2 * kSec);
  const TimeRange perfs = parse_time_range("10%-20%", kStart, 10 * kSec);  // perf's form
  EXPECT_EQ(perfs.from_ns, r.from_ns);
  EXPECT_EQ(perfs.to_ns, r.to_ns);
}

TEST(SampleSelection, BadTimeRangesAreRefused) {
  for (const char* bad :
       {"", "1", ",", "1,2,3", "a,2", "2,1", "1,1", "-1,2", "10%,200%", "nan,1"}) {
    EXPECT_EQ(exit_code_of([&] { parse_time_range(bad, kStart, 10 * kSec); }), 2) << bad;
  }
  EXPECT_EQ(exit_code_of([&] { parse_time_range("10%,20%", kStart, 0); }), 2)
      << "percent of an unknown length";
}

TEST(SampleSelection, DescribesWhatWasTyped) {
  SampleSelection s{.tids = {12, 13}, .cpus = {0}, .time = "1,2"};
  EXPECT_EQ(s.describe(), "--tid 12,13 --cpu 0 --time 1,2");
  EXPECT_TRUE(SampleSelection{}.empty());
  EXPECT_FALSE(s.empty());
}

class Recorder : public RecordSink {
 public:
  void on_sample(const Sample& s) override { samples.push_back(s); }
  void on_mmap(const Mmap&) override { ++side; }
  void on_comm(const Comm&) override { ++side; }
  void on_fork(const Fork&) override { ++side; }
  void on_switch(const Switch&) override { ++side; }
  std::vector<Sample> samples;
  int side = 0;
};

Sample at(uint32_t tid, uint32_t cpu, uint64_t t, SampleKind kind = SampleKind::Cpu) {
  Sample s;
  s.pid = 100;
  s.tid = tid;
  s.cpu = cpu;
  s.time = kStart + t * kSec;
  s.kind = kind;
  return s;
}

TEST(SelectingSink, KeepsTheSelectedCpuSamplesAndEveryOtherRecord) {
  Recorder next;
  const SampleSelection sel{.tids = {101}, .cpus = {1}};
  SelectingSink sink(next, sel, parse_time_range("1,3", kStart, 0));
  sink.on_comm(Comm{0, 100, 100, true, "app"});
  sink.on_fork(Fork{0, 100, 100, 101, 100});
  sink.on_mmap(Mmap{});
  sink.on_switch(Switch{});
  sink.on_sample(at(101, 1, 2));                         // kept
  sink.on_sample(at(100, 1, 2));                         // another thread
  sink.on_sample(at(101, 0, 2));                         // another CPU
  sink.on_sample(at(101, 1, 0));                         // before the range
  sink.on_sample(at(101, 1, 3));                         // at its end: out
  sink.on_sample(at(100, 0, 5, SampleKind::SwitchOut));  // off-CPU: always passes
  ASSERT_EQ(next.samples.size(), 2u);
  EXPECT_EQ(next.samples[0], at(101, 1, 2));
  EXPECT_EQ(next.samples[1].kind, SampleKind::SwitchOut);
  EXPECT_EQ(next.side, 4);
  const SelectingSink::Seen& seen = sink.seen();
  EXPECT_EQ(seen.total, 5u) << "CPU samples only";
  EXPECT_EQ(seen.kept, 1u);
  EXPECT_EQ(seen.tids.at(101), 4u);
  EXPECT_EQ(seen.tids.at(100), 1u);
  EXPECT_EQ(seen.cpus.at(0), 1u);
  EXPECT_EQ(seen.first_ns, kStart);
  EXPECT_EQ(seen.last_ns, kStart + 3 * kSec);
  EXPECT_EQ(seen.names.at(101), "app") << "a thread is named as its parent";
}

// A recording of several events: the first's samples are Cpu, the others'
// Event with their number. Asked for event 2, the sink passes its samples on
// as Cpu ones (every counter counts those) and leaves out the rest; asked
// for none, the first event's alone.
TEST(SelectingSink, PicksOneEventOfSeveral) {
  auto of_event = [](uint32_t event, uint64_t t) {
    Sample s = at(101, 0, t, event == 0 ? SampleKind::Cpu : SampleKind::Event);
    s.event = event;
    return s;
  };
  for (uint32_t event : {0u, 2u}) {
    Recorder next;
    SelectingSink sink(next, SampleSelection{.cpus = {0}}, TimeRange{}, event);
    for (uint64_t t = 0; t < 6; ++t) sink.on_sample(of_event(static_cast<uint32_t>(t % 3), t));
    sink.on_sample(at(100, 0, 7, SampleKind::SwitchOut));
    ASSERT_EQ(next.samples.size(), 3u) << "event " << event;
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(next.samples[i].kind, SampleKind::Cpu);
      EXPECT_EQ(next.samples[i].event, 0u);
      EXPECT_EQ(next.samples[i].time, of_event(event, event + 3 * i).time);
    }
    EXPECT_EQ(next.samples[2].kind, SampleKind::SwitchOut) << "off-CPU samples always pass";
    EXPECT_EQ(sink.seen().total, 2u) << "the chosen event's samples";
    EXPECT_EQ(sink.seen().kept, 2u);
  }
}

TEST(SelectingSink, AnEmptySelectionKeepsEverything) {
  Recorder next;
  SelectingSink sink(next, SampleSelection{}, TimeRange{});
  for (uint32_t i = 0; i < 10; ++i) sink.on_sample(at(100 + i % 3, i % 2, i));
  EXPECT_EQ(next.samples.size(), 10u);
  EXPECT_EQ(sink.seen().kept, sink.seen().total);
  // Nothing names a thread or CPU: none is counted (only --tid and --cpu
  // say what exists).
  EXPECT_TRUE(sink.seen().tids.empty());
  EXPECT_TRUE(sink.seen().cpus.empty());
}

// Threads are counted per CPU in runs (a count is looked up once a run):
// what seen() says must be each thread's and CPU's plain count, wherever
// runs break, and also when asked mid-run. They are counted when the
// selection names CPUs or threads (here every CPU, so all are kept).
TEST(SelectingSink, CountsEveryThreadAndCpuWhereverRunsBreak) {
  Recorder next;
  SampleSelection every_cpu;
  every_cpu.cpus = {0, 1, 2, 3};
  SelectingSink sink(next, every_cpu, TimeRange{});
  std::map<uint32_t, uint64_t> tids, cpus;
  uint64_t x = 12345;
  for (uint32_t i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto cpu = static_cast<uint32_t>(x >> 62);              // 0..3
    const auto tid = 100 + static_cast<uint32_t>((x >> 40) % 4);  // runs of 1 sample and more
    const uint32_t run = 1 + static_cast<uint32_t>((x >> 20) % 5);
    for (uint32_t k = 0; k < run; ++k) sink.on_sample(at(tid, cpu, i));
    tids[tid] += run;
    cpus[cpu] += run;
    if (i == 2500) {
      EXPECT_EQ(sink.seen().tids, tids) << "asked mid-run";
    }
  }
  const SelectingSink::Seen seen = sink.seen();
  EXPECT_EQ(seen.tids, tids);
  EXPECT_EQ(seen.cpus, cpus);
  EXPECT_EQ(seen.total, next.samples.size());
}

}  // namespace
}  // namespace kprof
