// The export layer: the one place where kprof's output formats for other
// tools live (`kprof export`). Every format reads the same input, a Stacks
// (the call stacks of a -g profile, or one-frame stacks made from the flat
// histogram), and writes through the same Output, so opening, stdout and
// write errors behave alike for all of them.
//
// Formats:
// - folded: Brendan Gregg's collapsed stacks, as stackcollapse-perf.pl
//   writes them (input of flamegraph.pl, speedscope, inferno, ...);
// - pprof: gzip-compressed profile.proto (github.com/google/pprof,
//   proto/profile.proto), for `go tool pprof`, pprof's web UI and others.
//
// Reads profiles only (kprof_core, kprof_report); never the live system.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/profile.h"
#include "core/stacks.h"
#include "report/summary.h"

namespace kprof {

// ---------------------------------------------------------------- output

// An output path opened for writing, or stdout for "-". Write to stream(),
// then call close(): it flushes, closes a file, and throws kprof::Error
// naming the output and the errno of the first write that failed ("cannot
// write 'x.pb.gz': No space left on device (disk full)"), so a full disk or a
// closed pipe is an error, never a silently short file. Destroying an Output
// without close() (the error path) closes it without checking.
class Output {
 public:
  Output(Output&&) noexcept;
  Output& operator=(Output&&) noexcept;
  ~Output();

  std::ostream& stream();
  const std::string& path() const;  // as given; "-" for stdout
  std::string name() const;         // "'path'" or "stdout", for messages
  bool is_stdout() const;
  bool is_terminal() const;  // the output is a tty (binary formats refuse to write there)
  void close();

