// What kprof annotate and kprof diff --annotate read (report/annotate.h):
// one function's samples per instruction from a .kprof's records, and its
// code where the bytes are found.
//
// The records are read once (only the samples --tid, --cpu, --time and
// --comm/--pid keep), every distinct leaf address named as kprof script
// names it, and the samples of the function named exactly `function` grouped
// by offset from its start (user functions: per mapping, so every process's
// copy adds up; kernel: from the profile's kallsyms). When several images
// have a function of that name, the one with the most samples is shown (or
// the one --dso names) and a note names the others.
//
// Code: user functions from the ELF file the symbolizer names them from
// (source lines from its DWARF or its separate debug file); kernel functions
// from /proc/kcore when this is the boot the profile was recorded on and it
// is readable (root), else from `vmlinux` (the kernel's unstripped image,
// its function found by name), else none, with a note saying how to get it.
#pragma once

#include <string>

#include "cli/inputs.h"
#include "report/annotate.h"

namespace kprof::cli {

struct AnnotateSource {
  std::string vmlinux;  // --vmlinux FILE, "" for none
  std::string event;    // --event NAME: that event's samples (kprof record -e A,B); "" the first
};

// Throws kprof::Error: exit 2 when `path` keeps no records (standard input,
// a perf.data: kprof import it), exit 1 when no sample of `function` is
// found, naming the closest function names the profile has.
Annotation annotate_profile(const std::string& path, const std::string& function,
                            const SampleFilter& filter, const AnnotateSource& source);

}  // namespace kprof::cli
