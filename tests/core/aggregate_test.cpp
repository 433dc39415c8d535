#include "core/aggregate.h"
#include "core/chunk_codecs.h"

#include <gtest/gtest.h>

#include <map>

namespace kprof {
namespace {

Mmap mmap_of(uint32_t pid, uint64_t start, uint64_t len, std::string file, uint64_t pgoff = 0) {
  Mmap m;
  m.pid = m.tid = pid;
  m.start = start;
  m.len = len;
  m.pgoff = pgoff;
  m.filename = std::move(file);
  return m;
}

Sample user_sample(uint32_t pid, uint64_t ip, uint64_t period = 1) {
  return Sample{0, ip, pid, pid, 0, Mode::User, period, {}};
}

// The mapping (by filename) each (pid-less) user ip landed in, "" for none.
std::map<uint64_t, std::string> where(const AddressCounts& c) {
  std::map<uint64_t, std::string> out;
  for (const auto& [key, counts] : c.counts) {
    out[key.ip] =
        key.mapping == AddressCounts::kNoMapping ? "" : c.mappings.at(key.mapping).filename;
  }
  return out;
}

TEST(Aggregator, KernelAndUserKeys) {
  AddressAggregator a;
  a.on_mmap(mmap_of(10, 0x400000, 0x1000, "/bin/app"));
  a.on_sample(user_sample(10, 0x400010, 5));
  a.on_sample(user_sample(10, 0x400010, 7));
  a.on_sample(Sample{0, 0xffffffff81000000ULL, 10, 10, 0, Mode::Kernel, 3, {}});
  a.on_sample(user_sample(10, 0x900000));  // no mapping
  a.on_lost(Lost{0, 4});
  const auto& c = a.counts();
  EXPECT_EQ(c.samples, 4u);
  EXPECT_EQ(c.lost, 4u);
  ASSERT_EQ(c.mappings.size(), 1u);
  const AddressCounts::Key user{0, Mode::User, 0x400010};
  ASSERT_TRUE(c.counts.count(user));
  EXPECT_EQ(c.counts.at(user).samples, 2u);
  EXPECT_EQ(c.counts.at(user).period, 12u);
  const AddressCounts::Key kernel{AddressCounts::kNoMapping, Mode::Kernel, 0xffffffff81000000ULL};
  EXPECT_EQ(c.counts.at(kernel).samples, 1u);
  const AddressCounts::Key unmapped{AddressCounts::kNoMapping, Mode::User, 0x900000};
  EXPECT_EQ(c.counts.at(unmapped).samples, 1u);
}

TEST(Aggregator, ForkCopiesParentMapsExecClearsExitDrops) {
  AddressAggregator a;
  a.on_mmap(mmap_of(10, 0x400000, 0x1000, "/bin/parent"));
  a.on_fork(Fork{0, 11, 10, 11, 10});
  a.on_sample(user_sample(11, 0x400100));
  a.on_fork(Fork{0, 10, 10, 12, 10});  // a thread: nothing to copy
  a.on_comm(Comm{0, 11, 11, true, "child"});
  a.on_sample(user_sample(11, 0x400200));  // maps cleared by exec
  a.on_mmap(mmap_of(11, 0x400000, 0x1000, "/bin/child"));
  a.on_sample(user_sample(11, 0x400300));
  a.on_comm(Comm{0, 10, 10, false, "rename"});  // not an exec: maps stay
  a.on_sample(user_sample(10, 0x400400));
  a.on_exit(Fork{0, 10, 1, 13, 1});  // a thread of 10 exits: maps stay
  a.on_sample(user_sample(10, 0x400500));
  a.on_exit(Fork{0, 10, 1, 10, 1});  // the process exits
  a.on_sample(user_sample(10, 0x400600));
  const auto w = where(a.counts());
  EXPECT_EQ(w.at(0x400100), "/bin/parent");
  EXPECT_EQ(w.at(0x400200), "");
  EXPECT_EQ(w.at(0x400300), "/bin/child");
  EXPECT_EQ(w.at(0x400400), "/bin/parent");
  EXPECT_EQ(w.at(0x400500), "/bin/parent");
  EXPECT_EQ(w.at(0x400600), "");
}

TEST(Aggregator, ForkKeepsChildMapsItAlreadyHas) {
  AddressAggregator a;
  a.on_mmap(mmap_of(10, 0x400000, 0x1000, "/bin/parent"));
  a.on_mmap(mmap_of(11, 0x400000, 0x1000, "/bin/own"));  // synthesized from /proc first
  a.on_fork(Fork{0, 11, 10, 11, 10});
  a.on_sample(user_sample(11, 0x400000));
  EXPECT_EQ(where(a.counts()).at(0x400000), "/bin/own");
}

TEST(Aggregator, OverlappingMmapSplitsOldMapping) {
  AddressAggregator a;
  a.on_mmap(mmap_of(10, 0x10000, 0x10000, "/lib/old.so"));  // [0x10000, 0x20000)
  a.on_mmap(mmap_of(10, 0x14000, 0x4000, "/lib/new.so"));   // [0x14000, 0x18000)
  for (uint64_t ip :
       {0x10000ULL, 0x13fffULL, 0x14000ULL, 0x17fffULL, 0x18000ULL, 0x1ffffULL, 0x20000ULL}) {
    a.on_sample(user_sample(10, ip));
  }
  const auto w = where(a.counts());
  EXPECT_EQ(w.at(0x10000), "/lib/old.so");
  EXPECT_EQ(w.at(0x13fff), "/lib/old.so");
  EXPECT_EQ(w.at(0x14000), "/lib/new.so");
  EXPECT_EQ(w.at(0x17fff), "/lib/new.so");
  EXPECT_EQ(w.at(0x18000), "/lib/old.so");
  EXPECT_EQ(w.at(0x1ffff), "/lib/old.so");
  EXPECT_EQ(w.at(0x20000), "");
  // Both pieces of the old mapping share one mapping index with its original Mmap.
  EXPECT_EQ(a.counts().mappings.size(), 2u);
  // Replacing a mapping fully drops it.
  a.on_mmap(mmap_of(10, 0x0, 0x100000, "/lib/big.so"));
  a.on_sample(user_sample(10, 0x10001));
  EXPECT_EQ(where(a.counts()).at(0x10001), "/lib/big.so");
}

TEST(Aggregator, MmapsMatchANaiveModel) {
  // Random mmaps over a small space; each address must resolve to the last
  // mmap that covered it, as a per-address array says.
  constexpr uint64_t kSpace = 256;
  uint32_t x = 99;
  auto rnd = [&](uint32_t n) { return ((x = x * 1103515245 + 12345) >> 8 & 0xffff) % n; };
  AddressAggregator a;
  std::vector<std::string> model(kSpace);
  for (int i = 0; i < 300; ++i) {
    const uint64_t start = rnd(kSpace), len = 1 + rnd(40);
    const std::string name = "/m" + std::to_string(i);
    a.on_mmap(mmap_of(1, start, len, name));
    for (uint64_t p = start; p < std::min(start + len, kSpace); ++p) model[p] = name;
    if (i % 30 == 29) {
      AddressAggregator probe = a;  // sample a copy so counts stay per round
      for (uint64_t p = 0; p < kSpace; ++p) probe.on_sample(user_sample(1, p));
      const auto w = where(probe.counts());
      for (uint64_t p = 0; p < kSpace; ++p)
        ASSERT_EQ(w.at(p), model[p]) << "round " << i << " addr " << p;
    }
  }
}

TEST(Aggregator, InterleavedProcessesEachFindTheirOwnMaps) {
  // Two CPUs' samples interleave: three processes with different files at
  // the same addresses, sampled in turn (mapping_of remembers two), then
  // one execs a new file in place. Each sample must land in its own
  // process's file, whichever process came just before it.
  AddressAggregator a;
  for (uint32_t pid : {1u, 2u, 3u}) {
    a.on_mmap(mmap_of(pid, 0x1000, 0x1000, "/lo" + std::to_string(pid)));
    a.on_mmap(mmap_of(pid, 0x3000, 0x1000, "/hi" + std::to_string(pid)));
  }
  std::map<std::string, uint64_t> want;
  uint32_t x = 7;
  auto rnd = [&](uint32_t n) { return ((x = x * 1103515245 + 12345) >> 8 & 0xffff) % n; };
  for (int i = 0; i < 2000; ++i) {
    if (i == 1000) {
      a.on_comm(Comm{0, 2, 2, true, "new"});  // exec: pid 2's maps go
      a.on_mmap(mmap_of(2, 0x1000, 0x1000, "/exec2"));
    }
    const uint32_t pid = 1 + rnd(i % 500 < 250 ? 2 : 3);
    const bool hi = rnd(2) == 1;
    a.on_sample(user_sample(pid, (hi ? 0x3000 : 0x1000) + rnd(0x1000)));
    std::string file = (hi ? "/hi" : "/lo") + std::to_string(pid);
    if (pid == 2 && i >= 1000) file = hi ? "" : "/exec2";
    ++want[file];
  }
  std::map<std::string, uint64_t> got;
  const AddressCounts& c = a.counts();
  for (const auto& [key, counts] : c.counts) {
    got[key.mapping == AddressCounts::kNoMapping ? "" : c.mappings.at(key.mapping).filename] +=
        counts.samples;
  }
  EXPECT_EQ(got, want);
}

TEST(Aggregator, StacksCountedAgainAsTheirFramesSayAfterMapsChange) {
  // A few chains over and over (what the stack cache serves), in processes
  // with different files at the same addresses, chains that differ only in
  // where the kernel part ends, and an exec that remaps one process: every
  // stack must be counted under the frames it has when it is sampled.
  AddressAggregator a(true);
  a.cache_stacks();
  for (uint32_t pid : {1u, 2u}) {
    a.on_mmap(mmap_of(pid, 0x1000, 0x1000, "/lo" + std::to_string(pid)));
    a.on_mmap(mmap_of(pid, 0x3000, 0x1000, "/hi" + std::to_string(pid)));
  }
  struct Chain {
    std::vector<uint64_t> ips;
    uint32_t kernel_frames;
  };
  const uint64_t k = 0xffffffff81000000ULL;
  const std::vector<Chain> chains = {
      {{0x1010, 0x3020, 0x1030}, 0},
      {{0x3040, 0x1050}, 0},
      {{k + 0x10, k + 0x20, 0x1060, 0x3070}, 2},
      {{k + 0x10, k + 0x20, 0x1060, 0x3070}, 1},  // the same ips, one kernel frame fewer
      {{k + 0x30, k + 0x40}, 2},
  };
  std::map<std::pair<uint32_t, std::string>, uint64_t> want;
  uint32_t x = 11;
  auto rnd = [&](uint32_t n) { return ((x = x * 1103515245 + 12345) >> 8 & 0xffff) % n; };
  auto file_of = [](uint32_t pid, uint64_t ip, bool exec) -> std::string {
    const bool hi = ip >= 0x3000;
    if (ip >= 0x4000 || (ip >= 0x2000 && !hi)) return "";  // unmapped
    if (pid == 2 && exec) return hi ? "" : "/exec2";
    return (hi ? "/hi" : "/lo") + std::to_string(pid);
  };
  for (int i = 0; i < 3000; ++i) {
    const bool exec = i >= 1500;
    if (i == 1500) {
      a.on_comm(Comm{0, 2, 2, true, "new"});  // exec: pid 2's maps go
      a.on_mmap(mmap_of(2, 0x1000, 0x1000, "/exec2"));
    }
    const uint32_t pid = 1 + rnd(2);
    const Chain& c = chains[rnd(static_cast<uint32_t>(chains.size()))];
    Sample s;
    s.pid = s.tid = pid;
    s.ip = c.ips.front();
    s.callchain = c.ips;
    s.kernel_frames = c.kernel_frames;
    s.mode = c.kernel_frames > 0 ? Mode::Kernel : Mode::User;
    s.period = 1;
    a.on_sample(s);
    std::string stack;
    for (size_t f = 0; f < c.ips.size(); ++f) {
      const uint64_t site = f == 0 ? c.ips[f] : c.ips[f] - 1;
      const bool kernel = f < c.kernel_frames;
      stack += (kernel ? "k" : file_of(pid, site, exec)) + "+" + std::to_string(site) + ";";
    }
    ++want[{pid, stack}];
  }
  std::map<std::pair<uint32_t, std::string>, uint64_t> got;
  const AddressCounts& c = a.counts();
  for (const auto& [key, counts] : c.stacks) {
    std::string stack;
    for (uint32_t id : key.frames) {
      const AddressCounts::Key& f = c.frames.at(id);
      const std::string file = f.mode == Mode::Kernel ? "k"
                               : f.mapping == AddressCounts::kNoMapping
                                   ? ""
                                   : c.mappings.at(f.mapping).filename;
      stack += file + "+" + std::to_string(f.ip) + ";";
    }
    got[{key.pid, stack}] += counts.samples;
  }
  EXPECT_EQ(got, want);
}

// A copy or a move starts with empty caches but keeps what it was set to
// collect: frames_only stays frames only.
TEST(Aggregator, ACopyOrMoveKeepsItsSettings) {
  AddressAggregator a(true);
  a.frames_only();
  a.cache_stacks();
  a.on_mmap(mmap_of(1, 0x1000, 0x1000, "/lo"));
  AddressAggregator copied(a);
  AddressAggregator from(a);
  AddressAggregator moved(std::move(from));
  Sample s = user_sample(1, 0x1010);
  s.callchain = {0x1010, 0x1020};
  for (AddressAggregator* b : {&copied, &moved}) {
    b->on_sample(s);
    EXPECT_TRUE(b->counts().stacks.empty()) << "frames only: no stacks";
    EXPECT_EQ(b->counts().frames.size(), 2u);
  }
}

TEST(Aggregator, ImageNames) {
  auto name = [](std::string f) { return image_name_for(mmap_of(1, 0, 1, std::move(f))); };
  EXPECT_EQ(name("//anon"), "[anon]");
  EXPECT_EQ(name(""), "[anon]");
  EXPECT_EQ(name("[anon:scudo]"), "[anon]");
  EXPECT_EQ(name("[heap]"), "[heap]");
  EXPECT_EQ(name("[stack]"), "[stack]");
  EXPECT_EQ(name("[vdso]"), "[vdso]");
  EXPECT_EQ(name("/tmp/perf-1234.map"), "[jit]");
  EXPECT_EQ(name("[anon:v8 jit]"), "[jit]");
  EXPECT_EQ(name("/memfd:jit-cache (deleted)"), "[jit]");
  EXPECT_EQ(name("/usr/bin/app (deleted)"), "/usr/bin/app");
  EXPECT_EQ(name("/usr/lib/libc.so.6"), "/usr/lib/libc.so.6");
}

// Names ips by offset from the mapping start, records each call.
class FakeResolver : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap& m, std::span<const uint64_t> ips,
                                   std::string* build_id) override {
    ++calls[m.filename];
    std::vector<std::string> out;
    for (uint64_t ip : ips) out.push_back(ip - m.start < 0x100 ? "low_fn" : "");
    if (m.filename == "/bin/app") *build_id = "feed";
    return out;
  }
  std::map<std::string, int> calls;
};

