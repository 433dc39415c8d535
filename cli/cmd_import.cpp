// `kprof import perf.data -o x.kprof`: a perf recording converted into a
// self-contained kprof profile (run facts, records, the kernel symbols used,
// the named histogram or stacks), so it can be reported on another machine.
// The reading and naming are importer/import.h.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/parse.h"
#include "core/error.h"
#include "core/mapped_file.h"
#include "core/profile.h"
#include "core/profile_writer.h"
#include "importer/import.h"

namespace kprof::cli {

int cmd_import(int argc, char** argv) {
  CLI::App app{"Convert a perf.data recording into a self-contained kprof profile", "kprof import"};
  std::string file = "perf.data";
  std::string out;
  InputOptions input;
  app.add_option("FILE", file, "perf.data to read")->capture_default_str();
  app.add_option("--output,-o", out, "kprof profile to write")->required();
  add_input_options(app, input);
  if (auto code = parse_args(app, argc, argv)) return *code;

  // Opened once: mapped, its first bytes say what it is.
  const InputFile in = InputFile::open(file);
  const MappedFile bytes = MappedFile::map(in, file);
  const importer::InputFormat format = importer::sniff_format(bytes.bytes());
  if (format != importer::InputFormat::PerfData) {
    throw Error(file + " is not a perf.data file (it is " +
                (format == importer::InputFormat::Unknown
                     ? std::string("of no format kprof reads")
                     : std::string("a ") + importer::input_format_name(format)) +
                "); kprof report, diff and export read it as it is");
  }
  // Written under a temporary name and renamed, so a failed import leaves
  // no half profile where the user asked for one.
  const std::string tmp = out + ".importing";
  ::unlink(tmp.c_str());
  try {
    ProfileWriter writer = ProfileWriter::create(tmp);
    Profile p = importer::import_perf_data(bytes.bytes(), file, import_options(input), &writer);
    if (::rename(tmp.c_str(), out.c_str()) != 0)
      throw Error(errno_message("cannot rename " + tmp + " to " + out, errno));
    std::fprintf(stderr, "kprof import: wrote %s: %llu samples of %s%s\n", out.c_str(),
                 static_cast<unsigned long long>(p.summary ? p.summary->samples : 0),
                 p.run.event.name.c_str(), p.status.complete ? "" : " (perf.data cut short)");
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  return 0;
}

}  // namespace kprof::cli
