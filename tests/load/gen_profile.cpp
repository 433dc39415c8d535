#include "tests/load/gen_profile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/file_layout.h"
#include "core/profile_writer.h"
#include "core/records_chunk.h"
#include "tests/support/histogram_rows.h"

namespace kprof::load {

namespace {

constexpr uint64_t kKernelBase = 0xffffffff81000000ull;
constexpr uint32_t kKernelFunctions = 4000;
constexpr uint64_t kKernelFunctionBytes = 0x200;
constexpr uint32_t kUserFunctions = 400;
constexpr uint64_t kUserFunctionBytes = 0x400;
constexpr uint32_t kHotSpots = 32;  // distinct ips sampled inside one function
constexpr uint64_t kStartNs = 5'000'000'000ull;
constexpr uint64_t kStepNs = 500'000;  // 2 CPUs at 1 kHz

// splitmix64: fast, and the same sequence on every platform.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Skewed index in [0, n): index 0 is hit about n^(-1/3) of the time.
  uint32_t skewed(uint32_t n) {
    double u = uniform();
    return std::min(n - 1, static_cast<uint32_t>(n * u * u * u));
  }
};

struct UserImage {
  std::string path;
  std::string prefix;  // function name prefix
};

const std::vector<UserImage>& user_images() {
  static const std::vector<UserImage> images = {
      {"/usr/lib/postgresql/15/bin/postgres", "pg_fn_"},
      {"/usr/lib/x86_64-linux-gnu/libc.so.6", "libc_fn_"},
      {"/usr/lib/x86_64-linux-gnu/libpq.so.5", "libpq_fn_"},
  };
  return images;
}

uint64_t user_base(uint32_t process, uint32_t image) {
  return 0x5555'0000'0000ull + process * 0x1'0000'0000ull + image * 0x1000'0000ull;
}

// A few clone-suffixed names, as real kernels have.
std::string kernel_name(uint32_t i) {
  const char* suffix = (i % 97 == 5) ? ".isra.0" : (i % 89 == 7) ? ".constprop.0" : "";
  return "kfunc_" + std::to_string(i) + suffix;
}

std::string kallsyms_text() {
  std::string text;
  text.reserve(kKernelFunctions * 40);
  char line[96];
  for (uint32_t i = 0; i < kKernelFunctions; ++i) {
    std::snprintf(line, sizeof line, "%016llx T %s\n",
                  static_cast<unsigned long long>(kKernelBase + i * kKernelFunctionBytes),
                  kernel_name(i).c_str());
    text += line;
  }
  return text;
}

RunInfo run_info(const GenOptions& o) {
  RunInfo r;
  r.event.requested = "cpu-clock";
  r.event.name = "cpu-clock";
  r.event.type = 1;
  r.event.config = 0;
  r.event.use_freq = true;
  r.event.rate = 1000;
  r.target = "system-wide";
  r.kernel_release = "6.18.0-load";
  r.hostname = "loadbox";
  r.cpu_model = "synthetic";
  r.ncpus = 2;
  r.start_realtime_ns = 1714566896ull * 1000000000ull;
  r.start_monotonic_ns = kStartNs;
  r.notices = {"synthetic profile, seed " + std::to_string(o.seed)};
  return r;
}

}  // namespace

