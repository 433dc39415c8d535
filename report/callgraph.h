// The call-graph views of one -g profile (`kprof report --children`,
// `--callers FUNC`, `--callees FUNC`): pure functions over its Stacks
// (core/stacks.h), and their text writers (CSV: export/tables.h).
//
// Counting rules (every number is in samples; shares are percents):
// - A function is an (image name, function, mode) triple; an image listed
//   twice (two build ids of one path) is one image, as in report_rows.
// - Self samples of a function: the samples of the stacks whose leaf frame
//   is it. Total samples: the samples of the stacks that contain it anywhere,
//   counted once per stack however often it recurses in that stack. Children
//   table shares are of all samples (Stacks::total_samples()).
// - Callers / callees of FUNC: the root is FUNC with its total samples. Each
//   stack containing FUNC is counted once, from FUNC's OUTERMOST occurrence in
//   it (the frame nearest the program's root), for callers and for callees
//   alike: its callers are the frames outside that occurrence, its callees the
//   frames inside it (so a recursive FUNC shows up as a callee of itself, and
//   never as its own caller). A stack thus adds its samples to one path of the
//   tree, so a node's children never sum to more than the node: what is left
//   is, for callers, stacks where FUNC (or that caller) is the outermost frame
//   found, and for callees, stacks where it is the leaf (self samples). Every
//   share in the tree is of FUNC's total samples.
// - FUNC matches a frame whose function is FUNC exactly, or whose canonical
//   name (report/canonical.h) is FUNC, so `foo` finds `foo.isra.0` and
//   `foo.cold`. All (image, function) pairs it matches are merged into the
//   one root, and listed in CallTree::matches.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"
#include "core/stacks.h"
#include "report/report.h"

namespace kprof {

// ------------------------------------------------------------ children table

struct ChildrenRow {
  std::string image;  // full image name ("[unknown]" for a bad index)
  std::string function;
  Mode mode = Mode::Unknown;
  uint64_t self_samples = 0;
  uint64_t total_samples = 0;
  auto operator<=>(const ChildrenRow&) const = default;
};

// One row per function, most total samples first; ties by self samples
// (most first), then image, function and mode name.
std::vector<ChildrenRow> children_rows(const Stacks& stacks);

// The inclusive view as a histogram, for `kprof diff --children`: one row per
// (image, canonical function name, mode) with the samples and period of the
// stacks that contain it, each stack counted once per row (clone names such
// as foo.isra.0 and foo.cold fold into foo first, so a stack through both is
// counted once). Rows overlap, so shares are of Stacks::total_samples(), not
// of the rows' sum.
Histogram inclusive_histogram(const Stacks& stacks);

// For `kprof diff --callers FUNC`: one row per direct caller of FUNC (see
// call_tree) with the samples of the stacks in which it calls FUNC, plus a
// row "[no caller]" for stacks where FUNC is outermost. Shares are of
// Stacks::total_samples(). Throws kprof::Error as call_tree when nothing
// matches. Periods are not kept per path (0).
Histogram callers_histogram(const Stacks& stacks, std::string_view func, const std::string& file);

// The table: self%, total%, samples (total samples), image (basename; the
// full path only where two shown images share one), function (cut at
// opts.name_width). opts.top rows at most; rows whose total share is under
// opts.percent_limit are not shown; opts.sort is not used. A footer says how
// many functions were not shown.
void write_children_table(std::ostream& out, const Stacks& stacks, const ReportOptions& opts);

// ------------------------------------------------------ callers and callees

enum class CallDirection { Callers, Callees };

struct CallTreeNode {
  std::string image;     // full image name; for a root merged over several images, "a, b"
  std::string function;  // for a root merging several functions: FUNC as asked
  std::string mode;      // "kernel", "user", ...; "kernel+user" for a mixed root
  uint64_t samples = 0;
  std::vector<CallTreeNode> children;  // most samples first; ties by image, function, mode
  auto operator<=>(const CallTreeNode&) const = default;
};

struct CallTreeMatch {
  std::string image;  // full image name
  std::string function;
  auto operator<=>(const CallTreeMatch&) const = default;
};

struct CallTree {
  CallDirection direction = CallDirection::Callers;
  std::string query;                   // FUNC as asked
  std::vector<CallTreeMatch> matches;  // the (image, function) pairs merged into root, sorted
  size_t depth = 0;                    // levels below the root
  uint64_t all_samples = 0;            // Stacks::total_samples()
  CallTreeNode root;                   // FUNC, with its total samples
};

// The callers (or callees) of `func`, `depth` levels below the root (depth 0:
// the root alone). `file` names the profile in the error: throws
// kprof::Error("no function 'FUNC' in the call stacks of FILE; kprof report
// --children lists them") when nothing matches.
CallTree call_tree(const Stacks& stacks, std::string_view func, CallDirection direction,
                   size_t depth, const std::string& file);

// A title line ("callers of FUNC: ..."), a line listing the merged functions
// when there are several, then the tree, two spaces of indent per level, one
// node a line: "share%  samples  function  [image]" (image basename, and
// "[kernel]" as it is; function cut at opts.name_width). Per node at most
// opts.top children (0: all), and none whose share of FUNC is under
// opts.percent_limit; a "… N more" line says what was left out.
void write_call_tree(std::ostream& out, const CallTree& tree, const ReportOptions& opts);

// ---------------------------------------------------------------- truncation

// Whether `function` (or its canonical name) is where a program's or
// thread's stack begins: _start, __libc_start_main(_impl),
// __libc_start_call_main, clone, clone3, start_thread, thread_start. `main`
// is not: its caller should have been found too.
bool is_stack_root(std::string_view function);

// The samples of the stacks that look truncated: stacks with user frames
// (Mode::User or Mode::GuestUser) whose outermost user frame is not a stack
// root. Kernel-only stacks never count.
uint64_t truncated_stack_samples(const Stacks& stacks);

// "N% of stacks look truncated (user code without frame pointers, or
// kernel.perf_event_max_stack); record with --call-graph dwarf to unwind it by CFI", the
// share being of all samples; "" when none look truncated.
std::string truncation_notice(const Stacks& stacks);

}  // namespace kprof
