// Call stacks: aggregation from -g samples (kernel/user split, return
// addresses named at their call site, per process), naming, and the Stacks
// chunk's codec with its damage checks.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/aggregate.h"
#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "core/stacks.h"
#include "perfabi/load.h"
#include "tests/core/test_util.h"
#include "tests/support/histogram_rows.h"

namespace kprof {
namespace {

// Names user ips by range: [0x400000, 0x400100) main, [0x400100, 0x400200) leaf.
class RangeResolver : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap&, std::span<const uint64_t> ips,
                                   std::string*) override {
    ++calls;
    std::vector<std::string> out;
    for (uint64_t ip : ips) {
      out.push_back(ip < 0x400100 ? "main" : ip < 0x400200 ? "leaf" : "");
    }
    return out;
  }
  int calls = 0;
};

Mmap app_mapping(uint32_t pid) {
  Mmap m;
  m.pid = m.tid = pid;
  m.start = 0x400000;
  m.len = 0x1000;
  m.filename = "/bin/app";
  return m;
}

// "process: leaf<-caller<-..." per stack, with samples, for comparisons.
std::map<std::string, uint64_t> render(const Stacks& st) {
  std::map<std::string, uint64_t> out;
  for (const Stack& s : st.stacks) {
    std::string line = st.processes.at(s.process).name + ":";
    for (uint32_t id : s.frames) {
      const Frame& f = st.frames.at(id);
      line += " " + f.function + "/" + mode_name(f.mode);
    }
    out[line] += s.samples;
  }
  return out;
}

const char* kKallsyms =
    "ffffffff81000000 T entry_SYSCALL_64\n"
    "ffffffff81000100 T do_syscall_64\n"
    "ffffffff81000200 T __x64_sys_getpid\n";

TEST(Stacks, SyscallIsOneStackUserFramesAfterKernelFrames) {
  AddressAggregator a(/*stacks=*/true);
  a.on_comm(Comm{0, 7, 7, true, "app"});  // exec: maps start afresh
  a.on_mmap(app_mapping(7));
  // In the kernel on behalf of a syscall: leaf in __x64_sys_getpid, then the
  // entry path, then (PERF_CONTEXT_USER) the user ip after the syscall
  // instruction in leaf, and main's return address just past its call.
  Sample s{
      0,
      0xffffffff81000210ULL,
      7,
      7,
      0,
      Mode::Kernel,
      10,
      {0xffffffff81000210ULL, 0xffffffff81000120ULL, 0xffffffff81000010ULL, 0x400150, 0x400100}};
  s.kernel_frames = 3;
  a.on_sample(s);
  a.on_sample(s);
  // A user sample in leaf called from main.
  Sample u{0, 0x400180, 7, 7, 0, Mode::User, 10, {0x400180, 0x400050}};
  u.kernel_frames = 0;
  a.on_sample(u);
  const auto ks = KernelSymbols::parse(kKallsyms, "");
  RangeResolver resolver;
  const SymbolizedCounts named = symbolize_counts(a.counts(), ks, resolver);
  ASSERT_TRUE(named.stacks.has_value());
  EXPECT_EQ(resolver.calls, 1) << "leaf and caller ips of a mapping resolve in one call";
  EXPECT_EQ(named.stacks->total_samples(), 3u);
  EXPECT_EQ(named.histogram.total_samples(), 3u);
  // 0x400100 is main's return address: named at its call site (0x4000ff),
  // main, not leaf where the next instruction happens to lie.
  const std::map<std::string, uint64_t> want = {
      {"app: __x64_sys_getpid/kernel do_syscall_64/kernel entry_SYSCALL_64/kernel leaf/user "
       "main/user",
       2},
      {"app: leaf/user main/user", 1}};
  EXPECT_EQ(render(*named.stacks), want);
}

TEST(Stacks, OldFilesTellKernelFramesByAddress) {
  AddressAggregator a(/*stacks=*/true);
  a.on_mmap(app_mapping(7));
  Sample s{0, 0xffffffff81000210ULL, 7, 7,
           0, Mode::Kernel,          1, {0xffffffff81000210ULL, 0xffffffff81000120ULL, 0x400150}};
  s.kernel_frames = 0;
  s.kernel_frames_known = false;  // a kind 1 record: no split stored
  a.on_sample(s);
  RangeResolver resolver;
  const SymbolizedCounts named =
      symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), resolver);
  ASSERT_TRUE(named.stacks);
  const std::map<std::string, uint64_t> want = {
      {": __x64_sys_getpid/kernel do_syscall_64/kernel leaf/user", 1}};
  EXPECT_EQ(render(*named.stacks), want);
}

