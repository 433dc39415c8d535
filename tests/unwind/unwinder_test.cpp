// The DWARF unwinder on real stacks: this test process captures its own
// registers and a copy of its stack (what perf's REGS_USER and STACK_USER
// hold) at known points, so the callers are known exactly
// (__builtin_return_address) and only CFI can find them: the test is built
// with -fomit-frame-pointer. Then the ways a stack stops short: a copy too
// small, a file whose build-id differs, code in no file, code without CFI,
// garbage; and the replay of a spooled recording.
#include "unwind/unwinder.h"

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collector/procfs.h"
#include "core/error.h"
#include "perfabi/perf_record.h"
#include "perfabi/spool.h"
#include "tests/perfabi/perf_record_builder.h"
#include "tests/unwind/nocfi_lib.h"

namespace kprof::unwind {
namespace {

using perfabi::testing::Collect;

// Registers in kDwarfUserRegs order (perf's numbers 0-8, then 16-23).
struct Capture {
  uint64_t regs[17] = {};
  std::vector<uint8_t> stack;
  std::vector<uint64_t> callers;  // return addresses, innermost first
  bool whole_stack = false;       // the copy reaches the top of the stack
};

uint64_t stack_top(uint64_t sp) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uint64_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi) return hi;
  }
  return sp;
}

// Copies the live stack as the kernel does, redzones and all: unchecked by
// AddressSanitizer (whose memcpy would refuse the poisoned bytes between
// frames), byte by byte through volatile so no memcpy call is made of it.
__attribute__((no_sanitize_address, noinline)) void copy_raw(uint8_t* to, uint64_t from, size_t n) {
  const volatile uint8_t* p = reinterpret_cast<const volatile uint8_t*>(from);
  for (size_t i = 0; i < n; ++i) to[i] = p[i];
}

__attribute__((noinline)) void capture(Capture* c, size_t bytes) {
  uint64_t* r = c->regs;
  asm volatile(
      "mov %%rax, 0(%0)\n\t"
      "mov %%rbx, 8(%0)\n\t"
      "mov %%rcx, 16(%0)\n\t"
      "mov %%rdx, 24(%0)\n\t"
      "mov %%rsi, 32(%0)\n\t"
      "mov %%rdi, 40(%0)\n\t"
      "mov %%rbp, 48(%0)\n\t"
      "mov %%rsp, 56(%0)\n\t"
      "mov %%r8, 72(%0)\n\t"
      "mov %%r9, 80(%0)\n\t"
      "mov %%r10, 88(%0)\n\t"
      "mov %%r11, 96(%0)\n\t"
      "mov %%r12, 104(%0)\n\t"
      "mov %%r13, 112(%0)\n\t"
      "mov %%r14, 120(%0)\n\t"
      "mov %%r15, 128(%0)\n\t"
      "1: lea 1b(%%rip), %%rax\n\t"
      "mov %%rax, 64(%0)\n\t"
      :
      : "r"(r)
      : "rax", "memory");
  const uint64_t sp = r[7];
  const uint64_t top = stack_top(sp);
  const size_t n = std::min<uint64_t>(bytes, top - sp);
  c->whole_stack = n == top - sp;
  c->stack.resize(n);
  copy_raw(c->stack.data(), sp, n);
  c->callers.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
}

__attribute__((noinline)) void level1(Capture* c, size_t bytes) {
  capture(c, bytes);
  c->callers.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  asm volatile("" ::: "memory");  // no tail call: this frame stays
}

__attribute__((noinline)) void level2(Capture* c, size_t bytes) {
  level1(c, bytes);
  c->callers.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  asm volatile("" ::: "memory");
}

Capture capture_here(size_t bytes) {
  Capture c;
  level2(&c, bytes);
  return c;
}

struct NoCfiArg {
  Capture* c;
};
__attribute__((noinline)) void from_nocfi(void* arg) {
  capture(static_cast<NoCfiArg*>(arg)->c, 65536);
  asm volatile("" ::: "memory");
}

// A capture from inside a signal handler: the stack holds the kernel's
// signal frame, which libc's restorer describes by CFI ('S' augmentation).
Capture* g_signal_capture = nullptr;  // the handler's target, set around raise() only
void on_signal(int) {
  capture(g_signal_capture, 65536);
}

__attribute__((noinline)) void raise_here(Capture* c, uint64_t* return_address) {
  g_signal_capture = c;
  ::raise(SIGUSR1);
  g_signal_capture = nullptr;
  *return_address = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  asm volatile("" ::: "memory");
}

