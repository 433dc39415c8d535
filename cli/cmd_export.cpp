// `kprof export [FILE] --format folded|pprof [-o OUT]`: a profile's stacks in
// another tool's format. Options here; the formats live in export/.
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "core/error.h"
#include "core/profile.h"
#include "export/export.h"
#include "report/off_cpu.h"
#include "report/summary.h"

namespace kprof::cli {

namespace {

// "run.kprof" -> "run.pb.gz", "kprof.data" -> "kprof.data.pb.gz".
std::string default_pprof_path(const std::string& file) {
  std::string stem = file;
  const std::string ext = ".kprof";
  if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
    stem.resize(stem.size() - ext.size());
  return stem + ".pb.gz";
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

int cmd_export(int argc, char** argv) {
  CLI::App app{
      "A profile's call stacks (or, without -g, its functions) for other tools:\n"
      "  folded  one line per stack, root first, for flamegraph.pl, speedscope, inferno\n"
      "  pprof   gzip-compressed profile.proto, for `go tool pprof` and pprof's web UI",
      "kprof export"};
  std::string file = "kprof.data";
  std::string format;
  std::string out;
  FoldedOptions folded;
  InputOptions input;
  app.add_option("FILE", file, "profile to read: .kprof or perf.data ('-': standard input)")
      ->capture_default_str();
  add_input_options(app, input);
  SampleFilter filter;
  add_filter_options(app, filter);
  app.add_option("--format,-f", format, "folded or pprof")
      ->required()
      ->check(CLI::IsMember({"folded", "pprof"}));
  app.add_option("--output,-o", out,
                 "file to write, '-' for stdout (default: stdout for folded; for pprof "
                 "FILE with .kprof replaced by .pb.gz; pprof never goes to a terminal)");
  app.add_flag("--per-pid", folded.pid,
               "folded: one process frame per process (comm-pid), not per program name (comm)");
  bool off_cpu = false;
  app.add_flag("--off-cpu", off_cpu,
               "the stacks of time off CPU (kprof record --off-cpu), under [blocked] and [run "
               "queue], each sample one sampling period");
  if (auto code = parse_args(app, argc, argv)) return *code;
  const ExportFormat fmt = parse_export_format(format);
  if (out.empty()) out = fmt == ExportFormat::Pprof ? default_pprof_path(file) : "-";

  check_off_cpu_filter(off_cpu, filter);
  Profile profile = load_filtered(file, input, filter);
  if (off_cpu) profile = off_cpu_profile(std::move(profile), file);
  ProfileHistogram hist = histogram_of(profile);
  require_recovered_samples(profile, hist);
  if (out != "-" && same_file(out, file))
    throw Error("-o '" + out + "' is the profile being read; choose another output", 2);

  Output output = open_output(out);
  if (export_format_is_binary(fmt) && output.is_terminal())
    throw Error(std::string("refusing to write ") + export_format_name(fmt) +
                    " (gzip) data to a terminal: use -o FILE or redirect stdout",
                2);
  if (!hist.notice.empty()) std::fprintf(stderr, "kprof export: %s\n", hist.notice.c_str());
  write_export(output.stream(), fmt, profile, hist, folded);
  output.close();
  if (!output.is_stdout()) {
    const uint64_t samples =
        hist.stacks ? hist.stacks->total_samples() : hist.histogram.total_samples();
    std::fprintf(stderr, "kprof export: wrote %s of %llu samples (%s) to %s\n",
                 export_format_name(fmt), static_cast<unsigned long long>(samples),
                 hist.stacks ? "call stacks" : "functions only, no -g", output.name().c_str());
  }
  return 0;
}

}  // namespace kprof::cli
