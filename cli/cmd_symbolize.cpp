// `kprof symbolize FILE`: names a profile's samples again on this machine and
// appends the new Histogram, or a -g profile's Stacks (and End), to the file.
// Its main use: a recording cut short (kill -9, full disk) has its records
// (PerfRecords chunks) but no Histogram, so its user functions were never
// named; this names them afterwards, from the binaries still on disk.
//
// Finishing the file (kallsyms subset, naming with ELF files checked by
// build-id and names kept from the recording for files that changed, skid
// marks, compaction) is symbolizer/finish.h, shared with kprof record.
#include <cstdio>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "collector/kallsyms_cache.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/kallsyms_subset.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "perfabi/load.h"
#include "report/summary.h"
#include "symbolizer/finish.h"
#include "unwind/unwinder.h"

namespace kprof::cli {

int cmd_symbolize(int argc, char** argv) {
  CLI::App app{
      "Name a profile's samples again from the binaries on this machine (e.g. after kill -9) "
      "and append the new histogram to the file",
      "kprof symbolize"};
  std::string file = "kprof.data";
  app.add_option("FILE", file, "profile to symbolize in place")->capture_default_str();
  bool keep_stacks = false;
  app.add_flag("--keep-stacks", keep_stacks,
               "a --call-graph dwarf profile whose stack copies are in the file (cut short, or "
               "recorded with --keep-stacks): unwind them again and keep them, rather than "
               "dropping them once unwound");
  if (auto code = parse_args(app, argc, argv)) return *code;

  // One read: the records are counted by address as they go by (and, for a
  // --off-cpu recording cut short, its context switches followed).
  OffCpuBuilder off_cpu;
  // --call-graph dwarf: the user stacks are unwound again from the copies a
  // file cut short still holds (a finished one keeps its unwound stacks).
  const RunInfo run = read_run_info(file);
  std::optional<AddressAggregator> agg;
  std::optional<TeeSink> both;
  std::optional<unwind::Unwinder> unwinder;
  if (run.event.user_stack_bytes != 0) {
    agg.emplace(run.event.callchains);
    agg->leave_out(run.recorder_pid);
    agg->count_threads();
    if (is_clock_event(run.event)) agg->weigh_by_cpu_time();
    unwinder.emplace(both.emplace(*agg, off_cpu), run.event.user_stack_bytes);
  }
  Profile loaded = unwinder
                       ? perfabi::load_profile(file, {.records = &*unwinder})
                       : perfabi::load_profile(file, {.records = &off_cpu, .count_records = true});
  if (agg) loaded.counted = std::make_shared<const AddressCounts>(std::move(*agg).take_counts());
  // A file cut short before its kernel symbols were written: this boot's
  // cached snapshot names them (importer/import.h: with_boot_kallsyms), and
  // the file then keeps the lines it needs.
  bool from_boot_cache = false;
  if (loaded.kallsyms.empty() && !loaded.run.kallsyms_digest.empty()) {
    importer::BootKallsymsMatch boot =
        importer::match_boot_kallsyms(loaded.run, import_options(InputOptions{}).running);
    if (!boot.text.empty()) {
      loaded.kallsyms = std::move(boot.text);
      from_boot_cache = true;
      std::fprintf(stderr, "kprof: %s (%s); the file keeps the lines they need\n",
                   std::string(kBootCacheKallsymsNotice).c_str(), boot.path.c_str());
    } else if (!loaded.run.event.exclude_kernel) {
      std::fprintf(stderr, "kprof: kernel functions stay unnamed: %s\n", boot.why_not.c_str());
    }
  }
  const Profile profile = std::move(loaded);
  const AddressCounts& counts = *profile.counted;
  if (!profile.status.intact()) {
    std::fprintf(stderr, "kprof: %s is %s: symbolizing the %llu samples recovered\n", file.c_str(),
                 describe_status(profile.status).c_str(),
                 static_cast<unsigned long long>(counts.samples));
  }
  // The profile's addresses are this boot's when it was recorded on it: then
  // /proc/kcore holds the kernel text that ran there, for the skid marks (a
  // module unloaded and loaded again since is not told apart).
  const std::string boot = collector::current_boot_id();
  FinishOptions finish{.this_boot = !boot.empty() && profile.run.boot_id == boot,
                       .previous = profile.histogram ? &*profile.histogram : nullptr};
  // A finished file's records no longer hold the switches: its OffCpu chunk stays.
  std::optional<OffCpuCounts> off_counts;  // emplaced: no move assignment of the counts
  if (off_cpu.any()) {
    off_counts.emplace(std::move(off_cpu).finish());
    finish.off_cpu = &*off_counts;
    finish.off_cpu_tick_ns = off_cpu_tick_ns(profile.run.event);
    finish.sampled_is_ns = is_clock_event(profile.run.event);
    finish.off_cpu_source = "context switches (read again by kprof symbolize)";
  }
  if (unwinder && unwinder->stats().total() != 0) {  // a finished file keeps its Unwind chunk
    finish.unwind = &unwinder->stats();
    finish.perf_records = &unwinder->replay();
    finish.keep_perf_records = keep_stacks;
  }
  const FinishedProfile done = finish_profile(
      ProfileWriter::append(file), counts,
      {.kallsyms = profile.kallsyms, .modules = profile.modules, .in_file = !from_boot_cache},
      finish);
  for (const std::string& m : done.messages) std::fprintf(stderr, "kprof: %s\n", m.c_str());
  if (unwinder) {
    if (const std::string n = unwind_notice(unwinder->stats()); !n.empty()) {
      std::fprintf(stderr, "kprof: %s\n", n.c_str());
    }
  }
  if (done.kernel_addresses_hidden) {
    std::fprintf(stderr,
                 "kprof: the profile's kernel symbols have hidden addresses (kptr_restrict): "
                 "kernel samples stay [unknown]\n");
  }

  const Histogram& h = done.symbols.histogram;
  uint64_t named = 0;
  for (const FunctionCount& row : h.rows) {
    if (row.function != "[unknown]") named += row.samples;
  }
  std::fprintf(stderr,
               "[ kprof symbolize: %llu samples, %llu in named functions, written to %s ]\n",
               static_cast<unsigned long long>(h.total_samples()),
               static_cast<unsigned long long>(named), file.c_str());
  return 0;
}

}  // namespace kprof::cli