TEST(Aggregator, BuildHistogram) {
  AddressAggregator a;
  a.on_mmap(mmap_of(10, 0x400000, 0x1000, "/bin/app"));
  a.on_mmap(mmap_of(10, 0x7f0000, 0x1000, "/lib/libx.so"));
  a.on_mmap(mmap_of(20, 0x500000, 0x1000, "/lib/libx.so"));  // same image in another process
  a.on_sample(user_sample(10, 0x400010, 10));
  a.on_sample(user_sample(10, 0x400020, 10));  // same function, another ip
  a.on_sample(user_sample(10, 0x400800, 10));  // unnamed -> [unknown] in /bin/app
  a.on_sample(user_sample(10, 0x7f0010, 10));
  a.on_sample(user_sample(20, 0x500010, 10));
  a.on_sample(user_sample(10, 0x100));  // unmapped
  a.on_sample(Sample{0, 0xffffffff81000010ULL, 10, 10, 0, Mode::Kernel, 100, {}});
  a.on_sample(Sample{0, 0xffffffff81000020ULL, 10, 10, 0, Mode::Kernel, 100, {}});
  a.on_sample(Sample{0, 0xffffffffc0a01000ULL, 10, 10, 0, Mode::Kernel, 100, {}});
  const auto ks = KernelSymbols::parse(
      "ffffffff81000000 T do_syscall_64\nffffffffc0a01000 t ext4_fn\t[ext4]\n", "");
  FakeResolver resolver;
  const Histogram h = build_histogram(a.counts(), ks, resolver);
  EXPECT_EQ(h.total_samples(), 9u);
  EXPECT_EQ(resolver.calls["/bin/app"], 1);      // once per mapping
  EXPECT_EQ(resolver.calls["/lib/libx.so"], 2);  // two mappings of it
  std::map<std::tuple<std::string, std::string, Mode>, uint64_t> rows;
  for (const auto& r : h.rows) {
    ASSERT_LT(r.image, h.images.size());
    rows[{h.images[r.image].name, r.function, r.mode}] += r.samples;
  }
  EXPECT_EQ(rows.size(), h.rows.size());  // merged: no duplicate keys
  using T = std::tuple<std::string, std::string, Mode>;
  EXPECT_EQ((rows[T{"/bin/app", "low_fn", Mode::User}]), 2u);
  EXPECT_EQ((rows[T{"/bin/app", "[unknown]", Mode::User}]), 1u);
  EXPECT_EQ((rows[T{"/lib/libx.so", "low_fn", Mode::User}]), 2u);
  EXPECT_EQ((rows[T{"[unknown]", "[unknown]", Mode::User}]), 1u);
  EXPECT_EQ((rows[T{"[kernel]", "do_syscall_64", Mode::Kernel}]), 2u);
  EXPECT_EQ((rows[T{"[ext4]", "ext4_fn", Mode::Kernel}]), 1u);
  // Images deduplicated by name, build id from the resolver.
  std::map<std::string, std::string> images;
  for (const auto& im : h.images) {
    EXPECT_FALSE(images.count(im.name)) << im.name;
    images[im.name] = im.build_id;
  }
  EXPECT_EQ(images.at("/bin/app"), "feed");
  // Periods summed.
  for (const auto& r : h.rows) {
    if (h.images[r.image].name == "[kernel]") {
      EXPECT_EQ(r.period, 200u);
    }
  }
}

