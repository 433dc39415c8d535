// What kprof annotate shows of one function: its code bytes (from an ELF
// file's executable sections, or kernel memory read elsewhere), their
// instructions (x86-64, decoded by Capstone in AT&T syntax, as perf annotate
// and objdump print them), and each instruction's source file and line
// (libdw, from the file's DWARF .debug_line or its separate debug file's).
//
// Nothing here throws for bad input: a file that cannot be read gives
// nullopt / an empty result with a one-line reason. Bytes that do not decode
// are shown as ".byte 0x.." one at a time (Capstone's SKIPDATA), so any
// bytes give a listing that covers them all, in address order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kprof::symbolizer {

// The bytes of [start, end) (file virtual addresses) from the section of
// `path` that holds them (SHF_ALLOC, with data in the file: not NOBITS).
// nullopt with *why when the file cannot be read or no section holds them
// all; at most kMaxFunctionBytes.
constexpr uint64_t kMaxFunctionBytes = 1 << 20;
std::optional<std::vector<uint8_t>> read_code(const std::string& path, uint64_t start, uint64_t end,
                                              std::string* why);

struct Instruction {
  uint64_t address = 0;
  uint32_t size = 0;
  std::string text;  // "mov    %rdi,%rax"
};
// Every instruction of `code`, which starts at `address`, in order; empty
// with *why when Capstone cannot start.
std::vector<Instruction> disassemble_x86_64(std::span<const uint8_t> code, uint64_t address,
                                            std::string* why);

struct SourceLine {
  std::string file;  // as the line table names it (often absolute)
  int line = 0;
};

// A file's DWARF line tables, searched by file virtual address. Owns the
// libdw handle and the fd. Empty (no lines) when the file has no DWARF.
class SourceLines {
 public:
  SourceLines();
  ~SourceLines();
  SourceLines(SourceLines&&) noexcept;
  SourceLines& operator=(SourceLines&&) noexcept;
  SourceLines(const SourceLines&) = delete;
  SourceLines& operator=(const SourceLines&) = delete;

  // Empty with *why when `path` cannot be read or has no DWARF.
  static SourceLines open(const std::string& path, std::string* why);
  explicit operator bool() const { return impl_ != nullptr; }
  // The line the instruction at `vaddr` comes from, or nullopt.
  std::optional<SourceLine> at(uint64_t vaddr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kprof::symbolizer
