// Building blocks of the ELF resolver, exposed for tests and the fuzzer:
// the RAII owner of a libelf handle (fds are core/fd.h's), the facts kprof
// reads from one ELF image (build-id, PT_LOAD segments, .gnu_debuglink,
// symbol tables), and the pure file-offset -> virtual-address mapping.
//
// Nothing here throws for bad input: a file that cannot be opened or is not
// ELF gives an empty ElfFile and a one-line reason; malformed sections are
// skipped. libelf bounds-checks section data and string lookups; the few
// bytes parsed here (notes, debuglink) are checked against the data size.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/fd.h"
#include "symbolizer/symbol_table.h"

namespace kprof::symbolizer {

// Ends a libelf handle (ElfPtr owns one).
struct ElfEnd {
  void operator()(Elf* e) const { elf_end(e); }
};
using ElfPtr = std::unique_ptr<Elf, ElfEnd>;

// One PT_LOAD program header.
struct LoadSegment {
  uint64_t offset = 0;  // p_offset
  uint64_t vaddr = 0;   // p_vaddr
  uint64_t filesz = 0;  // p_filesz
  bool exec = false;    // PF_X
  auto operator<=>(const LoadSegment&) const = default;
};

// The virtual address (as in the ELF file, before load bias) of the byte at
// file offset `offset`: vaddr = offset - p_offset + p_vaddr, using the
// segment whose file range contains it. Offsets in the page-alignment slack
// before a segment (mappings start on page boundaries) use the nearest
// segment at or after them within a page, preferring executable ones.
// nullopt when no segment is close.
std::optional<uint64_t> file_offset_to_vaddr(std::span<const LoadSegment> segments,
                                             uint64_t offset);

// An open ELF image: from a file (fd kept open while the handle lives) or
// from bytes (copied, so the caller's buffer may go away).
class ElfFile {
 public:
  // Empty (elf() == nullptr) on failure, with the reason in *error.
  static ElfFile open(const std::string& path, std::string* error);
  static ElfFile from_memory(std::span<const uint8_t> bytes, std::string* error);

  Elf* elf() const { return elf_.get(); }
  explicit operator bool() const { return elf_ != nullptr; }

 private:
  Fd fd_;
  std::unique_ptr<char[]> bytes_;
  ElfPtr elf_;
};

// What the resolver needs from one image's headers.
struct ElfInfo {
  std::string build_id;               // lower-case hex of NT_GNU_BUILD_ID; "" if none
  std::vector<LoadSegment> segments;  // PT_LOAD, in file order
  std::string debuglink;              // .gnu_debuglink file name; "" if none
  uint32_t debuglink_crc = 0;
  bool has_symtab = false;  // a .symtab with data (not stripped, not NOBITS)
};
ElfInfo read_elf_info(Elf* elf);
// The NT_GNU_BUILD_ID of the ELF file at `path`, lower-case hex; "" when it
// cannot be read or has none.
std::string file_build_id(const std::string& path);

// Adds the FUNC/IFUNC symbols defined in every section of `section_type`
// (SHT_SYMTAB or SHT_DYNSYM) to `table`. Returns how many were added.
size_t add_function_symbols(Elf* elf, uint32_t section_type, SymbolTable& table);

// CRC-32 (IEEE, as .gnu_debuglink uses) of a whole file; nullopt when it
// cannot be read or is larger than `max_bytes`.
std::optional<uint32_t> file_crc32(const std::string& path, uint64_t max_bytes);

}  // namespace kprof::symbolizer