GenResult generate_profile(const std::string& path, const GenOptions& o) {
  ProfileWriter w = ProfileWriter::create(path);
  w.write_chunk(ChunkType::Meta, encode_run_info(run_info(o)));
  const std::string kallsyms = kallsyms_text();
  w.write_chunk(ChunkType::Kallsyms, bytes_of(kallsyms));

  const auto& images = user_images();
  const uint32_t nimages = static_cast<uint32_t>(images.size());
  RecordEncoder enc;
  // Side-band records first, as the recorder synthesizes them from /proc.
  for (uint32_t p = 0; p < o.processes; ++p) {
    const uint32_t pid = 1000 + p;
    enc.add(Comm{.time = kStartNs, .pid = pid, .tid = pid, .comm = "worker" + std::to_string(p)});
    for (uint32_t i = 0; i < nimages; ++i) {
      enc.add(Mmap{.time = kStartNs,
                   .pid = pid,
                   .tid = pid,
                   .start = user_base(p, i),
                   .len = kUserFunctions * kUserFunctionBytes,
                   .pgoff = 0,
                   .prot = 5,   // PROT_READ | PROT_EXEC
                   .flags = 2,  // MAP_PRIVATE
                   .filename = images[i].path});
    }
  }

  // Counts for the Histogram chunk, tallied while generating.
  std::vector<uint64_t> kernel_hits(kKernelFunctions), kernel_period(kKernelFunctions);
  std::vector<uint64_t> user_hits(nimages * kUserFunctions), user_period(nimages * kUserFunctions);
  Rng rng{o.seed};
  Sample s;
  for (uint64_t n = 0; n < o.samples; ++n) {
    const uint64_t r = rng.next();
    s.time = kStartNs + n * kStepNs;
    s.cpu = static_cast<uint32_t>(n & 1);
    const uint32_t p = static_cast<uint32_t>(r % o.processes);
    s.pid = 1000 + p;
    s.tid = s.pid + static_cast<uint32_t>((r >> 8) % 4);  // a few threads each
    s.period = 1'000'000 + (r >> 16) % 1000;
    const uint64_t spot = ((r >> 32) % kHotSpots) * 16;
    if ((r >> 48) % 10 < 4) {  // 40% kernel
      const uint32_t f = rng.skewed(kKernelFunctions);
      s.mode = Mode::Kernel;
      s.ip = kKernelBase + f * kKernelFunctionBytes + spot;
      ++kernel_hits[f];
      kernel_period[f] += s.period;
    } else {
      const uint32_t img = static_cast<uint32_t>((r >> 56) % nimages);
      const uint32_t f = rng.skewed(kUserFunctions);
      s.mode = Mode::User;
      s.ip = user_base(p, img) + f * kUserFunctionBytes + spot;
      ++user_hits[img * kUserFunctions + f];
      user_period[img * kUserFunctions + f] += s.period;
    }
    enc.add(s);
    if (enc.count() >= o.samples_per_chunk) w.write_chunk(ChunkType::Records, enc.take());
  }
  if (!enc.empty()) w.write_chunk(ChunkType::Records, enc.take());

  GenResult result;
  result.samples = o.samples;
  const auto top = std::max_element(kernel_hits.begin(), kernel_hits.end());
  result.top_kernel_function = kernel_name(static_cast<uint32_t>(top - kernel_hits.begin()));

  if (o.histogram) {
    Summary sum;
    sum.duration_ns = o.samples * kStepNs;
    sum.samples = o.samples;
    sum.stop_reason = "SIGINT";
    w.write_chunk(ChunkType::Summary, encode_summary(sum));
    Histogram h;
    h.images.push_back({"[kernel]", ""});
    for (const UserImage& img : images) h.images.push_back({img.path, ""});
    for (uint32_t f = 0; f < kKernelFunctions; ++f) {
      if (kernel_hits[f] == 0) continue;
      h.rows.push_back({0, kernel_name(f), Mode::Kernel, kernel_hits[f], kernel_period[f]});
    }
    for (uint32_t i = 0; i < nimages; ++i) {
      for (uint32_t f = 0; f < kUserFunctions; ++f) {
        const uint64_t hits = user_hits[i * kUserFunctions + f];
        if (hits == 0) continue;
        h.rows.push_back({i + 1, images[i].prefix + std::to_string(f), Mode::User, hits,
                          user_period[i * kUserFunctions + f]});
      }
    }
    w.write_chunk(ChunkType::Histogram, encode_histogram_rows(h));
  }
  if (o.end) w.write_end();
  result.bytes = w.bytes_written();
  return result;
}

}  // namespace kprof::load
