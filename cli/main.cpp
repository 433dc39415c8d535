// kprof: a sampling profiler whose headline feature is the kernel-to-kernel
// diff. This file only dispatches; every command lives in cli/cmd_<verb>.cpp.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include "cli/commands.h"
#include "core/error.h"

namespace {

constexpr const char* kUsage =
    "usage: kprof <command> [options]\n"
    "\n"
    "commands:\n"
    "  record     sample a workload (or the whole system) into a .kprof profile\n"
    "  report     top-N table of where the cycles went (also of a perf.data or a\n"
    "             pasted opreport / perf report listing)\n"
    "  diff       compare profiles from two or more kernels\n"
    "  info       everything a profile knows about its run\n"
    "  export     a profile's stacks for other tools: folded (flame graphs), pprof\n"
    "  script     a recording's samples one by one, as perf script prints them\n"
    "  annotate   one function's samples per instruction, with its source lines\n"
    "  symbolize  name a profile's samples again here (e.g. one cut short by kill -9)\n"
    "  import     convert a perf.data into a self-contained .kprof profile\n"
    "  events     events this machine knows, and which of them open here\n"
    "\n"
    "kprof <command> --help for a command's options; man kprof-<command> once installed.\n"
    "\n"
    "kprof " KPROF_VERSION "\n";

struct Command {
  std::string_view name;
  int (*run)(int, char**);
};

constexpr Command kCommands[] = {
    {"record", kprof::cli::cmd_record}, {"report", kprof::cli::cmd_report},
    {"diff", kprof::cli::cmd_diff},     {"info", kprof::cli::cmd_info},
    {"events", kprof::cli::cmd_events}, {"symbolize", kprof::cli::cmd_symbolize},
    {"export", kprof::cli::cmd_export}, {"import", kprof::cli::cmd_import},
    {"script", kprof::cli::cmd_script}, {"annotate", kprof::cli::cmd_annotate},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::puts("kprof " KPROF_VERSION);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (c.name != argv[1]) continue;
    try {
      return c.run(argc - 1, argv + 1);
    } catch (const kprof::Error& e) {
      std::fprintf(stderr, "kprof %s: %s\n", argv[1], e.what());
      return e.exit_code();
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "kprof %s: out of memory\n", argv[1]);
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kprof %s: internal error: %s\n", argv[1], e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "kprof: unknown command '%s' (try kprof --help)\n", argv[1]);
  return 2;
}
