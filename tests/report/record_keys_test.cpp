// --sort tid / cpu (report/record_keys.h) on records made in code: one row
// per thread (named as perf names it) or CPU, or per (thread, leaf
// function); kprof's own samples left out; the filters. The same tables
// from a profile's per-thread table (thread_table_histogram) must
// equal those counted from the records, and so must --tid / --cpu's.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "report/record_keys.h"

namespace kprof {
namespace {

constexpr uint64_t kKernel = 0xffffffff81001000ULL;

class OffsetNames : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap& m, std::span<const uint64_t> ips,
                                   std::string*) override {
    std::vector<std::string> out;
    for (uint64_t ip : ips) out.push_back(ip - m.start < 0x1000 ? "low" : "high");
    return out;
  }
};

Sample sample(uint32_t tid, uint32_t cpu, uint64_t ip, Mode mode = Mode::User) {
  Sample s;
  s.pid = tid == 21 ? 20 : tid;  // 21 is a thread of process 20
  s.tid = tid;
  s.cpu = cpu;
  s.ip = ip;
  s.mode = mode;
  s.period = 1000;
  return s;
}

// Process 10 "app" with /bin/app mapped; 11 forked from it; 20 "db" with a
// thread 21 (a fork of 20 sharing its pid); 99 is kprof.
void replay(RecordSink& sink) {
  sink.on_comm({.pid = 10, .tid = 10, .comm = "app"});
  sink.on_comm({.pid = 20, .tid = 20, .comm = "db"});
  sink.on_comm({.pid = 99, .tid = 99, .comm = "kprof"});
  sink.on_mmap({.pid = 10, .tid = 10, .start = 0x400000, .len = 0x2000, .filename = "/bin/app"});
  sink.on_fork({.pid = 11, .ppid = 10, .tid = 11, .ptid = 10});
  sink.on_fork({.pid = 20, .ppid = 20, .tid = 21, .ptid = 20});
  for (int i = 0; i < 3; ++i) sink.on_sample(sample(10, 0, 0x400100));
  sink.on_sample(sample(10, 1, 0x401100));
  sink.on_sample(sample(11, 1, 0x400100));
  sink.on_sample(sample(21, 1, kKernel, Mode::Kernel));
  sink.on_sample(sample(99, 0, kKernel, Mode::Kernel));
  sink.on_sample(sample(0, 0, kKernel, Mode::Kernel));  // the idle task: no COMM record
}

// The profile kprof record would store for replay(): its flat table and
// per-thread table.
SymbolizedCounts recorded() {
  AddressAggregator agg;
  agg.leave_out(99);
  agg.count_threads();
  replay(agg);
  const KernelSymbols kernel = KernelSymbols::parse("ffffffff81001000 T do_syscall_64\n", "");
  OffsetNames user;
  SymbolizedCounts named = symbolize_counts(agg.counts(), kernel, user);
  EXPECT_TRUE(named.threads);
  return named;
}

// rows() from the stored tables instead of the records.
std::map<std::string, uint64_t> stored_rows(RecordKey key, bool functions,
                                            const SampleFilter* filter) {
  const SymbolizedCounts named = recorded();
  const auto ranks = named.threads->rows_of(named.histogram);
  EXPECT_TRUE(ranks);
  uint64_t kept = 0, total = 0;
  const Histogram h =
      thread_table_histogram(*named.threads, named.histogram, *ranks, key, functions,
                             filter ? *filter : SampleFilter{}, &kept, &total);
  EXPECT_EQ(total, 7u);  // every sample but kprof's own
  std::map<std::string, uint64_t> out;
  for (const FunctionCount& r : h.rows) {
    out[h.images.at(r.image).name + "|" + r.function] += r.samples;
  }
  return out;
}

// Rows as "LABEL|FUNCTION" -> samples.
std::map<std::string, uint64_t> rows(RecordKey key, bool functions,
                                     const SampleFilter* filter = nullptr) {
  RecordKeyCounter counter(key, 99, filter);
  replay(counter);
  const KernelSymbols kernel = KernelSymbols::parse("ffffffff81001000 T do_syscall_64\n", "");
  OffsetNames user;
  const Histogram h = record_key_histogram(counter, kernel, user, functions);
  std::map<std::string, uint64_t> out;
  for (const FunctionCount& r : h.rows)
    out[h.images.at(r.image).name + "|" + r.function] += r.samples;
  if (!filter || filter->records.empty()) {
    EXPECT_EQ(out, stored_rows(key, functions, filter)) << "the stored table disagrees";
  }
  return out;
}

TEST(RecordKeys, ThreadsNamedAsPerfNamesThem) {
  const std::map<std::string, uint64_t> want = {
      {"10 app|", 4}, {"11 app|", 1}, {"21 db|", 1}, {"0 swapper|", 1}};
  EXPECT_EQ(rows(RecordKey::Tid, false), want);
}

TEST(RecordKeys, ThreadsAndTheirLeafFunctions) {
  const std::map<std::string, uint64_t> want = {{"10 app|low", 3},
                                                {"10 app|high", 1},
                                                {"11 app|low", 1},
                                                {"21 db|do_syscall_64", 1},
                                                {"0 swapper|do_syscall_64", 1}};
  EXPECT_EQ(rows(RecordKey::Tid, true), want);
}

