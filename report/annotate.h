// kprof annotate (issue 29): one function's samples per instruction, and the
// same for two or more profiles side by side (kprof diff --annotate).
//
// The caller (cli/annotate_input.h) gathers the function's samples by their
// offset from its start, and its code as instructions (with source lines)
// where the code bytes are found; annotate() joins the two: each instruction
// takes the samples whose address falls inside it (a sample lands on an
// instruction's first byte; skid or a changed binary could put one inside),
// and samples no instruction covers (no code bytes) get a row of their own.
// Shares are of the function's samples.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kprof {

// One function's samples, summed over every mapping of its image.
struct FunctionSamples {
  std::string function, image;
  std::map<uint64_t, uint64_t> by_offset;  // offset from the function's start -> samples
  uint64_t samples = 0;                    // of the function (sum of by_offset)
  uint64_t profile_samples = 0;            // every CPU sample the profile counted
};

// One instruction of the function's code.
struct CodeLine {
  uint64_t offset = 0;  // from the function's start
  uint32_t size = 0;
  std::string text;    // "imul   %rdx,%rax"
  std::string source;  // "prog.c:22", "" when unknown
};

struct FunctionCode {
  // The function's first byte as listings show it (user code: its virtual
  // address in the file, as objdump and perf annotate show it; kernel code:
  // the recorded run-time address), and its size in bytes.
  uint64_t address = 0, size = 0;
  std::vector<CodeLine> lines;     // in offset order; empty when no code bytes were found
  std::vector<std::string> notes;  // why code or source lines are missing
};

struct AnnotatedLine {
  uint64_t offset = 0;
  uint64_t samples = 0;
  std::string text;  // "" where no code covers a sampled offset
  std::string source;
};

struct Annotation {
  std::string function, image;
  uint64_t address = 0, size = 0;
  uint64_t samples = 0, profile_samples = 0;
  std::vector<AnnotatedLine> lines;  // offset order
  std::vector<std::string> notes;
};

Annotation annotate(const FunctionSamples& samples, const FunctionCode& code);

// Several runs' annotations of one function as one (kprof diff's runs of a
// kernel): samples added by offset; the first run's code and notes.
Annotation merge_annotations(std::vector<Annotation> runs);

enum class AnnotateOrder { Address, Hot };
// The function's listing: a header (function, image, its samples and share
// of the profile's), the notes, then a line per instruction: share of the
// function's samples, samples, address, instruction, source line. Hot:
// only instructions with samples, most first; Address: every instruction.
void write_annotation(std::ostream& out, const Annotation& a, AnnotateOrder order);

// Side by side (kprof diff --annotate): one share column per profile. Where
// every side has the same instructions (the same build), rows are
// instructions; where the code differs (another kernel build) but every side
// has source lines, rows are source lines; otherwise each side's hottest
// instructions are listed by rank. Rows with samples only, the largest
// change (first side to last) first; `top` rows (0: all).
void write_annotation_diff(std::ostream& out, const std::vector<Annotation>& sides,
                           const std::vector<std::string>& labels, size_t top);

}  // namespace kprof
