// PeriodDither (collector/period_dither.h) without a kernel: its ioctl is
// replaced by a recorder of the periods it sets, and the rings' records are
// built by hand.
#include "collector/period_dither.h"

#include <linux/perf_event.h>

#include <cerrno>
#include <cmath>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/perfabi/perf_record_builder.h"

namespace kprof::collector {
namespace {

using perfabi::testing::PerfRecord;

constexpr uint64_t kPeriod = 1'001'001;  // -F 999

std::vector<uint8_t> sample(uint32_t tid, uint64_t id = 0, bool with_id = false) {
  PerfRecord r(PERF_RECORD_SAMPLE);
  if (with_id) r.u64(id);
  r.u64(0x401000).u32(tid).u32(tid).u64(1000).u32(0).u32(0).u64(kPeriod);
  return r.done();
}

std::vector<uint8_t> concat(const std::vector<std::vector<uint8_t>>& records) {
  std::vector<uint8_t> out;
  for (const auto& r : records) out.insert(out.end(), r.begin(), r.end());
  return out;
}

struct SetCalls {
  std::vector<std::pair<int, uint64_t>> calls;
  int fail_with = 0;
  PeriodDither::SetPeriod fn() {
    return [this](int fd, uint64_t period) {
      calls.emplace_back(fd, period);
      return fail_with;
    };
  }
};

// Feeds `n` samples of task `tid` into ring `ring`.
void feed(PeriodDither& d, size_t ring, uint32_t tid, int n) {
  std::vector<std::vector<uint8_t>> recs(static_cast<size_t>(n), sample(tid));
  const std::vector<uint8_t> bytes = concat(recs);
  d.saw(ring, bytes);
}

TEST(PeriodDither, RestartsATaskOnlyAfterAWindowOfItsOwnSamples) {
  SetCalls set;
  // The workload's task 42 on two CPUs (rings 0 and 1).
  PeriodDither d({{3, 0, 42}, {4, 1, 42}}, kPeriod, perfabi::testing::kLayout, 1, set.fn());
  feed(d, 0, 42, PeriodDither::kMinWindow - 1);
  feed(d, 0, 77, 100);  // another task (a child): not fd 3's samples
  feed(d, 1, 77, 100);
  EXPECT_EQ(d.restart_due(), 0u);
  EXPECT_TRUE(set.calls.empty());
  feed(d, 0, 42, 1);
  EXPECT_EQ(d.restart_due(), 1u);
  ASSERT_EQ(set.calls.size(), 1u);
  EXPECT_EQ(set.calls[0].first, 3);
  // Counting starts again from the restart.
  EXPECT_EQ(d.restart_due(), 0u);
  EXPECT_EQ(d.restarts(), 1u);
}

// -p PID: one event per thread and CPU, the threads' samples in their CPU's
// ring; each counts its own.
TEST(PeriodDither, EachThreadOfARingCountsItsOwn) {
  SetCalls set;
  PeriodDither d({{5, 0, 100}, {4, 0, 42}, {3, 0, 7}, {6, 1, 42}}, kPeriod,
                 perfabi::testing::kLayout, 1, set.fn());
  feed(d, 0, 42, PeriodDither::kMinWindow);
  feed(d, 0, 100, PeriodDither::kMinWindow - 1);
  feed(d, 0, 8, 100);
  EXPECT_EQ(d.restart_due(), 1u);
  ASSERT_EQ(set.calls.size(), 1u);
  EXPECT_EQ(set.calls[0].first, 4);
  feed(d, 0, 100, 1);
  EXPECT_EQ(d.restart_due(), 1u);
  ASSERT_EQ(set.calls.size(), 2u);
  EXPECT_EQ(set.calls[1].first, 5);
}

TEST(PeriodDither, EveryTaskOfACpuCountsForASystemWideEvent) {
  SetCalls set;
  PeriodDither d({{5, 1, -1}}, kPeriod, perfabi::testing::kLayout, 1, set.fn());
  feed(d, 0, 9, 100);  // another CPU's ring
  EXPECT_EQ(d.restart_due(), 0u);
  feed(d, 1, 9, 4);
  feed(d, 1, 10, 4);
  EXPECT_EQ(d.restart_due(), 1u);
}

// A ring's wrap cuts records anywhere: the two parts count as one.
TEST(PeriodDither, RecordsCutByTheRingsWrapAreCountedOnce) {
  const std::vector<uint8_t> bytes = concat({sample(42), sample(42), sample(42)});
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    SetCalls set;
    PeriodDither d({{3, 0, 42}}, kPeriod, perfabi::testing::kLayout, 1, set.fn());
    for (int i = 0; i < 2; ++i) {
      d.saw(0, std::span(bytes).first(cut), std::span(bytes).subspan(cut));
    }
    feed(d, 0, 42, static_cast<int>(PeriodDither::kMinWindow) - 7);
    EXPECT_EQ(d.restart_due(), 0u) << "cut at " << cut;
    feed(d, 0, 42, 1);
    EXPECT_EQ(d.restart_due(), 1u) << "cut at " << cut;
  }
}

// Bytes that are not whole records (a size below a header's, a sample cut
// short, a size past the end) are not counted and not read past: counting
// stops there, and the next whole records count again.
TEST(PeriodDither, BrokenRecordsAreNotCountedOrReadPast) {
  SetCalls set;
  PeriodDither d({{3, 0, 42}}, kPeriod, perfabi::testing::kLayout, 1, set.fn());
  std::vector<uint8_t> zero_size = sample(42);
  zero_size[6] = zero_size[7] = 0;
  std::vector<uint8_t> short_sample = PerfRecord(PERF_RECORD_SAMPLE).u64(0x401000).done();
  std::vector<uint8_t> past_end = sample(42);
  past_end[6] = 0xff;
  for (const auto& bad : {zero_size, short_sample, past_end}) {
    for (int i = 0; i < 20; ++i) d.saw(0, bad);
    d.saw(0, std::span(bad).first(3));  // not even a header
  }
  EXPECT_EQ(d.restart_due(), 0u);
  EXPECT_TRUE(set.calls.empty());
  feed(d, 0, 42, PeriodDither::kMinWindow);
  EXPECT_EQ(d.restart_due(), 1u);
}

// With -e A,B or --off-cpu the rings hold other events' samples too, told
// apart by PERF_SAMPLE_IDENTIFIER: they are not the clock's.
TEST(PeriodDither, OtherEventsSamplesAreNotCounted) {
  perfabi::SampleLayout layout{perfabi::testing::kSampleType | PERF_SAMPLE_IDENTIFIER, true};
  layout.kinds = {{777, SampleKind::Event, 1}};
  SetCalls set;
  PeriodDither d({{3, 0, 42}}, kPeriod, layout, 1, set.fn());
  std::vector<std::vector<uint8_t>> other(50, sample(42, 777, true));
  d.saw(0, concat(other));
  EXPECT_EQ(d.restart_due(), 0u);
  std::vector<std::vector<uint8_t>> own(PeriodDither::kMinWindow, sample(42, 5, true));
  d.saw(0, concat(own));
  EXPECT_EQ(d.restart_due(), 1u);
}

// Rates uniform within ±kSpread of nominal (raised by half a sample a
// window), each with a window of samples in proportion to its rate: the
// mean rate is -F's, and a window lasts about the same time at any rate.
TEST(PeriodDither, DrawsSpreadTheRateEvenlyAroundTheNominalOne) {
  PeriodDither d({}, kPeriod, perfabi::testing::kLayout, 7, SetCalls().fn());
  const double raise = 1 + 0.5 / (2.0 * PeriodDither::kMinWindow);
  double sum_rate = 0, sum_window_time = 0;
  double lo = 1e9, hi = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) {
    const PeriodDither::Draw draw = d.draw();
    const double rate = static_cast<double>(kPeriod) / static_cast<double>(draw.period_ns);
    lo = std::min(lo, rate);
    hi = std::max(hi, rate);
    sum_rate += rate;
    sum_window_time += static_cast<double>(draw.window) / rate;
    EXPECT_GE(draw.window, 1u);
  }
  EXPECT_NEAR(lo, (1 - PeriodDither::kSpread) * raise, 0.01);
  EXPECT_NEAR(hi, (1 + PeriodDither::kSpread) * raise, 0.01);
  EXPECT_NEAR(sum_rate / kDraws, raise, 0.01);
  // kMinWindow nominal periods a window, whatever its rate (to rounding).
  EXPECT_NEAR(sum_window_time / kDraws * raise, PeriodDither::kMinWindow, 0.1);
}