 private:
  struct Impl;
  explicit Output(std::unique_ptr<Impl> impl);
  friend Output open_output(const std::string& path);
  std::unique_ptr<Impl> impl_;
};

// Opens `path` for writing (created with mode 0600, as profiles are: every
// output is made from a profile, and names what ran where; truncated), or
// stdout for "-". Throws kprof::Error naming the path and the errno when it
// cannot be opened ("cannot create 'd/x': No such file or directory").
Output open_output(const std::string& path);

// ---------------------------------------------------------------- input

// The stacks every format writes: `hist.stacks` for a -g profile; otherwise
// one one-frame stack per histogram row with samples (frames copied from the
// rows; a single process {pid 0, name ""}, i.e. unknown).
Stacks stacks_or_flat(const ProfileHistogram& hist);
Stacks stacks_or_flat(const Histogram& histogram, const std::optional<Stacks>& stacks);

// Throws kprof::Error when `stacks` refers to an image, frame or process it
// does not hold, or holds a stack without frames (the writers below call it).
void check_stacks(const Stacks& stacks);

// ---------------------------------------------------------------- folded

struct FoldedOptions {
  // Process frame "comm-pid" instead of "comm" (stackcollapse-perf --pid):
  // one tower per process instead of one per program name.
  bool pid = false;
  // Functions by canonical name (foo.isra.0 -> foo, report/canonical.h), so
  // the same stack matches across kernels built differently.
  bool canonical = false;
};

// One line per distinct (process frame, frame sequence): the frames ROOT
// FIRST joined by ';', a space, and the sample count; lines sorted bytewise
// (so the output is stable) and stacks that end up on the same line merged,
// so the counts sum to stacks.total_samples(). Stacks without samples are
// left out. As stackcollapse-perf.pl writes them:
// - the first frame is the process name (comm, spaces as '_'; "[unknown]"
//   for a process whose name was never seen); none when the process is
//   unknown altogether (pid 0 without a name: stacks_or_flat of a profile
//   without -g), so such lines hold the function frames only;
// - kernel frames (mode kernel or guest kernel) end in "_[k]" (as with
//   stackcollapse-perf --kernel; flamegraph.pl colours them apart);
// - a function "[unknown]" is named by its image instead: "[libc.so.6]"
//   (the image's last path component, in brackets; "[vdso]" stays "[vdso]");
// - in names, ';' becomes ':' and control characters (newlines, tabs) '?';
//   trailing blanks are dropped and a blank right before trailing digits
//   becomes '_' (else "f 12" as the leaf would read as a differential
//   count). Unlike stackcollapse-perf, argument lists are kept (as in
//   `kprof report`, so overloads stay apart).
void write_folded(std::ostream& out, const Stacks& stacks, const FoldedOptions& opts = {});
// write_folded's lines and counts, before they are written.
std::map<std::string, uint64_t> folded_lines(const Stacks& stacks, const FoldedOptions& opts = {});

// For `kprof diff BASE NEW --folded OUT`: FlameGraph's difffolded.pl format,
// "stack base_count new_count" per line, each side's runs summed, frames by
// canonical name (so clone renames between kernels still match), lines
// sorted; a stack only on one side has 0 on the other. Feed it to
// `flamegraph.pl` (it reads two counts as a differential graph; -n
// normalizes the two sides' totals).
void write_diff_folded(std::ostream& out, const std::vector<Stacks>& base,
                       const std::vector<Stacks>& next);

// The frame text write_folded uses for `frame` (sanitized, "_[k]" for kernel).
std::string folded_frame(const Stacks& stacks, const Frame& frame);

// The name both formats give a function kprof calls "[unknown]" in `image`:
// "[libc.so.6]" for "/usr/lib/x86_64-linux-gnu/libc.so.6", a bracketed image
// name as it is ("[vdso]"), "[unknown]" for "".
std::string unknown_function_name(const std::string& image);

// ---------------------------------------------------------------- pprof

// `stacks` as a profile.proto message (uncompressed), encoded by hand
// (varint and length-delimited fields only; packed repeated integers):
// - sample_type: [samples/count, E] where E is cpu/nanoseconds for cpu-clock
//   and task-clock (their period is in ns) and "<event name>/count" for any
//   other event ("cycles/count"); default_sample_type unset, so pprof shows E;
// - period_type: E; period: the sampling period (see pprof_period);
// - one mapping per image (filename = image name, build_id when known,
//   has_functions; no addresses: kprof keeps none);
// - one function per (image, function name): name as in folded ("[libc.so.6]"
//   for "[unknown]"), system_name the name as kprof stores it, filename the
//   image name;
// - one location per frame id (location id = frame id + 1, so ids start at
//   1), with its mapping and one line naming its function;
// - one sample per stack: location ids LEAF FIRST, values [samples, period],
//   labels pid (num) and comm (str, the process name) when the process is
//   known, mode (str: "kernel", "user", ... of the leaf frame);
// - string_table[0] == ""; comments: "kernel <release>", "command: <target>",
//   "event: <describe_event>"; time_nanos from RunInfo.start_realtime_ns,
//   duration_nanos from the Summary when there is one.
std::string encode_pprof(const Stacks& stacks, const Profile& profile);

// encode_pprof, gzip-compressed (the on-disk form every pprof reader expects).
void write_pprof(std::ostream& out, const Stacks& stacks, const Profile& profile);

// Profile.period for `profile`: for a fixed period (-c) the period; for a
// frequency (-F) with cpu-clock or task-clock the nominal 1e9 / rate ns; for
// any other event at a frequency the mean period per sample in `stacks`
// (total period / total samples, rounded; 0 without samples), since the
// kernel adjusts the period as it goes.
int64_t pprof_period(const Stacks& stacks, const Profile& profile);

// ---------------------------------------------------------------- formats

enum class ExportFormat { Folded, Pprof };

// "folded" / "pprof"; throws kprof::Error (exit code 2) naming the choices.
ExportFormat parse_export_format(const std::string& name);
const char* export_format_name(ExportFormat format);
// Whether the format is binary (pprof: gzip), so never for a terminal.
bool export_format_is_binary(ExportFormat format);

// Writes stacks_or_flat(hist) of `profile` in `format`.
void write_export(std::ostream& out, ExportFormat format, const Profile& profile,
                  const ProfileHistogram& hist, const FoldedOptions& folded = {});

}  // namespace kprof
