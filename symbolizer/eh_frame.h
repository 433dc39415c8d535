// Function extents a stripped binary still carries: the Frame Description
// Entries (FDEs) of its call-frame information, .eh_frame (kept by strip, as
// unwinding needs it) and .debug_frame when present.
//
// Contract:
//  - Each FDE gives one extent [initial_location, initial_location +
//    address_range), in ELF virtual addresses as in the file (before load
//    bias), so a start address names the same function in every run of the
//    same build.
//  - libdw's dwarf_next_cfi() splits a section into CIEs and FDEs (it checks
//    every entry's length against the section). The few fields decoded here
//    (the CIE's augmentation data for the FDE pointer encoding, an FDE's
//    initial location and range) are read through a bounds-checked reader
//    limited to the entry; what cannot be decoded (unknown augmentation,
//    indirect or data-relative pointers) is skipped, never guessed.
//  - Nothing throws for bad input: a malformed entry is skipped, and a
//    section that cannot be walked further ends the walk.
//  - FdeTable::finish() keeps only extents that start inside an executable
//    PT_LOAD segment, clipped to it and to the next extent's start, so a
//    lookup finds at most one extent and a bogus range cannot claim the rest
//    of the address space.
//
// The symbolizer uses these extents only where no symbol covers an address
// (elf_resolver.cpp): a symbol always wins.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "symbolizer/elf_file.h"

namespace kprof::symbolizer {

struct FdeRange {
  uint64_t start = 0;  // initial_location
  uint64_t size = 0;   // address_range
  auto operator<=>(const FdeRange&) const = default;
};

// FDE extents of one image, searched by virtual address. add() then
// finish(), read-only afterwards.
class FdeTable {
 public:
  void add(uint64_t start, uint64_t size);
  // Sorts, keeps the extents inside executable `segments` (clipped to them),
  // merges equal starts (the largest range wins) and clips each extent at
  // the next one's start. lookup() needs it.
  void finish(std::span<const LoadSegment> segments);

  // The start of the extent covering `vaddr`, or nullopt.
  std::optional<uint64_t> lookup(uint64_t vaddr) const;

  std::span<const FdeRange> ranges() const { return ranges_; }
  size_t size() const { return ranges_.size(); }
  bool empty() const { return ranges_.empty(); }

 private:
  std::vector<FdeRange> ranges_;
};

// One call-frame section as bytes, with what decoding its pointers needs.
struct CfiSection {
  std::span<const uint8_t> bytes;
  bool eh_frame = true;       // .eh_frame format (else .debug_frame)
  uint64_t address = 0;       // the section's sh_addr: base of pc-relative pointers
  uint64_t text_address = 0;  // .text's sh_addr: base of text-relative ones (0: none)
  bool elf64 = true;          // ELFCLASS64 (8-byte addresses) or ELFCLASS32
  bool big_endian = false;    // ELFDATA2MSB
};

// Adds the extent of every decodable FDE in `section` to `table`. Returns
// how many were added.
size_t add_cfi_fdes(const CfiSection& section, FdeTable& table);

// Adds the FDEs of `elf`'s .eh_frame and .debug_frame sections (SHT_NOBITS
// and compressed sections are skipped). Returns how many were added.
size_t add_fde_ranges(Elf* elf, FdeTable& table);

}  // namespace kprof::symbolizer