Sample sample_of(const Capture& c) {
  Sample s;
  s.pid = static_cast<uint32_t>(::getpid());
  s.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  s.time = 1000;
  s.ip = c.regs[8];
  s.mode = Mode::User;
  s.user_regs_mask = perfabi::kDwarfUserRegs;
  s.user_regs.assign(std::begin(c.regs), std::end(c.regs));
  s.user_stack = c.stack;
  s.callchain = {c.regs[8]};
  s.kernel_frames = 0;
  return s;
}

std::vector<Mmap> own_maps() {
  std::ifstream f("/proc/self/maps");
  std::stringstream text;
  text << f.rdbuf();
  return collector::parse_proc_maps(text.str(), static_cast<uint32_t>(::getpid()), 0);
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// The one reason the single stack unwound stopped for, and where.
std::pair<UnwindStop, std::string> only_stop(const UnwindStats& st) {
  for (const UnwindStats::Image& i : st.images) {
    for (size_t k = 0; k < kUnwindStops; ++k) {
      if (i.samples[k] != 0) return {static_cast<UnwindStop>(k), i.name};
    }
  }
  return {UnwindStop::Other, "(none)"};
}

struct Unwound {
  std::vector<uint64_t> chain;
  UnwindStop stop = UnwindStop::Other;
  std::string image;
};

Unwound unwind_one(const Sample& s, const std::vector<Mmap>& maps) {
  Collect out;
  Unwinder u(out, 65536);
  for (const Mmap& m : maps) u.on_mmap(m);
  u.on_sample(s);
  EXPECT_EQ(out.samples.size(), 1u);
  if (out.samples.empty()) return {};
  EXPECT_TRUE(out.samples[0].user_stack.empty()) << "the copy is dropped once unwound";
  EXPECT_TRUE(out.samples[0].user_regs.empty());
  auto [stop, image] = only_stop(u.stats());
  EXPECT_EQ(u.stats().total(), 1u);
  return {out.samples[0].callchain, stop, image};
}

TEST(Unwinder, FindsEveryCallerByCfiAndReachesTheEntry) {
  const Capture c = capture_here(65536);
  ASSERT_EQ(c.callers.size(), 3u);
  const Unwound u = unwind_one(sample_of(c), own_maps());
  ASSERT_GE(u.chain.size(), 4u);
  EXPECT_EQ(u.chain[0], c.regs[8]);
  EXPECT_EQ(u.chain[1], c.callers[0]) << "capture's caller, level1";
  EXPECT_EQ(u.chain[2], c.callers[1]) << "level1's caller, level2";
  EXPECT_EQ(u.chain[3], c.callers[2]) << "level2's caller, capture_here";
  if (c.whole_stack) {
    EXPECT_EQ(u.stop, UnwindStop::Entry) << u.image << ", " << u.chain.size() << " frames";
  }
}

TEST(Unwinder, ACopyTooSmallStopsAtTheCopySize) {
  const Capture c = capture_here(64);
  const Unwound u = unwind_one(sample_of(c), own_maps());
  ASSERT_GE(u.chain.size(), 1u);
  EXPECT_EQ(u.chain[0], c.regs[8]);
  EXPECT_EQ(u.stop, UnwindStop::StackCopy);
  // What was found is right: never a caller from outside the copy.
  for (size_t i = 1; i < u.chain.size() && i <= c.callers.size(); ++i) {
    EXPECT_EQ(u.chain[i], c.callers[i - 1]);
  }
  EXPECT_LE(u.chain.size(), 3u);
}

TEST(Unwinder, AFileWhoseBuildIdDiffersIsNotRead) {
  const Capture c = capture_here(65536);
  std::vector<Mmap> maps = own_maps();
  const std::string exe = self_exe();
  ASSERT_FALSE(exe.empty());
  bool changed = false;
  for (Mmap& m : maps) {
    if (m.filename == exe) {
      m.build_id = "00112233445566778899aabbccddeeff00112233";
      changed = true;
    }
  }
  ASSERT_TRUE(changed);
  const Unwound u = unwind_one(sample_of(c), maps);
  EXPECT_EQ(u.chain, std::vector<uint64_t>{c.regs[8]});
  EXPECT_EQ(u.stop, UnwindStop::ImageChanged);
  EXPECT_EQ(u.image, exe);
}

TEST(Unwinder, CodeInNoFileStopsThere) {
  const Capture c = capture_here(65536);
  std::vector<Mmap> maps = own_maps();
  const std::string exe = self_exe();
  std::erase_if(maps, [&](const Mmap& m) { return m.filename == exe; });
  const Unwound u = unwind_one(sample_of(c), maps);
  EXPECT_EQ(u.chain, std::vector<uint64_t>{c.regs[8]});
  EXPECT_EQ(u.stop, UnwindStop::NoImage);
  EXPECT_EQ(u.image, "[anon]");
}

TEST(Unwinder, CodeWithoutCfiEndsTheStackWithoutGuessing) {
  Capture c;
  NoCfiArg arg{&c};
  unwind_nocfi_call(from_nocfi, &arg);
  const Unwound u = unwind_one(sample_of(c), own_maps());
  // capture -> from_nocfi (CFI) -> unwind_nocfi_call (none): three frames,
  // the last inside the library; nothing made up past it.
  ASSERT_EQ(u.chain.size(), 3u);
  EXPECT_EQ(u.chain[1], c.callers[0]);
  EXPECT_EQ(u.stop, UnwindStop::NoCfi);
  EXPECT_NE(u.image.find("libunwind_nocfi_lib.so"), std::string::npos) << u.image;
}

TEST(Unwinder, DebugFrameCfiIsFollowedWhereThereIsNoEhFrame) {
  Capture c;
  NoCfiArg arg{&c};
  unwind_debug_frame_call(from_nocfi, &arg);
  const Unwound u = unwind_one(sample_of(c), own_maps());
  // capture -> from_nocfi -> unwind_debug_frame_call (.debug_frame) -> this
  // test body and on.
  ASSERT_GE(u.chain.size(), 5u) << unwind_stop_name(u.stop) << " in " << u.image;
  EXPECT_EQ(u.chain[1], c.callers[0]);
  if (c.whole_stack) EXPECT_EQ(u.stop, UnwindStop::Entry) << u.image;
}

TEST(Unwinder, SignalFramesAreUnwoundToTheInterruptedCode) {
  struct sigaction sa {
  }, old{};
  sa.sa_handler = on_signal;
  ASSERT_EQ(::sigaction(SIGUSR1, &sa, &old), 0);
  Capture c;
  uint64_t raise_caller = 0;
  raise_here(&c, &raise_caller);
  ::sigaction(SIGUSR1, &old, nullptr);
  ASSERT_NE(raise_caller, 0u);
  const Unwound u = unwind_one(sample_of(c), own_maps());
  // capture -> on_signal -> (signal frame) -> raise's code -> raise_here ->
  // this test: the test's return address from raise_here is in the chain.
  EXPECT_NE(std::find(u.chain.begin(), u.chain.end(), raise_caller), u.chain.end())
      << u.chain.size() << " frames, stopped: " << unwind_stop_name(u.stop) << " in " << u.image;
  if (c.whole_stack) EXPECT_EQ(u.stop, UnwindStop::Entry) << u.image;
}

// Sessions beyond the open-file budget are closed, least recently used
// first, and made again when their process is sampled again: the stacks
// come out the same.
TEST(Unwinder, SessionsOverTheFileBudgetAreClosedAndMadeAgain) {
  const Capture c = capture_here(65536);
  const std::vector<Mmap> maps = own_maps();
  Collect out;
  Unwinder u(out, 65536, /*max_open_files=*/1);
  for (uint32_t pid : {101u, 102u, 103u}) {
    for (Mmap m : maps) {
      m.pid = m.tid = pid;
      u.on_mmap(m);
    }
  }
  for (int round = 0; round < 3; ++round) {
    for (uint32_t pid : {101u, 102u, 103u}) {
      Sample s = sample_of(c);
      s.pid = s.tid = pid;
      u.on_sample(s);
      ASSERT_GE(out.samples.back().callchain.size(), 4u) << "pid " << pid << " round " << round;
      EXPECT_EQ(out.samples.back().callchain[3], c.callers[2]);
    }
  }
  EXPECT_EQ(u.stats().total(), 9u);
}

TEST(Unwinder, GarbageRegistersAndStacksKeepTheUserIp) {
  std::mt19937_64 rng(42);
  const std::vector<Mmap> maps = own_maps();
  const Capture real = capture_here(4096);
  Collect out;
  Unwinder u(out, 4096);
  for (const Mmap& m : maps) u.on_mmap(m);
  for (int i = 0; i < 300; ++i) {
    Capture c = real;
    for (size_t k = 0; k < c.stack.size(); k += 8) {
      if (rng() % 4 == 0) {
        const uint64_t v = rng();
        std::memcpy(c.stack.data() + k, &v, std::min<size_t>(8, c.stack.size() - k));
      }
    }
    if (i % 3 == 0) c.regs[rng() % 17] = rng();
    if (i % 7 == 0) c.stack.resize(rng() % (c.stack.size() + 1));
    u.on_sample(sample_of(c));
    ASSERT_EQ(out.samples.size(), static_cast<size_t>(i + 1));
    const Sample& s = out.samples.back();
    ASSERT_FALSE(s.callchain.empty());
    EXPECT_EQ(s.callchain[0], c.regs[8]);
    EXPECT_LE(s.callchain.size(), kUnwindMaxFrames);
  }
  EXPECT_EQ(u.stats().total(), 300u);
}

// A recording's PerfRecords chunk: decoded through the Unwinder, then again
// through replay() (compaction's pass), the same stacks come out.
TEST(Unwinder, ReplayGivesCompactionTheStacksOfTheFirstPass) {
  const Capture c = capture_here(16384);
  const Sample s = sample_of(c);
  perfabi::SampleLayout layout{PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                                   PERF_SAMPLE_STACK_USER,
                               false};
  layout.regs_user = perfabi::kDwarfUserRegs;
  perfabi::Spool spool(layout);
  for (const Mmap& m : own_maps()) {
    if (!(m.prot & 4)) continue;
    perfabi::testing::PerfRecord r(PERF_RECORD_MMAP2);
    r.u32(m.pid).u32(m.pid).u64(m.start).u64(m.len).u64(m.pgoff);
    r.u32(0).u32(0).u64(0).u64(0);  // maj, min, ino, ino_generation
    r.u32(m.prot).u32(m.flags).str(m.filename);
    spool.add(r.done());
  }
  for (uint64_t t = 1; t <= 3; ++t) {
    perfabi::testing::PerfRecord r(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
    r.u64(s.ip).u32(s.pid).u32(s.tid).u64(t);
    r.u64(1).u64(PERF_CONTEXT_USER);  // the kernel's chain: nothing of the user's
    r.u64(PERF_SAMPLE_REGS_ABI_64);
    for (uint64_t v : s.user_regs) r.u64(v);
    r.u64(s.user_stack.size());
    std::vector<uint8_t> padded = s.user_stack;
    padded.resize((padded.size() + 7) / 8 * 8);
    for (size_t k = 0; k < padded.size(); k += 8) {
      uint64_t v;
      std::memcpy(&v, padded.data() + k, 8);
      r.u64(v);
    }
    r.u64(s.user_stack.size());  // dyn_size
    spool.add(r.done());
  }
  spool.end_block();
  const std::vector<uint8_t> payload = spool.take();

  Collect first, second;
  Unwinder u(first, 16384);
  perfabi::decode_spool(payload, u);
  ASSERT_EQ(first.samples.size(), 3u);
  EXPECT_GE(first.samples[0].callchain.size(), 4u);
  EXPECT_EQ(first.samples[0].callchain[1], c.callers[0]);
  u.replay().decode(payload, second);
  ASSERT_EQ(second.samples.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(second.samples[i].callchain, first.samples[i].callchain);
    EXPECT_TRUE(second.samples[i].user_stack.empty());
  }
  // Without the unwinder the decoder still gives the user IP as the chain.
  Collect plain;
  perfabi::decode_spool(payload, plain);
  ASSERT_EQ(plain.samples.size(), 3u);
  EXPECT_EQ(plain.samples[0].callchain, std::vector<uint64_t>{s.ip});
  EXPECT_EQ(plain.samples[0].user_stack, s.user_stack);
}

TEST(UnwindStats, RoundTripsAndSaysWhyStacksStopped) {
  UnwindStats st;
  st.stack_bytes = 8192;
  st.add("/usr/bin/postgres", UnwindStop::Entry, 90);
  st.add("/usr/lib/libfoo.so", UnwindStop::NoCfi, 8);
  st.add("/usr/bin/postgres", UnwindStop::StackCopy, 2);
  EXPECT_EQ(decode_unwind_stats(encode_unwind_stats(st)), st);
  EXPECT_EQ(unwind_notice(st),
            "DWARF unwinding (8192-byte stack copies): 90.0% of user stacks reached a thread's "
            "entry; 2.0% stopped at the copy size, 8.0% stopped in code without CFI (libfoo.so "
            "8.0%)");
  EXPECT_EQ(unwind_notice(UnwindStats{}), "");
}

TEST(UnwindStats, DamagedChunksAreRefusedByName) {
  UnwindStats st;
  st.stack_bytes = 8192;
  st.add("/a", UnwindStop::Entry, 5);
  st.add("/b", UnwindStop::NoCfi, 1);
  const std::vector<uint8_t> good = encode_unwind_stats(st);
  for (size_t cut = 1; cut < good.size(); ++cut) {
    const std::vector<uint8_t> bad(good.begin(), good.begin() + static_cast<ptrdiff_t>(cut));
    try {
      (void)decode_unwind_stats(bad);
      // A cut that ends between fields decodes what it holds: never more.
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("unwind"), std::string::npos) << e.what();
    }
  }
  // Images out of order (a second "/a" after "/b"): refused, not merged.
  UnwindStats twice = st;
  twice.images.push_back(st.images.front());
  try {
    (void)decode_unwind_stats(encode_unwind_stats(twice));
    ADD_FAILURE() << "images out of order were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("images out of order"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kprof::unwind