// A function's peak: the most samples at one of its addresses, and where
// (for cpu-clock skid, report/skid.h).
TEST(Aggregator, HistogramKeepsEachFunctionsPeakAddress) {
  AddressAggregator a;
  auto kernel = [](uint64_t ip) { return Sample{0, ip, 10, 10, 0, Mode::Kernel, 100, {}}; };
  for (int i = 0; i < 3; ++i) a.on_sample(kernel(0xffffffff81000010ULL));
  for (int i = 0; i < 5; ++i) a.on_sample(kernel(0xffffffff81000024ULL));
  a.on_sample(kernel(0xffffffff81000030ULL));
  NullUserResolver null;
  const auto h = build_histogram(
      a.counts(), KernelSymbols::parse("ffffffff81000000 T _raw_spin_unlock_irqrestore\n", ""),
      null);
  ASSERT_EQ(h.rows.size(), 1u);
  EXPECT_EQ(h.rows[0].samples, 9u);
  EXPECT_EQ(h.rows[0].peak_samples, 5u);
  EXPECT_EQ(h.rows[0].peak_ip, 0xffffffff81000024ULL);
  EXPECT_FALSE(h.rows[0].peak_after_irq_enable) << "only the recorder reads the kernel's text";
}

// Each row's samples over the recording's time slices (core/time_slices.h):
// the first half of the samples in one function, the second in another,
// both at two addresses each.
TEST(Aggregator, HistogramRowsCarryTheirTimeSlices) {
  AddressAggregator a;
  auto kernel = [](uint64_t ip) { return Sample{0, ip, 10, 10, 0, Mode::Kernel, 100, {}}; };
  for (int i = 0; i < 500; ++i) a.on_sample(kernel(0xffffffff81000010ULL + 4 * (i % 2)));
  for (int i = 0; i < 500; ++i) a.on_sample(kernel(0xffffffff81000110ULL + 4 * (i % 2)));
  NullUserResolver null;
  const auto h = build_histogram(
      a.counts(), KernelSymbols::parse("ffffffff81000000 T first\nffffffff81000100 T second\n", ""),
      null);
  ASSERT_EQ(h.rows.size(), 2u);
  const std::vector<uint64_t> totals = h.slice_totals();
  ASSERT_EQ(totals.size(), 32u);  // 1,000 samples: 32 slices of 32 (the last 8)
  EXPECT_EQ(totals.back(), 1000u - 31 * 32);
  for (const FunctionCount& row : h.rows) {
    ASSERT_EQ(row.slices.size(), 32u);
    uint64_t sum = 0;
    for (uint32_t k : row.slices) sum += k;
    EXPECT_EQ(sum, row.samples);
    // Sample 500 is the 21st of slice 15: "first" fills slices 0-14 and
    // part of 15, "second" the rest.
    const bool first = row.function == "first";
    EXPECT_EQ(row.slices[0], first ? 32u : 0u) << row.function;
    EXPECT_EQ(row.slices[15], first ? 20u : 12u) << row.function;
    EXPECT_EQ(row.slices[31], first ? 0u : 8u) << row.function;
  }
}