TEST(Stacks, DistinctAddressStacksOfOneFunctionStackMerge) {
  AddressAggregator a(/*stacks=*/true);
  a.on_mmap(app_mapping(7));
  a.on_sample(Sample{0, 0x400180, 7, 7, 0, Mode::User, 2, {0x400180, 0x400050}});
  a.on_sample(Sample{0, 0x400190, 7, 7, 0, Mode::User, 3, {0x400190, 0x400060}});
  a.on_sample(Sample{0, 0x400190, 8, 8, 0, Mode::User, 3, {0x400190, 0x400060}});  // no maps
  a.on_sample(Sample{0, 0x400190, 7, 7, 0, Mode::User, 3, {}});  // no chain: the leaf alone
  RangeResolver resolver;
  const SymbolizedCounts named =
      symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), resolver);
  ASSERT_TRUE(named.stacks);
  ASSERT_EQ(named.stacks->stacks.size(), 3u);
  const Stack& top = named.stacks->stacks[0];
  EXPECT_EQ(top.samples, 2u);
  EXPECT_EQ(top.period, 5u);
  EXPECT_EQ(named.stacks->processes.at(top.process).pid, 7u);
  EXPECT_EQ(named.stacks->total_samples(), 4u) << "every sample is in a stack";
  EXPECT_EQ(named.histogram, leaf_histogram(*named.stacks)) << "the flat table is the leaves";
}

// Code without frame pointers: the chain's first "caller" is whatever the
// frame pointer register held, an address no mapping covers (issue 23, item 3).
TEST(Stacks, ChainsThroughAnUnmappedCallerAreCutThere) {
  AddressAggregator a(/*stacks=*/true);
  a.on_mmap(app_mapping(7));
  // leaf, then garbage (unmapped), then an address that happens to be in main.
  a.on_sample(Sample{0, 0x400180, 7, 7, 0, Mode::User, 1, {0x400180, 0x7ffd00001234, 0x400050}});
  a.on_sample(Sample{0, 0x400190, 7, 7, 0, Mode::User, 1, {0x400190, 0x55550000, 0x7ffd00009999}});
  a.on_sample(Sample{0, 0x400190, 7, 7, 0, Mode::User, 1, {0x400190, 0x400050}});
  // An unmapped leaf (code no mmap record covers) is where the sample was: kept.
  a.on_sample(Sample{0, 0x900000, 7, 7, 0, Mode::User, 1, {0x900000, 0x400050}});
  RangeResolver resolver;
  const SymbolizedCounts named =
      symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), resolver);
  ASSERT_TRUE(named.stacks);
  const std::map<std::string, uint64_t> want = {
      {": leaf/user", 2}, {": leaf/user main/user", 1}, {": [unknown]/user main/user", 1}};
  EXPECT_EQ(render(*named.stacks), want);
  EXPECT_EQ(named.stacks->total_samples(), 4u) << "cut, not dropped";
  EXPECT_EQ(named.histogram, leaf_histogram(*named.stacks));
}

TEST(Stacks, MendKeepsTheSyscallsUserIpAndCollapsesUnnamedRuns) {
  Stacks st;
  st.images = {{"[kernel]", ""}, {"/bin/app", ""}, {"[unknown]", ""}};
  st.frames = {{0, "do_syscall_64", Mode::Kernel},  // 0
               {2, "[unknown]", Mode::User},        // 1: outside every mapping
               {1, "main", Mode::User},             // 2
               {1, "[unknown]", Mode::User},        // 3: in app, no symbol
               {1, "leaf", Mode::User}};            // 4
  st.processes = {{7, "app"}};
  st.stacks = {
      {0, {0, 1, 2}, 2, 20},        // kernel, then the user ip (unmapped): kept whole
      {0, {4, 3, 3, 3, 2}, 3, 30},  // a run of unnamed frames: one
      {0, {4, 3, 2}, 1, 10},        // ... so it merges with this one
      {0, {4, 1, 1, 2}, 4, 40},     // an unmapped caller: cut there
      {0, {4}, 1, 10},              // merges with the cut one
  };
  EXPECT_EQ(mend_broken_chains(st), 4u) << "the samples of the stacks that were cut";
  const std::vector<Stack> want = {{0, {4}, 5, 50}, {0, {4, 3, 2}, 4, 40}, {0, {0, 1, 2}, 2, 20}};
  EXPECT_EQ(st.stacks, want);
  EXPECT_EQ(mend_broken_chains(st), 0u) << "mended stacks stay as they are";
  EXPECT_EQ(st.stacks, want);
}

TEST(Stacks, NoCallchainsNoStacks) {
  AddressAggregator a;
  a.on_sample(Sample{0, 0xffffffff81000210ULL, 0, 0, 0, Mode::Kernel, 1, {}});
  NullUserResolver null;
  EXPECT_FALSE(symbolize_counts(a.counts(), KernelSymbols::parse(kKallsyms, ""), null).stacks);
}

Stacks sample_stacks() {
  Stacks st;
  st.images = {{"[kernel]", ""}, {"/bin/app", "abcd"}};
  st.frames = {
      {0, "do_syscall_64", Mode::Kernel}, {1, "main", Mode::User}, {1, "leaf", Mode::User}};
  st.processes = {{7, "app"}, {0, "swapper"}};
  st.stacks = {{0, {0, 2, 1}, 3, 300}, {0, {2, 1}, 5, 500}, {1, {0}, 1, 100}};
  return st;
}

