// How the user part of each stack of a --call-graph dwarf recording ended
// when it was unwound (unwind/unwinder.h), per image of the frame it stopped
// in: what report's truncation line says precisely instead of guessing from
// the last frame's name. Stored as one chunk (core/file_layout.h
// ChunkType::Unwind), written when recording ends.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kprof {

// Why an unwound user stack ended.
enum class UnwindStop : uint8_t {
  Entry = 0,         // at a thread's entry (_start, clone3): CFI says there is no caller
  StackCopy = 1,     // the caller's frame lies beyond the copied stack (the copy size)
  NoCfi = 2,         // no call-frame information for the code (a library without .eh_frame)
  NoImage = 3,       // code in no file (anonymous or JIT memory)
  ImageChanged = 4,  // the file is gone, unreadable, or its build-id differs from the recording's
  Depth = 5,         // the frame limit (kUnwindMaxFrames)
  Other = 6,         // a register or frame the CFI could not recover (damaged stack)
};
inline constexpr size_t kUnwindStops = 7;
const char* unwind_stop_name(UnwindStop stop);  // "entry", "stack copy", "no CFI", ...

struct UnwindStats {
  uint32_t stack_bytes = 0;  // the copy size the recording asked for
  struct Image {
    std::string name;  // the image of the frame the stack stopped in ("[anon]": no file)
    std::array<uint64_t, kUnwindStops> samples{};  // by UnwindStop
    auto operator<=>(const Image&) const = default;
  };
  std::vector<Image> images;  // sorted by name, one entry each
  // Counts one stack that stopped in `image` for `stop`.
  void add(const std::string& image, UnwindStop stop, uint64_t samples = 1);
  uint64_t total() const;
  uint64_t of(UnwindStop stop) const;
  auto operator<=>(const UnwindStats&) const = default;
};

// "DWARF unwinding (8192-byte stack copies): 96.1% of user stacks reached a
// thread's entry; 3.2% stopped at the copy size, 0.7% in code without CFI
// (libfoo.so 0.7%)": one line for report, "" when nothing was unwound.
std::string unwind_notice(const UnwindStats& stats);

// The chunk's payload; decode throws kprof::Error on damage (bounds-checked;
// fuzzed: fuzz/unwind_stats_fuzzer.cpp).
std::vector<uint8_t> encode_unwind_stats(const UnwindStats&);
UnwindStats decode_unwind_stats(std::span<const uint8_t>);

}  // namespace kprof
