#include "tests/diff/diff_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace kprof::difftest {

namespace {

struct SeedRow {
  double pct;
  const char* name;
};

// The seed's "oprofile CPU_CLK_UNHALTED for top 30 functions", verbatim.
const SeedRow kRhel[] = {
    {70.5642, "<dbms>"},
    {1.4696, "mpt_interrupt"},
    {0.9001, "kmem_cache_free"},
    {0.7807, "schedule"},
    {0.7769, "__blockdev_direct_IO"},
    {0.6053, "scsi_request_fn"},
    {0.5003, "kmem_cache_alloc"},
    {0.4355, "kmem_cache_zalloc"},
    {0.4090, "list_del"},
    {0.3570, "gup_huge_pmd"},
    {0.3452, "__switch_to"},
    {0.3399, "kfree"},
    {0.3371, "task_rq_lock"},
    {0.3173, "__sigsetjmp"},
    {0.3153, "memmove"},
    {0.2869, "lock_timer_base"},
    {0.2851, "generic_make_request"},
    {0.2613, "scsi_get_command"},
    {0.2599, "__generic_file_aio_read"},
    {0.2567, "fget_light"},
    {0.2434, "mptscsih_io_done"},
    {0.2413, "touch_atime"},
    {0.2380, "get_request"},
    {0.2282, "try_to_wake_up"},
    {0.2248, "mptscsih_qcmd"},
    {0.2196, "sd_init_command"},
    {0.2035, "device_not_available"},
    {0.2032, "elv_queue_empty"},
    {0.2007, "__errno_location"},
    {0.2006, "math_state_restore"},
    {0.2003, "_setjmp"},
    {0.1995, "kref_get"},
    {0.1979, "mempool_alloc"},
    {0.1965, "scsi_prep_fn"},
};

const SeedRow kMainline[] = {
    {69.4350, "<dbms>"},
    {0.9540, "mpt_interrupt"},
    {0.7649, "scsi_request_fn"},
    {0.6990, "__blockdev_direct_IO"},
    {0.6729, "schedule"},
    {0.6721, "kmem_cache_alloc"},
    {0.6245, "kmem_cache_free"},
    {0.4556, "pick_next_highest_task_rt"},
    {0.3538, "__switch_to"},
    {0.3397, "memmove"},
    {0.3339, "rb_get_reader_page"},
    {0.3318, "try_to_wake_up"},
    {0.3309, "sd_prep_fn"},
    {0.3219, "list_del"},
    {0.3217, "ring_buffer_consume"},
    {0.3100, "kfree"},
    {0.3085, "__sigsetjmp"},
    {0.3073, "mptscsih_qcmd"},
    {0.2810, "scsi_device_unbusy"},
    {0.2727, "generic_make_request"},
    {0.2510, "touch_atime"},
    {0.2480, "generic_file_aio_read"},
    {0.2453, "memset_c"},
    {0.2448, "fget_light"},
    {0.2218, "dequeue_rt_stack"},
    {0.2140, "sys_io_submit"},
    {0.2063, "scsi_dispatch_cmd"},
    {0.2027, "_setjmp"},
    {0.1996, "mptscsih_io_done"},
    {0.1973, "gup_huge_pmd"},
    {0.1908, "__list_add"},
    {0.1880, "submit_page_section"},
    {0.1879, "task_rq_lock"},
    {0.1856, "__errno_location"},
};

constexpr uint64_t kTotal = 1000000;
constexpr int kFillers = 160;

// The DBMS binary was redacted to "<dbms>" in the seed and oprofile listed it
// as one line: it is one row, in its own user image. glibc's functions are
// user code in libc; everything else is the kernel.
Entry seed_entry(const SeedRow& r) {
  const auto samples = static_cast<uint64_t>(std::llround(r.pct * kTotal / 100.0));
  const std::string name = r.name;
  if (name == "<dbms>") return {"<dbms>", name, Mode::User, samples};
  if (name == "__sigsetjmp" || name == "_setjmp" || name == "__errno_location") {
    return {"/lib64/libc.so.6", name, Mode::User, samples};
  }
  return {"[kernel]", name, Mode::Kernel, samples};
}

template <size_t N>
std::vector<Entry> seed_profile(const SeedRow (&rows)[N]) {
  std::vector<Entry> out;
  uint64_t listed = 0;
  for (const SeedRow& r : rows) {
    out.push_back(seed_entry(r));
    listed += out.back().samples;
  }
  const uint64_t rest = kTotal - listed;
  for (int i = 0; i < kFillers; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "filler_%03d", i);
    out.push_back({"[kernel]", name, Mode::Kernel,
                   rest / kFillers + (static_cast<uint64_t>(i) < rest % kFillers ? 1 : 0)});
  }
  return out;
}

