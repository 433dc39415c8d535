// Pasted top-N listings, read as histograms: `opreport -l` (oprofile) and
// `perf report --stdio` (perf). Pure text parsing, no I/O.
//
// opreport -l: optional "CPU: ..." and "Counted EVENT events (...) ... count
//   N" header lines, a column heading ("[vma]  samples  %  [linenr info]
//   [image name]  [app name]  symbol name"), then one row per symbol:
//   "27543  13.2561  vmlinux  intel_idle". The symbol is the rest of the line
//   (demangled names hold spaces). Several events give several "samples %"
//   pairs: the first is read and a note says so. A shares-only heading ("%
//   symbol name", "%  image name  symbol name") reads rows such as "70.5642
//   <dbms>" with has_counts false. Without any heading, rows are read as
//   "samples % image symbol" (the default `opreport -l` layout), or "samples %
//   symbol" when a row has three fields; an app name column cannot be told
//   apart there. `opreport -c` callers and callees (indented lines between
//   "-----" separators) are skipped.
// perf report --stdio: "#" comment lines ("# Samples: 4K of event
//   'cpu-clock'", the column heading "# Overhead  Command  Shared Object
//   Symbol", with or without Children, Samples or Period columns, and the
//   "# ....  ...." rule that gives each column's width), then rows such as
//   "    23.30%  sh  libc.so.6  [.] __strcmp_evex". Without the rule, fields
//   are split at whitespace (the symbol starts at its "[.]" mark; -v's
//   "0x1743  B" before it is dropped). With Children and Self columns, Self
//   is read. Call-graph lines under a row (indented, or "-g folded"'s
//   "60.02% a;b;c", up to the next blank line) are skipped and counted in a
//   note. With several events, the first event's section is read and a note
//   names the others. Rows without a heading ("perf report -q") are read as
//   "Overhead Command Shared Object Symbol" (or "Children Self ...") when
//   they carry the "[.]" mark; they give shares only.
// A heading prefixed by quoting ("> ", tabs) has that prefix taken off every
// line after it; rows with no heading lose their "> " quoting.
//
// Images: "vmlinux", "vmlinux-*", "vmlinux.*", "*.vmlinux", "no-vmlinux"
// (opreport) and "[kernel.kallsyms]", "[kernel.vmlinux]" (perf) become
// "[kernel]", as kprof names it. A kernel module becomes "[name]" when it is
// clearly one: a "NAME.ko" (.ko.gz/.xz/.zst) file name, or, in opreport,
// "/NAME" (oprofile's name for a module it found no file for; NAME without
// "/" or ".so") or NAME whose symbol is "/NAME" (the same, printed without
// --long-filenames); a bare "ext4" is a user image. opreport: kernel and
// module rows are mode Kernel, "anon (tgid:...)" is "[anon]", "[vdso]
// (tgid:...)" is "[vdso]", every other image is mode User, named as printed;
// without an image column an app name column names the image, and without
// either every row is "[unknown]", mode Unknown. perf: the mode comes from
// the symbol's mark ([k] Kernel, [.] User, [g] GuestKernel, [u] GuestUser,
// [H] Hypervisor, else Unknown; Kernel for the kernel and modules with no
// Symbol column); Shared Object is kept as printed ("[ext4]", "[unknown]",
// "libc.so.6") apart from the names above; without a Shared Object column
// "[k]" rows go in "[kernel]" and the rest in "[unknown]". A symbol that is
// "(no symbols)", a hex address ("0x4330", or 8+ hex digits with a decimal
// digit among them) or the image's own path (opreport's "/no-vmlinux") is
// "[unknown]", as in kprof. Rows repeating (image, symbol, mode) are summed
// (perf's Command and opreport's app name are not kept); rows with a 0 share
// are kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace kprof::importer {

struct TableListing {
  std::string format;  // "opreport" or "perf report"
  // opreport's "Counted X events" (the first), perf's "of event 'X'" as printed,
  // modifiers kept ("cpu-clock:pppH"); "" when not listed
  std::string event;
  std::optional<uint64_t> period;  // opreport's "count N"
  std::string cpu;                 // opreport's "CPU:" line, without the label
  std::optional<uint64_t> total;   // perf's "# Samples: N" when exact (no K/M suffix)
  // true: each row's `samples` is the listed sample count. false (perf report
  // without -n, a listing with shares only): `samples` is the share in
  // millionths (13.2561% -> 132561), so shares are right but counts are not.
  bool has_counts = false;
  // The rows' listed shares summed, in millionths (under 1000000 when the
  // list was cut); with counts and no total, it says what the counts are of.
  uint64_t listed_share = 0;
  Histogram histogram;             // period 0 in every row
  std::vector<std::string> notes;  // one line each: what was read past and why
};

// Whether `text` (a file's first bytes) looks like one of the listings: an
// opreport or perf report column heading within its first 4 KiB, and no NUL
// or other sign of binary data there.
bool looks_like_listing(std::string_view text);

// Throws kprof::Error naming `name` when the text holds no row of either
// format ("<name>: no opreport or perf report rows found; expected ...").
// Lines inside the table that are not rows are skipped and counted in a note.
TableListing parse_listing(std::string_view text, const std::string& name);

}  // namespace kprof::importer
