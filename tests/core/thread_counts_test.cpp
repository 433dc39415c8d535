// The per-thread table (core/thread_counts.h): counted beside the address
// counts, named into the flat table's ranks, stored and read back, and
// refused where it does not count the flat table it is given.
#include "core/thread_counts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "core/stacks.h"

namespace kprof {
namespace {

constexpr uint64_t kFirst = 0xffffffff81000000ULL, kSecond = 0xffffffff81000100ULL;
constexpr const char* kKallsyms = "ffffffff81000000 T first\nffffffff81000100 T second\n";

Sample kernel_sample(uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t ip, uint64_t period = 10) {
  Sample s;
  s.ip = ip;
  s.pid = pid;
  s.tid = tid;
  s.cpu = cpu;
  s.mode = Mode::Kernel;
  s.period = period;
  return s;
}

// (tid, thread name, cpu, function) -> samples, from a named table.
using Cells = std::map<std::tuple<uint32_t, std::string, uint32_t, std::string>, uint64_t>;
Cells cells(const ThreadCounts& t, const Histogram& flat) {
  const auto rows = t.rows_of(flat);
  EXPECT_TRUE(rows);
  Cells out;
  if (!rows) return out;
  for (const ThreadCpuRow& r : t.rows) {
    const CountedThread& th = t.threads.at(r.thread);
    out[{th.tid, th.name, r.cpu, flat.rows.at((*rows)[r.leaf]).function}] += r.samples;
  }
  return out;
}

// Two processes on two CPUs; 21 renames itself half way (as an exec does).
void feed(AddressAggregator& a) {
  a.on_comm(Comm{0, 20, 20, false, "app"});
  a.on_comm(Comm{0, 21, 21, false, "tool"});
  a.on_fork(Fork{0, 20, 20, 22, 20});  // a thread of 20: named as its parent
  for (int i = 0; i < 5; ++i) a.on_sample(kernel_sample(20, 20, 0, kFirst + 4 * (i % 2)));
  for (int i = 0; i < 3; ++i) a.on_sample(kernel_sample(20, 22, 1, kSecond));
  a.on_sample(kernel_sample(21, 21, 1, kFirst));
  a.on_comm(Comm{0, 21, 21, true, "tool2"});
  a.on_sample(kernel_sample(21, 21, 0, kFirst));
  a.on_sample(kernel_sample(21, 21, 0, kSecond, 30));
}

TEST(ThreadCounts, CountedBesideTheAddressesAndNamedIntoTheFlatTable) {
  for (const bool stacks : {false, true}) {
    AddressAggregator a(stacks);
    a.count_threads();
    feed(a);
    NullUserResolver null;
    const SymbolizedCounts named =
        symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), null);
    ASSERT_TRUE(named.threads) << stacks;
    const Cells got = cells(*named.threads, named.histogram);
    const Cells want = {{{20, "app", 0, "first"}, 5},
                        {{22, "app", 1, "second"}, 3},
                        {{21, "tool", 1, "first"}, 1},
                        {{21, "tool2", 0, "first"}, 1},
                        {{21, "tool2", 0, "second"}, 1}};
    EXPECT_EQ(got, want) << stacks;
    // Two addresses of `first` on one thread and CPU are one row.
    EXPECT_EQ(named.threads->rows.size(), want.size()) << stacks;
    uint64_t period = 0;
    for (const ThreadCpuRow& r : named.threads->rows) period += r.period;
    EXPECT_EQ(period, 10u * 10 + 30);
  }
}

TEST(ThreadCounts, NotCountedUnlessAsked) {
  AddressAggregator a;
  feed(a);
  NullUserResolver null;
  EXPECT_FALSE(symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), null).threads);
}

TEST(ThreadCounts, RanksHoldInAnyRowOrderAndMismatchesAreRefused) {
  AddressAggregator a;
  a.count_threads();
  feed(a);
  NullUserResolver null;
  const SymbolizedCounts named =
      symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), null);
  ASSERT_TRUE(named.threads);
  const Cells want = cells(*named.threads, named.histogram);
  // Stored rows come back in another order (the column encoder sorts them).
  Histogram shuffled = named.histogram;
  std::reverse(shuffled.rows.begin(), shuffled.rows.end());
  EXPECT_EQ(cells(*named.threads, shuffled), want);
  // A flat table it does not count: other samples, a row more, a leaf out of range.
  Histogram other = named.histogram;
  other.rows[0].samples += 1;
  EXPECT_FALSE(named.threads->rows_of(other));
  other = named.histogram;
  other.rows.push_back({0, "third", Mode::Kernel, 1, 1});
  EXPECT_FALSE(named.threads->rows_of(other));
  ThreadCounts bad = *named.threads;
  bad.rows[0].leaf = 99;
  EXPECT_FALSE(bad.rows_of(named.histogram));
}

TEST(ThreadCounts, RoundTripsAndRejectsDamage) {
  ThreadCounts t;
  t.threads = {{7, 7, "postgres"}, {8, 7, ""}, {4000000000u, 1, "big"}};
  t.rows = {{0, 0, 0, 5, 50}, {1, 3, 1, 2, 20}, {2, 1, 0, 1, 10}};
  const std::vector<uint8_t> bytes = encode_thread_counts(t);
  EXPECT_EQ(decode_thread_counts(bytes), t);
  // Every cut is damage, never a crash.
  for (size_t n = 1; n < bytes.size(); ++n) {
    try {
      (void)decode_thread_counts(std::span(bytes.data(), n));
    } catch (const Error&) {
    }
  }
  ThreadCounts orphan = t;
  orphan.rows.push_back({3, 0, 0, 1, 1});  // no thread 3
  EXPECT_THROW(decode_thread_counts(encode_thread_counts(orphan)), Error);
}

}  // namespace
}  // namespace kprof
