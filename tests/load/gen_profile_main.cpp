// kprof_gen_profile OUT SAMPLES [SEED] [--raw]: writes a synthetic profile
// (tests/load/gen_profile.h) for the load benchmarks. --raw leaves out the
// histogram and end marker, as a recording killed with SIGKILL does.
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/error.h"
#include "tests/load/gen_profile.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: kprof_gen_profile OUT SAMPLES [SEED] [--raw]\n";
    return 2;
  }
  kprof::load::GenOptions o;
  o.samples = std::strtoull(argv[2], nullptr, 10);
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--raw") == 0) {
      o.histogram = false;
      o.end = false;
    } else {
      o.seed = std::strtoull(argv[i], nullptr, 10);
    }
  }
  try {
    kprof::load::GenResult r = kprof::load::generate_profile(argv[1], o);
    std::cout << argv[1] << ": " << r.samples << " samples, " << r.bytes << " bytes, top "
              << r.top_kernel_function << "\n";
  } catch (const kprof::Error& e) {
    std::cerr << "kprof_gen_profile: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
