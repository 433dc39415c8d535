// Call stacks, symbolized: the model behind `report --children`, `--callers`
// / `--callees`, the diff on inclusive shares and the folded / pprof exports.
// It sits beside the flat Histogram (model.h). A -g profile stores only its
// Stacks: its flat table is leaf_histogram(), the view of each stack's leaf
// frame, so the two cannot disagree (every -g sample is in a stack).
//
// Interned, as stored in a Stacks chunk (chunk_codecs.h):
// - images: the binaries frames lie in (as Histogram::images);
// - frames: distinct (image, function, mode) triples;
// - processes: distinct (pid, name) pairs the stacks belong to;
// - stacks: distinct (process, frame sequence), with their samples and period.
// A stack's frames are leaf first: frames[0] is the function the sample hit,
// frames.back() the outermost caller found (for a syscall: user frames
// after the kernel's entry path). A recursive function appears once per level.
// No Linux or libdw dependency.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/model.h"

namespace kprof {

struct Frame {
  uint32_t image = 0;    // index into Stacks::images
  std::string function;  // demangled name, or "[unknown]"
  Mode mode = Mode::Unknown;
  auto operator<=>(const Frame&) const = default;
};

struct StackProcess {
  uint32_t pid = 0;
  std::string name;  // comm ("swapper" for pid 0); "" when never seen
  auto operator<=>(const StackProcess&) const = default;
};

struct Stack {
  uint32_t process = 0;          // index into Stacks::processes
  std::vector<uint32_t> frames;  // indices into Stacks::frames, leaf first; never empty
  uint64_t samples = 0;
  uint64_t period = 0;  // sum of sample periods (events)
  auto operator<=>(const Stack&) const = default;
};

struct Stacks {
  std::vector<Image> images;
  std::vector<Frame> frames;
  std::vector<StackProcess> processes;
  std::vector<Stack> stacks;  // any order; each (process, frames) at most once
  // Per frame, its samples as a leaf in each of the recording's time slices
  // (core/time_slices.h), the flat table's FunctionCount::slices: empty when
  // not known (older files, imports of listings), else one entry per frame,
  // empty for a frame that is no stack's leaf, else as many as every other.
  std::vector<std::vector<uint32_t>> leaf_slices;
  uint64_t total_samples() const;
  auto operator<=>(const Stacks&) const = default;
};

// The flat histogram of `stacks`: one row per distinct leaf (image,
// function, mode), with the images of `stacks`; heaviest first, then by
// image, function and mode; each row's slices its leaf frames' (none when
// leaf_slices is empty). Stacks whose leaf frame id is out of range are
// left out (check decode_stacks's bounds first).
Histogram leaf_histogram(const Stacks& stacks);

// Frame-pointer chains walked through code built without frame pointers read
// garbage as return addresses. Two kinds of frame mark it, and both are
// mended here, in place, for every view at once:
// - a user frame outside every mapping (image "[unknown]") reached from a user
//   frame cannot be a caller: the chain is cut before it (everything beyond
//   it was read through the same bad frame pointer). Such a frame is kept
//   where the sample itself put it: the leaf, or the first user frame after
//   the kernel's (the user ip a system call was made from);
// - a run of consecutive unnamed frames ("[unknown]") becomes its first one.
// Stacks that become equal are merged (heaviest first, as build order was).
// Returns the samples of the stacks that were cut. Frames, images and
// processes are left as they are (some may no longer be used), and so are
// leaf_slices (no leaf is cut).
uint64_t mend_broken_chains(Stacks& stacks);

// `from` added into `into`, which grows to from's size if shorter.
void add_slices(std::vector<uint32_t>& into, std::span<const uint32_t> from);

}  // namespace kprof
