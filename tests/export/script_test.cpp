// kprof script's writer (export/script.h) on records made in code: perf
// script's layout and widths, names from an AddressNames of the same
// records, process names as perf keeps them, the filters, the -F syntax.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "export/script.h"

namespace kprof {
namespace {

constexpr uint64_t kKernelBase = 0xffffffff81000000ULL;
constexpr const char* kKallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81001000 T do_syscall_64\n"
    "ffffffff81002000 T entry_SYSCALL_64\n"
    "ffffffff82000000 T _etext\n";

// Names an ip of /bin/app by its offset: "f_<hex offset>".
class FakeResolver : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap& m, std::span<const uint64_t> ips,
                                   std::string*) override {
    std::vector<std::string> out;
    for (uint64_t ip : ips) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "f_%llx", static_cast<unsigned long long>(ip - m.start));
      out.emplace_back(buf);
    }
    return out;
  }
};

// Records of one run: app (pid 10) forks a child (pid 11), kprof (pid 99)
// samples itself.
struct Records {
  std::vector<Sample> samples;
  void replay(RecordSink& sink) const {
    sink.on_comm({.time = 1, .pid = 10, .tid = 10, .comm = "app"});
    sink.on_comm({.time = 1, .pid = 99, .tid = 99, .comm = "kprof"});
    sink.on_mmap({.time = 2,
                  .pid = 10,
                  .tid = 10,
                  .start = 0x400000,
                  .len = 0x10000,
                  .filename = "/bin/app"});
    sink.on_fork({.time = 3, .pid = 11, .ppid = 10, .tid = 11, .ptid = 10});
    for (const Sample& s : samples) sink.on_sample(s);
  }
};

Sample user_sample(uint32_t pid, uint64_t time_ns, uint64_t ip, std::vector<uint64_t> chain = {}) {
  Sample s;
  s.time = time_ns;
  s.pid = s.tid = pid;
  s.cpu = 1;
  s.ip = ip;
  s.mode = Mode::User;
  s.period = 1001001;
  s.callchain = std::move(chain);
  s.kernel_frames = 0;
  return s;
}

std::string script(const Records& run, bool chains, ScriptFields fields = {},
                   const SampleFilter* filter = nullptr, uint64_t* printed = nullptr) {
  AddressAggregator first(chains);
  first.leave_out(99);
  run.replay(first);
  const KernelSymbols kernel = KernelSymbols::parse(kKallsyms, "");
  FakeResolver resolver;
  const AddressNames names(first.counts(), kernel, resolver);
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  {
    ScriptWriter w(out, names,
                   {.fields = fields,
                    .event = "cpu-clock",
                    .callchains = chains,
                    .leave_out_pid = 99,
                    .filter = filter});
    run.replay(w);
    w.finish();
    if (printed) *printed = w.printed();
  }
  std::fclose(out);
  std::string s(text, size);
  std::free(text);
  return s;
}

TEST(Script, OneLineASampleInPerfsWidths) {
  Records run;
  run.samples.push_back(user_sample(10, 12'345'678'901'234, 0x401234));
  Sample k = user_sample(10, 12'345'679'000'000, kKernelBase + 0x1010);
  k.mode = Mode::Kernel;
  run.samples.push_back(k);
  EXPECT_EQ(script(run, false),
            "             app    10 [001] 12345.678901:    1001001 cpu-clock:            401234 "
            "f_1234 (/bin/app)\n"
            "             app    10 [001] 12345.679000:    1001001 cpu-clock:  ffffffff81001010 "
            "do_syscall_64 ([kernel.kallsyms])\n");
}

TEST(Script, StacksAFrameALineLeafFirstThenAnEmptyLine) {
  Records run;
  // A kernel sample under a system call: two kernel frames, then user ones
  // (a caller's ip is its return address; it is named by its call site).
  Sample s = user_sample(10, 5'000'000'000, kKernelBase + 0x1010,
                         {kKernelBase + 0x1010, kKernelBase + 0x2005, 0x401001, 0x402001});
  s.mode = Mode::Kernel;
  s.kernel_frames = 2;
  run.samples.push_back(s);
  EXPECT_EQ(script(run, true),
            "app    10 [001]     5.000000:    1001001 cpu-clock: \n"
            "\tffffffff81001010 do_syscall_64 ([kernel.kallsyms])\n"
            "\tffffffff81002005 entry_SYSCALL_64 ([kernel.kallsyms])\n"
            "\t          401001 f_1000 (/bin/app)\n"
            "\t          402001 f_2000 (/bin/app)\n"
            "\n");
}

TEST(Script, ProcessNamesAsPerfKeepsThem) {
  Records run;
  run.samples.push_back(user_sample(11, 1'000'000'000, 0x401000));  // forked: its parent's name
  run.samples.push_back(user_sample(12, 1'000'000'000, 0x401000));  // never named
  run.samples.push_back(user_sample(0, 1'000'000'000, 0x401000));   // the idle task
  run.samples.push_back(user_sample(99, 1'000'000'000, 0x401000));  // kprof's own: left out
  const std::string out = script(run, false, parse_script_fields("comm,tid"));
  EXPECT_EQ(out,
            "             app    11 \n"
            "             :12    12 \n"
            "         swapper     0 \n");
}

TEST(Script, FiltersByProcessImageAndFunction) {
  Records run;
  run.samples.push_back(user_sample(10, 1'000'000'000, 0x401000));
  run.samples.push_back(user_sample(11, 2'000'000'000, 0x402000));
  Sample k = user_sample(10, 3'000'000'000, kKernelBase + 0x2000);
  k.mode = Mode::Kernel;
  run.samples.push_back(k);
  const ScriptFields f = parse_script_fields("tid,sym");
  SampleFilter by_pid;
  by_pid.pids = {11};
  EXPECT_EQ(script(run, false, f, &by_pid), "   11  f_2000\n");
  SampleFilter by_dso;
  by_dso.dsos = {"[kernel.kallsyms]"};
  EXPECT_EQ(script(run, false, f, &by_dso), "   10  entry_SYSCALL_64\n");
  SampleFilter by_symbol;
  by_symbol.symbols = {"f_1000"};
  EXPECT_EQ(script(run, false, f, &by_symbol), "   10  f_1000\n");
  SampleFilter none;
  none.comms = {"postgres"};
  uint64_t printed = 1;
  EXPECT_EQ(script(run, false, f, &none, &printed), "");
  EXPECT_EQ(printed, 0u);
}

TEST(Script, FieldsAsPerfScriptTakesThem) {
  const ScriptFields only = parse_script_fields("sym,comm");
  EXPECT_TRUE(only.sym && only.comm);
  EXPECT_FALSE(only.tid || only.time || only.ip || only.dso || only.period);
  const ScriptFields changed = parse_script_fields("+pid,-period");
  EXPECT_TRUE(changed.pid && changed.tid && changed.ip && changed.dso);
  EXPECT_FALSE(changed.period);
  try {
    parse_script_fields("comm,symbol");
    FAIL() << "an unknown field was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("no field 'symbol'; there are comm, pid"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_script_fields("comm,+pid"), Error);
  EXPECT_THROW(parse_script_fields(""), Error);
}

TEST(Script, PidAndTidTogether) {
  Records run;
  run.samples.push_back(user_sample(10, 1'000'000'000, 0x401000));
  EXPECT_EQ(script(run, false, parse_script_fields("pid,tid")), "   10/10    \n");
}

}  // namespace
}  // namespace kprof
