// The default diff's short off-CPU section (report/off_cpu.h): one row per
// kernel, its shares summed over the kernel's runs and its ms and switches
// the mean per run.
#include "report/off_cpu.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kprof {
namespace {

OffCpu run_of(uint64_t on_ms, uint64_t blocked_ms, uint64_t runq_ms, uint64_t switches) {
  OffCpu o;
  o.tick_ns = 1'000'000;
  OffCpuThread t;
  t.pid = t.tid = 7;
  t.start_ns = 1'000;
  t.on_ns = on_ms * 1'000'000;
  t.blocked_ns = blocked_ms * 1'000'000;
  t.runq_ns = runq_ms * 1'000'000;
  t.end_ns = t.start_ns + t.on_ns + t.blocked_ns + t.runq_ns;
  o.threads = {t};
  o.switches = switches;
  return o;
}

std::string row_of(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(label + " ", 0) == 0) return line;
  }
  return "";
}

TEST(OffCpuComparison, OneRowPerKernelOverItsRuns) {
  const OffCpu a = run_of(900, 0, 100, 200);
  // Two runs: 600+400 ms on CPU, 300+500 blocked, 100+100 queued; 10 and 30 switches.
  const OffCpu b1 = run_of(600, 300, 100, 10), b2 = run_of(400, 500, 100, 30);
  std::ostringstream out;
  write_off_cpu_comparison(out, {{"generic", {&a}}, {"rt", {&b1, &b2}}});
  const std::string text = out.str();
  // kernel runs threads on% blocked% runq% blocked-ms runq-ms switches
  EXPECT_EQ(row_of(text, "generic").substr(0, 7), "generic");
  std::istringstream g(row_of(text, "generic")), r(row_of(text, "rt"));
  std::string label, runs, threads, on, blocked, runq, blocked_ms, runq_ms, switches;
  g >> label >> runs >> threads >> on >> blocked >> runq >> blocked_ms >> runq_ms >> switches;
  EXPECT_EQ(runs, "1");
  EXPECT_EQ(on, "90.0");
  EXPECT_EQ(runq, "10.0");
  EXPECT_EQ(switches, "200");
  r >> label >> runs >> threads >> on >> blocked >> runq >> blocked_ms >> runq_ms >> switches;
  EXPECT_EQ(runs, "2");
  EXPECT_EQ(threads, "1.0");
  EXPECT_EQ(on, "50.0");           // 1000 of 2000 ms
  EXPECT_EQ(blocked, "40.0");      // 800 of 2000 ms
  EXPECT_EQ(blocked_ms, "400.0");  // per run
  EXPECT_EQ(runq_ms, "100.0");
  EXPECT_EQ(switches, "20");
  EXPECT_NE(text.find("per run, the mean over the kernel's runs"), std::string::npos) << text;
}

}  // namespace
}  // namespace kprof
