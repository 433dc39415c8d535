#include "cli/inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "cli/parse.h"
#include "collector/kallsyms_cache.h"
#include "collector/procfs.h"

namespace kprof::cli {

void add_input_options(CLI::App& app, InputOptions& options) {
  app.add_option("--event", options.event,
                 "perf.data holding several events: the one to read (default: the first)");
  app.add_option("--kallsyms", options.kallsyms,
                 "perf.data: kernel symbols from this copy of the recording machine's "
                 "/proc/kallsyms (default: this machine's when it runs the same kernel, else "
                 "perf's build-id cache)");
}

void add_filter_options(CLI::App& app, SampleFilter& filter) {
  app.add_option("--comm", filter.comms,
                 "count only the samples of these processes (by name; comma-separated, or "
                 "repeated; -g profiles)")
      ->delimiter(',')
      ->type_name("COMM");
  app.add_option("--pid", filter.pids,
                 "count only the samples of these process ids (comma-separated; -g profiles)")
      ->delimiter(',')
      ->type_name("PID");
  app.add_option("--dso", filter.dsos,
                 "count only the samples that hit these images: a path, a file name "
                 "(libc.so.6) or [kernel.kallsyms] (comma-separated)")
      ->delimiter(',')
      ->type_name("IMAGE");
  app.add_option("--symbol", filter.symbols,
                 "count only the samples that hit this function (as --callers takes it; "
                 "repeat for several)")
      ->type_name("FUNC");
}

importer::ImportOptions import_options(const InputOptions& options) {
  importer::ImportOptions o;
  o.event = options.event;
  o.kallsyms_file = options.kallsyms;
  o.running.release = collector::kernel_release();
  o.running.build_id = collector::kernel_build_id();
  // This boot's kallsyms as kprof record keeps it (collector/kallsyms_cache.h):
  // the kernel printing /proc/kallsyms again would be a third of reading a
  // large perf.data.
  o.running.kallsyms = [] {
    const collector::KallsymsCache cache(collector::KallsymsCache::default_dir());
    if (auto snapshot = cache.load(collector::read_modules())) return std::move(snapshot->text);
    collector::KallsymsSnapshot fresh = collector::read_kallsyms_snapshot();
    cache.store(fresh.chunk, collector::read_modules());
    return std::move(fresh.text);
  };
  o.running.kallsyms_now = [] { return collector::read_kallsyms(); };
  o.running.modules = [] { return collector::read_modules(); };
  // For a kprof profile cut short before its kernel symbols were written
  // (importer::with_boot_kallsyms): the snapshot its recording left here.
  o.running.boot_id = collector::current_boot_id();
  o.running.boot_kallsyms = [] {
    const collector::KallsymsCache cache(collector::KallsymsCache::default_dir());
    importer::RunningKernel::BootKallsyms b;
    b.path = cache.path();
    if (auto snapshot = cache.snapshot()) b.text = std::move(snapshot->text);
    return b;
  };
  if (const char* dir = std::getenv("PERF_BUILDID_DIR"); dir && *dir) {
    o.buildid_dir = dir;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    o.buildid_dir = std::string(home) + "/.debug";
  }
  return o;
}

bool use_color(const std::string& when) {
  if (when == "always") return true;
  if (when == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0') &&
         term != nullptr && std::string_view(term) != "dumb";
}

Profile load_input(const std::string& path, const InputOptions& options) {
  // Opening a FIFO waits for its writer: say so rather than hang silently.
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode) &&
      ::isatty(STDERR_FILENO) == 1) {
    std::fprintf(stderr, "kprof: %s is a FIFO: waiting for a writer to send the profile\n",
                 path.c_str());
  }
  const importer::ImportOptions o = import_options(options);
  return importer::with_boot_kallsyms(importer::load_any(path, o), o.running);
}

}  // namespace kprof::cli
