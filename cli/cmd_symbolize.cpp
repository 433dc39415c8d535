// `kprof symbolize FILE`: names a profile's samples again on this machine and
// appends the new Histogram (and End) to the file. Its main use: a recording
// cut short (kill -9, full disk) has its Records chunks but no Histogram, so
// its user functions were never named; this names them afterwards, from the
// binaries still on disk.
//
// The naming itself (kallsyms snapshot, ELF files checked by build-id, names
// kept from the recording for files that changed) is symbolizer/
// profile_symbols.h, shared with kprof record.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "core/aggregate.h"
#include "core/compact.h"
#include "core/error.h"
#include "core/profile_writer.h"
#include "core/profile.h"
#include "core/file_layout.h"
#include "core/kallsyms_subset.h"
#include "core/kernel_symbols.h"
#include "perfabi/load.h"
#include "symbolizer/profile_symbols.h"

namespace kprof::cli {

int cmd_symbolize(int argc, char** argv) {
  CLI::App app{
      "Name a profile's samples again from the binaries on this machine (e.g. after kill -9) "
      "and append the new histogram to the file",
      "kprof symbolize"};
  std::string file = "kprof.data";
  app.add_option("FILE", file, "profile to symbolize in place")->capture_default_str();
  if (auto code = parse_args(app, argc, argv)) return *code;

  // One read: the records are counted by address as they go by.
  Profile loaded = perfabi::load_profile(file, {.count_records = true});
  // A file cut short before its kernel symbols were written: this boot's
  // cached snapshot names them (importer/import.h: with_boot_kallsyms), and
  // the file then keeps the lines it needs.
  const bool no_kallsyms = loaded.kallsyms.empty() && !loaded.run.kallsyms_digest.empty();
  if (no_kallsyms) {
    importer::BootKallsymsMatch boot =
        importer::match_boot_kallsyms(loaded.run, import_options(InputOptions{}).running);
    if (!boot.text.empty()) {
      loaded.kallsyms = std::move(boot.text);
      std::fprintf(stderr, "kprof: %s (%s); the file keeps the lines they need\n",
                   std::string(kBootCacheKallsymsNotice).c_str(), boot.path.c_str());
    } else if (!loaded.run.event.exclude_kernel) {
      std::fprintf(stderr, "kprof: kernel functions stay unnamed: %s\n", boot.why_not.c_str());
    }
  }
  const Profile profile = std::move(loaded);
  const AddressCounts& counts = *profile.counted;
  if (!profile.status.complete) {
    std::fprintf(stderr, "kprof: %s is cut short (%s): symbolizing the %llu samples recovered\n",
                 file.c_str(), profile.status.problem.c_str(),
                 static_cast<unsigned long long>(counts.samples));
  }
  KernelSymbols kernel = KernelSymbols::parse(profile.kallsyms, profile.modules);
  const ProfileSymbols symbols =
      symbolize_profile(counts, kernel, profile.histogram ? &*profile.histogram : nullptr);
  for (const std::string& warning : symbols.warnings) {
    std::fprintf(stderr, "kprof: %s\n", warning.c_str());
  }
  for (const std::string& image : symbols.kept_images) {
    std::fprintf(stderr, "kprof: %s: kept the names from the recording\n", image.c_str());
  }
  if (kernel.addresses_hidden()) {
    std::fprintf(stderr,
                 "kprof: the profile's kernel symbols have hidden addresses (kptr_restrict): "
                 "kernel samples stay [unknown]\n");
  }

  {
    // Appending truncates a damaged tail and a previous End; the last Histogram wins.
    ProfileWriter writer = ProfileWriter::append(file);
    if (no_kallsyms && !profile.kallsyms.empty()) {
      const std::string subset = kallsyms_subset(profile.kallsyms, profile.modules, counts);
      writer.write_chunk(ChunkType::Kallsyms,
                         std::span(reinterpret_cast<const uint8_t*>(subset.data()), subset.size()));
    }
    write_profile_symbols(writer, symbols);
  }
  // A recording cut short kept its Records chunks uncompressed (kprof record
  // compresses them when it ends): the file is complete now, so do that.
  try {
    perfabi::compact_profile(file);
  } catch (const Error& e) {
    std::fprintf(stderr, "kprof: %s; the profile is complete, its records left uncompressed\n",
                 e.what());
  }

  const Histogram& h = symbols.histogram;
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
