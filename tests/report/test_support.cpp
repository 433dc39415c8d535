#include "tests/report/test_support.h"
#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/file_layout.h"
#include "core/profile_writer.h"
#include "tests/support/histogram_rows.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kprof::test {

namespace fs = std::filesystem;

namespace {}  // namespace

std::string ProfileBuilder::write(const std::string& path) const {
  ProfileWriter w = ProfileWriter::create(path);
  w.write_chunk(ChunkType::Meta, encode_run_info(run), false);
  if (!kallsyms.empty()) w.write_chunk(ChunkType::Kallsyms, bytes_of(kallsyms), false);
  if (!modules.empty()) w.write_chunk(ChunkType::Modules, bytes_of(modules), false);
  for (const auto& r : records) w.write_chunk(ChunkType::Records, r, false);
  if (summary) w.write_chunk(ChunkType::Summary, encode_summary(*summary), false);
  if (histogram) w.write_chunk(ChunkType::Histogram, encode_histogram_rows(*histogram), false);
  if (stacks) w.write_chunk(ChunkType::Stacks, encode_stacks(*stacks), false);
  if (end) w.write_end();
  return path;
}

RunInfo sample_run() {
  RunInfo r;
  r.event.requested = "cycles";
  r.event.name = "cycles";
  r.event.type = 0;
  r.event.config = 0;
  r.event.use_freq = true;
  r.event.rate = 4000;
  r.target = "command";
  r.command = {"./bench", "--iterations", "3"};
  r.kernel_release = "6.18.0-kprof";
  r.kernel_build_id = "0123456789abcdef0123456789abcdef01234567";
  r.hostname = "testbox";
  r.cpu_model = "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz";
  r.ncpus = 8;
  r.start_realtime_ns = 1714566896ull * 1000000000ull;  // 2024-05-01 12:34:56 UTC
  r.start_monotonic_ns = 5000000000ull;
  r.stat_before = {.time_ns = 1000000000,
                   .user = 100,
                   .system = 50,
                   .idle = 800,
                   .iowait = 50,
                   .intr = 1000,
                   .ctxt = 500};
  return r;
}

Summary sample_summary() {
  Summary s;
  s.duration_ns = 2000000000;
  s.samples = 1000;
  s.lost = 0;
  s.exit = {ExitStatus::Kind::Exited, 0};
  s.real_s = 1.98;
  s.user_s = 1.75;
  s.sys_s = 0.2;
  s.kprof_user_s = 0.01;
  s.kprof_sys_s = 0.02;
  s.stop_reason = "workload exited";
  s.stat_after = {.time_ns = 3000000000,
                  .user = 200,
                  .system = 100,
                  .idle = 1100,
                  .iowait = 100,
                  .intr = 3000,
                  .ctxt = 2500};
  return s;
}

std::string temp_dir(const std::string& name) {
  fs::path dir = fs::path(KPROF_TEST_BINARY_DIR) / "report_tmp" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string golden_mismatch(const std::string& name, const std::string& actual) {
  return golden_mismatch(std::string(KPROF_SOURCE_DIR) + "/tests/report/golden",
                         KPROF_TEST_BINARY_DIR, name, actual);
}

}  // namespace kprof::test
