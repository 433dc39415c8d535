// kprof_deep_stacks_profile OUT: writes a -g profile whose stacks are shallow
// but for a few very deep ones (issue 23, item 2: a handful of 127-frame
// garbage chains made the page's flame graph 2,304 px tall and nearly white).
// 9,991 samples: app -> main -> work -> {leaf_a, leaf_b}, depth 4 under the
// root; 9 samples: app -> main -> deep_entry -> deep_1 -> ... -> deep_150.
// The page must draw the shallow part only, and the deep chain on zoom.
#include <cstdio>
#include <string>

#include "core/chunk_codecs.h"
#include "core/error.h"
#include "core/model.h"
#include "core/profile_writer.h"
#include "core/stacks.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kprof_deep_stacks_profile OUT\n");
    return 2;
  }
  using namespace kprof;
  Stacks st;
  st.images = {{"/usr/bin/app", ""}};
  st.processes = {{42, "app"}};
  auto frame = [&](const std::string& name) {
    st.frames.push_back({0, name, Mode::User});
    return static_cast<uint32_t>(st.frames.size() - 1);
  };
  const uint32_t main_f = frame("main"), work = frame("work"), leaf_a = frame("leaf_a"),
                 leaf_b = frame("leaf_b"), entry = frame("deep_entry");
  st.stacks.push_back({0, {leaf_a, work, main_f}, 6000, 6000});
  st.stacks.push_back({0, {leaf_b, work, main_f}, 3991, 3991});
  std::vector<uint32_t> deep;
  for (int i = 150; i >= 1; --i) deep.push_back(frame("deep_" + std::to_string(i)));
  deep.push_back(entry);
  deep.push_back(main_f);
  st.stacks.push_back({0, deep, 9, 9});
  RunInfo run;
  run.event.name = "cpu-clock";
  run.event.callchains = true;
  run.event.rate = 999;
  run.target = "command";
  run.command = {"app"};
  run.kernel_release = "6.1.0-test";
  run.ncpus = 2;
  try {
    ProfileWriter w = ProfileWriter::create(argv[1]);
    w.write_chunk(ChunkType::Meta, encode_run_info(run));
    w.write_chunk(ChunkType::Stacks, encode_stacks(st));
    w.write_end();
  } catch (const Error& e) {
    std::fprintf(stderr, "kprof_deep_stacks_profile: %s\n", e.what());
    return 1;
  }
  return 0;
}
