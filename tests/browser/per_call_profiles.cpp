// kprof_per_call_profiles BASE SLOW: writes two -g profiles with system-call
// counts whose costs are known by construction (issue 25's page section):
// chdir costs 1,000 ns a call on BASE and 1,300 on SLOW, the 300 all in
// rt_spin_unlock; newuname 200 ns on both; 1,000,000 calls each; one sample
// is 1 ms of cpu-clock.
#include <cstdio>
#include <string>
#include <vector>

#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/model.h"
#include "core/profile_writer.h"
#include "core/stacks.h"
#include "core/syscall_counts.h"

namespace {

void write(const std::string& out, uint64_t extra) {
  using namespace kprof;
  Stacks st;
  st.images = {{"[kernel]", ""}, {"/usr/bin/app", ""}};
  st.processes = {{42, "app"}};
  auto frame = [&](const std::string& name, Mode mode = Mode::Kernel) {
    st.frames.push_back({mode == Mode::User ? 1u : 0u, name, mode});
    return static_cast<uint32_t>(st.frames.size() - 1);
  };
  const uint32_t main_f = frame("main", Mode::User), entry = frame("entry_SYSCALL_64"),
                 dispatch = frame("do_syscall_64"), chdir = frame("__x64_sys_chdir"),
                 uname = frame("__do_sys_newuname"), walk = frame("link_path_walk"),
                 unlock = frame("rt_spin_unlock"), copy = frame("_copy_to_user");
  const std::vector<uint32_t> path = {dispatch, entry, main_f};
  auto add = [&](std::vector<uint32_t> frames, uint64_t samples) {
    frames.insert(frames.end(), path.begin(), path.end());
    st.stacks.push_back({0, frames, samples, samples * 1'000'000});
  };
  add({walk, chdir}, 1000);
  add({copy, uname}, 200);
  add({}, 100);
  if (extra) add({unlock, chdir}, extra);
  RunInfo run;
  run.event.name = "cpu-clock";
  run.event.callchains = true;
  run.event.rate = 1000;
  run.target = "command";
  run.command = {"app"};
  run.kernel_release = extra ? "6.1.0-rt" : "6.1.0";
  run.ncpus = 2;
  Summary summary;
  summary.duration_ns = 2'000'000'000;
  SyscallCounts counts;
  counts.calls = {{"chdir", 1'000'000}, {"newuname", 1'000'000}};
  counts.source = "made in code";
  ProfileWriter w = ProfileWriter::create(out);
  w.write_chunk(ChunkType::Meta, encode_run_info(run));
  w.write_chunk(ChunkType::Stacks, encode_stacks(st));
  w.write_chunk(ChunkType::SyscallCounts, encode_syscall_counts(counts));
  w.write_chunk(ChunkType::Summary, encode_summary(summary));
  w.write_end();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: kprof_per_call_profiles BASE SLOW\n");
    return 2;
  }
  try {
    write(argv[1], 0);
    write(argv[2], 300);
  } catch (const kprof::Error& e) {
    std::fprintf(stderr, "kprof_per_call_profiles: %s\n", e.what());
    return 1;
  }
  return 0;
}