TEST(Stacks, LeafHistogramMergesLeavesHeaviestFirst) {
  const Histogram h = leaf_histogram(sample_stacks());
  EXPECT_EQ(h.images, sample_stacks().images);
  const std::vector<FunctionCount> want = {{1, "leaf", Mode::User, 5, 500},
                                           {0, "do_syscall_64", Mode::Kernel, 4, 400}};
  EXPECT_EQ(h.rows, want);
}

TEST(Stacks, CodecRoundTrip) {
  const Stacks st = sample_stacks();
  EXPECT_EQ(decode_stacks(encode_stacks(st)), st);
  EXPECT_EQ(decode_stacks(encode_stacks(Stacks{})), Stacks{});
}

TEST(Stacks, CodecRoundTripsTimeSlicesAndChecksThem) {
  // Leaves: do_syscall_64 (frame 0) in 3 + 1 samples, leaf (frame 2) in 5;
  // main (frame 1) is no stack's leaf.
  Stacks st = sample_stacks();
  st.leaf_slices = {{1, 0, 2, 1}, {}, {0, 5, 0, 0}};
  EXPECT_EQ(decode_stacks(encode_stacks(st)), st);
  const Histogram h = leaf_histogram(st);
  EXPECT_EQ(h.rows.at(0).function, "leaf");
  EXPECT_EQ(h.rows.at(0).slices, (std::vector<uint32_t>{0, 5, 0, 0}));
  EXPECT_EQ(h.rows.at(1).slices, (std::vector<uint32_t>{1, 0, 2, 1}));
  // Frames whose slices disagree in count: none is written.
  Stacks partial = st;
  partial.leaf_slices[2] = {5};
  Stacks none = st;
  none.leaf_slices.clear();
  EXPECT_EQ(decode_stacks(encode_stacks(partial)), none);
  // Slices that do not add up to the frame's samples as a leaf are damage.
  Stacks bad = st;
  bad.leaf_slices[2] = {0, 4, 0, 0};
  EXPECT_THROW(decode_stacks(encode_stacks(bad)), Error);
  bad = st;
  bad.leaf_slices[1] = {0, 1, 0, 0};  // main is no leaf
  EXPECT_THROW(decode_stacks(encode_stacks(bad)), Error);
  // Every truncation is an error or a table whose slices add up.
  const std::vector<uint8_t> bytes = encode_stacks(st);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    try {
      const Histogram got =
          leaf_histogram(decode_stacks(std::span<const uint8_t>(bytes.data(), cut)));
      for (const FunctionCount& row : got.rows) {
        uint64_t sum = 0;
        for (uint32_t k : row.slices) sum += k;
        if (!row.slices.empty()) EXPECT_EQ(sum, row.samples);
      }
    } catch (const Error&) {
    }
  }
}

TEST(Stacks, CodecRejectsDamage) {
  Stacks bad = sample_stacks();
  bad.stacks[1].frames[0] = 9;  // no frame 9
  EXPECT_THROW(decode_stacks(encode_stacks(bad)), Error);
  bad = sample_stacks();
  bad.stacks[0].process = 5;
  EXPECT_THROW(decode_stacks(encode_stacks(bad)), Error);
  bad = sample_stacks();
  bad.frames[1].image = 2;
  EXPECT_THROW(decode_stacks(encode_stacks(bad)), Error);
  bad = sample_stacks();
  bad.stacks[2].frames.clear();
  try {
    decode_stacks(encode_stacks(bad));
    ADD_FAILURE() << "a stack without frames decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stacks"), std::string::npos) << e.what();
  }
  // Every truncation is an error or a shorter table, never a crash.
  const std::vector<uint8_t> bytes = encode_stacks(sample_stacks());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    try {
      const Stacks st = decode_stacks(std::span<const uint8_t>(bytes.data(), cut));
      for (const Stack& s : st.stacks) {
        for (uint32_t id : s.frames) EXPECT_LT(id, st.frames.size());
      }
    } catch (const Error&) {
    }
  }
}

TEST(Stacks, ProfileReadsItsStacksChunk) {
  testing::TempDir dir;
  const std::string path = dir.file("stacks.kprof");
  {
    ProfileWriter w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(RunInfo{}));
    w.write_chunk(ChunkType::Histogram, encode_histogram_rows(Histogram{}));
    w.write_chunk(ChunkType::Stacks, encode_stacks(sample_stacks()));
    w.write_end();
  }
  const Profile p = perfabi::load_profile(path);
  EXPECT_TRUE(p.status.complete) << p.status.problem;
  ASSERT_TRUE(p.stacks.has_value());
  EXPECT_EQ(*p.stacks, sample_stacks());
  EXPECT_STREQ(chunk_type_name(static_cast<uint16_t>(ChunkType::Stacks)), "stacks");
}

}  // namespace
}  // namespace kprof
