// Shared helpers for core tests: a temporary directory and sample structs.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/model.h"

namespace kprof::testing {

// A fresh directory removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kprof-core-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline RunInfo sample_run_info() {
  RunInfo ri;
  ri.event = {"CPU_CLK_UNHALTED:100000",
              "cpu-clock",
              1,
              0,
              false,
              100000,
              true,
              "no hardware PMU (ENOENT opening cycles)",
              false,
              true};
  ri.target = "command";
  ri.command = {"/bin/sh", "-c", "echo hi"};
  ri.kernel_release = "6.18.0-test";
  ri.kernel_build_id = "0123abcd";
  ri.hostname = "box";
  ri.cpu_model = "Some CPU @ 2.0GHz";
  ri.ncpus = 2;
  ri.start_realtime_ns = 1700000000123456789ULL;
  ri.start_monotonic_ns = 987654321;
  ri.stat_before = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  ri.notices = {"fell back to cpu-clock", "kernel samples hidden"};
  ri.scores = {{"tps", 1234.5}, {"jobs", -2}};
  ri.recorder_pid = 4321;
  EventInfo faults;
  faults.requested = faults.name = "page-faults";
  faults.type = 1;
  faults.config = 2;
  faults.use_freq = false;
  faults.rate = 1;
  EventInfo insns = faults;
  insns.requested = "instructions";
  insns.name = "cpu-clock";
  insns.fell_back = true;
  insns.fallback_reason = "no hardware PMU";
  ri.more_events = {faults, insns};
  return ri;
}

inline Summary sample_summary() {
  Summary s;
  s.duration_ns = 1'500'000'000;
  s.samples = 4242;
  s.lost = 3;
  s.exit = {ExitStatus::Kind::Signaled, 9};
  s.real_s = 1.5;
  s.user_s = 1.25;
  s.sys_s = 0.125;
  s.kprof_user_s = 0.01;
  s.kprof_sys_s = 0.02;
  s.stop_reason = "SIGINT";
  s.stat_after = {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  s.throttled = 5;
  return s;
}

inline Histogram sample_histogram() {
  Histogram h;
  h.images = {{"[kernel]", ""}, {"/usr/lib/libc.so.6", "deadbeef"}};
  h.rows = {{0, "do_syscall_64", Mode::Kernel, 10, 1000, 7, 0xffffffff81001234ull, true},
            {1, "memcpy", Mode::User, 5, 500},
            {1, "[unknown]", Mode::User, 1, 100}};
  return h;
}

}  // namespace kprof::testing