// /proc/stat snapshots 100 s apart giving the seed's summary row.
void set_stat(DiffRun& run, uint64_t intr_per_s, uint64_t ctxsw_per_s, uint64_t us, uint64_t sys,
              uint64_t idle, uint64_t iowait) {
  run.run.stat_before = {1000000000, 5000, 0, 2000, 90000, 300, 0, 0, 0, 123456, 654321};
  ProcStat after = run.run.stat_before;
  after.time_ns += 100000000000ull;
  after.user += us * 100;
  after.system += sys * 100;
  after.idle += idle * 100;
  after.iowait += iowait * 100;
  after.intr += intr_per_s * 100;
  after.ctxt += ctxsw_per_s * 100;
  run.summary->stat_after = after;
}

}  // namespace

Histogram make_histogram(const std::vector<Entry>& entries, uint64_t period_per_sample) {
  Histogram h;
  std::map<std::string, uint32_t> images;
  for (const Entry& e : entries) {
    auto [it, added] = images.try_emplace(e.image, static_cast<uint32_t>(h.images.size()));
    if (added) h.images.push_back({e.image, ""});
    h.rows.push_back({it->second, e.function, e.mode, e.samples, e.samples * period_per_sample});
  }
  return h;
}

DiffRun make_run(const std::string& release, const std::vector<Entry>& entries) {
  DiffRun run;
  run.source = release + ".kprof";
  run.run.event = {"CPU_CLK_UNHALTED:100000", "cycles", 0, 0, false, 100000};
  run.run.kernel_release = release;
  run.run.cpu_model = "Intel(R) Xeon(R) CPU X5570 @ 2.93GHz";
  run.run.ncpus = 16;
  run.histogram = make_histogram(entries);
  Summary s;
  s.duration_ns = 100000000000ull;
  s.samples = run.histogram.total_samples();
  s.real_s = 100;
  run.summary = s;
  return run;
}

DiffInput seed_oltp_input() {
  DiffRun rhel = make_run("2.6.18-164.el5", seed_profile(kRhel));
  rhel.run.scores["oltp"] = 1.000;
  set_stat(rhel, 144080, 181307, 68, 28, 1, 4);
  DiffRun mainline = make_run("2.6.33-rc4", seed_profile(kMainline));
  mainline.run.scores["oltp"] = 0.992;
  set_stat(mainline, 221354, 180750, 68, 30, 0, 2);
  DiffInput in;
  in.sides = {{"", {rhel}}, {"", {mainline}}};
  return in;
}

std::string golden_mismatch(const std::string& name, const std::string& actual) {
  return test::golden_mismatch(std::string(KPROF_SOURCE_DIR) + "/tests/diff/golden",
                               KPROF_TEST_BINARY_DIR, name, actual);
}

bool any_flagged(const DiffResult& r) {
  for (const DiffRow& row : r.rows) {
    const DiffCompare& c = row.vs_base[1];
    if (c.sided != Sidedness::Neither && !c.untested && !c.within_noise) return true;
  }
  return false;
}

}  // namespace kprof::difftest