// Issue 22: a -g profile's flat rows carry their slices too, through its
// leaf frames, so one -g run a side is judged by its own spread as a flat
// one is; the same slices as the flat recording's.
TEST(Aggregator, CallStacksCarryTheirLeavesTimeSlices) {
  auto kernel = [](uint64_t ip, uint64_t caller) {
    Sample s{0, ip, 10, 10, 0, Mode::Kernel, 100, {ip, caller}};
    s.kernel_frames = 2;
    return s;
  };
  AddressAggregator g(/*stacks=*/true), flat;
  // "first" (two addresses) from three callers, then "second".
  for (int i = 0; i < 500; ++i) {
    const Sample s =
        kernel(0xffffffff81000010ULL + 4 * (i % 2), 0xffffffff81000210ULL + 8 * (i % 3));
    g.on_sample(s);
    flat.on_sample(s);
  }
  for (int i = 0; i < 500; ++i) {
    const Sample s = kernel(0xffffffff81000110ULL, 0xffffffff81000210ULL);
    g.on_sample(s);
    flat.on_sample(s);
  }
  NullUserResolver null;
  const auto ks = KernelSymbols::parse(
      "ffffffff81000000 T first\nffffffff81000100 T second\nffffffff81000200 T caller\n", "");
  const SymbolizedCounts named = symbolize_counts(g.counts(), ks, null);
  ASSERT_TRUE(named.stacks);
  EXPECT_EQ(named.stacks->leaf_slices.size(), named.stacks->frames.size());
  const Histogram& h = named.histogram;
  ASSERT_EQ(h.rows.size(), 2u);
  for (const FunctionCount& row : h.rows) {
    ASSERT_EQ(row.slices.size(), 32u) << row.function;
    const bool first = row.function == "first";
    EXPECT_EQ(row.slices[0], first ? 32u : 0u) << row.function;
    EXPECT_EQ(row.slices[15], first ? 20u : 12u) << row.function;
    EXPECT_EQ(row.slices[31], first ? 0u : 8u) << row.function;
  }
  const Histogram fh = build_histogram(flat.counts(), ks, null);
  ASSERT_EQ(fh.rows.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(fh.rows[i].slices, h.rows[i].slices);
  // Through the Stacks chunk and back.
  const Stacks back = decode_stacks(encode_stacks(*named.stacks));
  EXPECT_EQ(leaf_histogram(back).rows, h.rows);
}

TEST(Aggregator, NullResolverKeepsImages) {
  AddressAggregator a;
  Mmap m = mmap_of(10, 0x400000, 0x1000, "/bin/app");
  m.build_id = "abcd";
  a.on_mmap(m);
  a.on_sample(user_sample(10, 0x400010));
  NullUserResolver null;
  const auto h = build_histogram(a.counts(), KernelSymbols::parse("", ""), null);
  ASSERT_EQ(h.rows.size(), 1u);
  EXPECT_EQ(h.images[h.rows[0].image].name, "/bin/app");
  EXPECT_EQ(h.images[h.rows[0].image].build_id, "abcd");
  EXPECT_EQ(h.rows[0].function, "[unknown]");
}

// Issue 23, item 13: -a profiles leave kprof's own process out.
TEST(Aggregate, LeavesOutTheRecordersOwnSamples) {
  AddressAggregator agg;
  agg.leave_out(77);
  Sample s;
  s.ip = 0xffffffff81000000ull;
  s.mode = Mode::Kernel;
  for (uint32_t pid : {1u, 77u, 77u, 2u}) {
    s.pid = s.tid = pid;
    agg.on_sample(s);
  }
  EXPECT_EQ(agg.counts().samples, 2u);
  EXPECT_EQ(agg.counts().left_out, 2u);
  AddressAggregator all;  // 0: nothing left out
  s.pid = 0;
  all.on_sample(s);
  EXPECT_EQ(all.counts().samples, 1u);
}

}  // namespace
}  // namespace kprof