TEST(RecordKeys, Cpus) {
  const std::map<std::string, uint64_t> want = {{"cpu 0|", 4}, {"cpu 1|", 3}};
  EXPECT_EQ(rows(RecordKey::Cpu, false), want);
  const std::map<std::string, uint64_t> by_function = {{"cpu 0|low", 3},
                                                       {"cpu 0|do_syscall_64", 1},
                                                       {"cpu 1|low", 1},
                                                       {"cpu 1|high", 1},
                                                       {"cpu 1|do_syscall_64", 1}};
  EXPECT_EQ(rows(RecordKey::Cpu, true), by_function);
}

TEST(RecordKeys, FiltersByProcessImageAndFunction) {
  SampleFilter comm;
  comm.comms = {"db"};
  EXPECT_EQ(rows(RecordKey::Tid, false, &comm), (std::map<std::string, uint64_t>{{"21 db|", 1}}));
  SampleFilter pid;
  pid.pids = {11};
  EXPECT_EQ(rows(RecordKey::Cpu, false, &pid), (std::map<std::string, uint64_t>{{"cpu 1|", 1}}));
  SampleFilter dso;
  dso.dsos = {"[kernel.kallsyms]"};
  EXPECT_EQ(
      rows(RecordKey::Cpu, true, &dso),
      (std::map<std::string, uint64_t>{{"cpu 0|do_syscall_64", 1}, {"cpu 1|do_syscall_64", 1}}));
  SampleFilter symbol;
  symbol.symbols = {"high"};
  EXPECT_EQ(rows(RecordKey::Tid, false, &symbol),
            (std::map<std::string, uint64_t>{{"10 app|", 1}}));
  SampleFilter idle;
  idle.comms = {"swapper"};
  EXPECT_EQ(rows(RecordKey::Cpu, false, &idle), (std::map<std::string, uint64_t>{{"cpu 0|", 1}}));
  SampleFilter none;
  none.comms = {"postgres"};
  try {
    rows(RecordKey::Tid, false, &none);
    FAIL() << "no sample was left, and no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_NE(std::string(e.what()).find("--comm postgres"), std::string::npos) << e.what();
  }
}

TEST(RecordKeys, StoredTableKeepsProcessesForAFlatProfile) {
  // Thread 21 of process 20 "db" is the one sample of pid 20; 11 "app" was forked from 10.
  const std::map<std::string, uint64_t> by_pid = {
      {"10 app|", 4}, {"11 app|", 1}, {"20 db|", 1}, {"0 swapper|", 1}};
  EXPECT_EQ(stored_rows(RecordKey::Pid, false, nullptr), by_pid);
  const std::map<std::string, uint64_t> by_comm = {{"app|", 5}, {"db|", 1}, {"swapper|", 1}};
  EXPECT_EQ(stored_rows(RecordKey::Comm, false, nullptr), by_comm);
  SampleFilter cpu1;
  cpu1.records.cpus = {1};
  const std::map<std::string, uint64_t> comm_functions = {
      {"app|low", 1}, {"app|high", 1}, {"db|do_syscall_64", 1}};
  EXPECT_EQ(stored_rows(RecordKey::Comm, true, &cpu1), comm_functions);
}

TEST(RecordKeys, StoredTableAnswersTidAndCpuFilters) {
  const SymbolizedCounts named = recorded();
  const auto ranks = named.threads->rows_of(named.histogram);
  ASSERT_TRUE(ranks);
  // --sort cpu --tid 10: thread 10's samples on each CPU.
  SampleFilter tid;
  tid.records.tids = {10};
  uint64_t kept = 0, total = 0;
  const Histogram by_cpu = thread_table_histogram(*named.threads, named.histogram, *ranks,
                                                  RecordKey::Cpu, false, tid, &kept, &total);
  EXPECT_EQ(kept, 4u);
  std::map<std::string, uint64_t> got;
  for (const FunctionCount& r : by_cpu.rows) got[by_cpu.images.at(r.image).name] += r.samples;
  EXPECT_EQ(got, (std::map<std::string, uint64_t>{{"cpu 0", 3}, {"cpu 1", 1}}));
  // --cpu 1 on the flat table: each function's samples on CPU 1, counted as
  // a SelectingSink counts what it sees.
  SampleSelection cpu1;
  cpu1.cpus = {1};
  SelectingSink::Seen seen;
  const Histogram h = thread_table_selection(*named.threads, named.histogram, *ranks, cpu1, seen);
  std::map<std::string, uint64_t> functions;
  for (const FunctionCount& r : h.rows) {
    functions[r.function] += r.samples;
    EXPECT_TRUE(r.slices.empty());
    EXPECT_EQ(r.peak_samples, 0u);
  }
  EXPECT_EQ(functions,
            (std::map<std::string, uint64_t>{{"low", 1}, {"high", 1}, {"do_syscall_64", 1}}));
  EXPECT_EQ(seen.total, 7u);
  EXPECT_EQ(seen.kept, 3u);
  EXPECT_EQ(seen.cpus, (std::map<uint32_t, uint64_t>{{0, 4}, {1, 3}}));
  EXPECT_EQ(seen.tids.at(10), 4u);
  EXPECT_EQ(seen.names.at(11), "app");
  EXPECT_EQ(seen.names.at(0), "swapper");
}

}  // namespace
}  // namespace kprof