TEST(PeriodDither, ARefusedIoctlStopsItAndAnExitedTaskDoesNot) {
  SetCalls set;
  PeriodDither d({{3, 0, 42}, {4, 1, 42}}, kPeriod, perfabi::testing::kLayout, 1, set.fn());
  EXPECT_EQ(d.probe(), "");
  EXPECT_EQ(set.calls.size(), 2u);
  EXPECT_EQ(set.calls[0].second, kPeriod);  // the probe sets the nominal period
  set.fail_with = ESRCH;                    // the task has exited
  feed(d, 0, 42, PeriodDither::kMinWindow);
  EXPECT_EQ(d.restart_due(), 1u);
  EXPECT_EQ(d.failure(), "");
  set.fail_with = ENOTTY;
  feed(d, 1, 42, PeriodDither::kMinWindow);
  EXPECT_EQ(d.restart_due(), 0u);
  EXPECT_NE(d.failure().find("PERF_EVENT_IOC_PERIOD"), std::string::npos) << d.failure();
  feed(d, 1, 42, PeriodDither::kMinWindow);
  const size_t calls = set.calls.size();
  EXPECT_EQ(d.restart_due(), 0u);
  EXPECT_EQ(set.calls.size(), calls);

  SetCalls refused;
  refused.fail_with = EINVAL;
  PeriodDither old_kernel({{3, 0, 42}}, kPeriod, perfabi::testing::kLayout, 1, refused.fn());
  EXPECT_NE(old_kernel.probe(), "");
}

TEST(PeriodDither, LooksAtTheRingsAboutEveryWindow) {
  const auto poll = [](uint64_t period) {
    return PeriodDither({}, period, perfabi::testing::kLayout, 1, SetCalls().fn()).poll_ms();
  };
  EXPECT_EQ(poll(1'001'001), 16);       // -F 999: 2 x 8 periods
  EXPECT_EQ(poll(100'000), 10);         // -F 10000: no faster than 100 a second
  EXPECT_EQ(poll(1'000'000'000), 100);  // -F 1: as without dithering
}

}  // namespace
}  // namespace kprof::collector
