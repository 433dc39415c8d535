#include "symbolizer/eh_frame.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace kprof::symbolizer {

void FdeTable::add(uint64_t start, uint64_t size) {
  if (start != 0 && size != 0) ranges_.push_back({start, size});
}

void FdeTable::finish(std::span<const LoadSegment> segments) {
  std::vector<FdeRange> kept;
  kept.reserve(ranges_.size());
  for (FdeRange r : ranges_) {
    const LoadSegment* seg = nullptr;
    for (const LoadSegment& s : segments) {
      if (s.exec && r.start >= s.vaddr && r.start - s.vaddr < s.filesz) {
        seg = &s;
        break;
      }
    }
    if (!seg) continue;
    r.size = std::min(r.size, seg->filesz - (r.start - seg->vaddr));
    kept.push_back(r);
  }
  // By start, the largest range first among equal starts; then one per start.
  std::sort(kept.begin(), kept.end(), [](const FdeRange& a, const FdeRange& b) {
    return a.start != b.start ? a.start < b.start : a.size > b.size;
  });
  kept.erase(std::unique(kept.begin(), kept.end(),
                         [](const FdeRange& a, const FdeRange& b) { return a.start == b.start; }),
             kept.end());
  for (size_t i = 0; i + 1 < kept.size(); ++i) {
    kept[i].size = std::min(kept[i].size, kept[i + 1].start - kept[i].start);
  }
  kept.shrink_to_fit();
  ranges_ = std::move(kept);
}

std::optional<uint64_t> FdeTable::lookup(uint64_t vaddr) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), vaddr,
                             [](uint64_t v, const FdeRange& r) { return v < r.start; });
  if (it == ranges_.begin()) return std::nullopt;
  const FdeRange& r = *std::prev(it);
  if (vaddr - r.start >= r.size) return std::nullopt;
  return r.start;
}

namespace {

// Reads integers from [p, end); every read checks the bytes are there.
class Reader {
 public:
  Reader(const uint8_t* p, const uint8_t* end, bool big_endian)
      : p_(p), end_(end), big_(big_endian) {}

  const uint8_t* pos() const { return p_; }

  bool fixed(size_t n, uint64_t* v) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t b = p_[big_ ? i : n - 1 - i];
      x = (x << 8) | b;
    }
    p_ += n;
    *v = x;
    return true;
  }

  bool uleb(uint64_t* v) {
    uint64_t x = 0;
    for (unsigned shift = 0; p_ < end_ && shift < 64; shift += 7) {
      const uint8_t b = *p_++;
      x |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = x;
        return true;
      }
    }
    return false;  // ran off the end, or longer than 64 bits
  }

  bool sleb(uint64_t* v) {
    uint64_t x = 0;
    for (unsigned shift = 0; p_ < end_ && shift < 64;) {
      const uint8_t b = *p_++;
      x |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) {
        if (shift < 64 && (b & 0x40)) x |= ~uint64_t{0} << shift;  // sign-extend
        *v = x;
        return true;
      }
    }
    return false;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool big_;
};

uint64_t sign_extend(uint64_t v, unsigned bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return (v ^ sign) - sign;
}

// The value format (low nibble) of a DW_EH_PE encoding, without applying a
// base: nullopt for formats that do not exist.
std::optional<uint64_t> read_format(Reader& r, uint8_t enc, bool elf64) {
  uint64_t v = 0;
  switch (enc & 0x0f) {
    case DW_EH_PE_absptr:
      if (!r.fixed(elf64 ? 8 : 4, &v)) return std::nullopt;
      return v;
    case DW_EH_PE_uleb128:
      if (!r.uleb(&v)) return std::nullopt;
      return v;
    case DW_EH_PE_udata2:
      if (!r.fixed(2, &v)) return std::nullopt;
      return v;
    case DW_EH_PE_udata4:
      if (!r.fixed(4, &v)) return std::nullopt;
      return v;
    case DW_EH_PE_udata8:
      if (!r.fixed(8, &v)) return std::nullopt;
      return v;
    case DW_EH_PE_sleb128:
      if (!r.sleb(&v)) return std::nullopt;
      return v;
    case DW_EH_PE_sdata2:
      if (!r.fixed(2, &v)) return std::nullopt;
      return sign_extend(v, 16);
    case DW_EH_PE_sdata4:
      if (!r.fixed(4, &v)) return std::nullopt;
      return sign_extend(v, 32);
    case DW_EH_PE_sdata8:
      if (!r.fixed(8, &v)) return std::nullopt;
      return v;
    default:
      return std::nullopt;
  }
}

// An encoded pointer with its base applied: absolute, pc-relative (to the
// field's own address) or text-relative. Indirect, data- and
// function-relative and aligned pointers are not decodable here.
std::optional<uint64_t> read_pointer(Reader& r, uint8_t enc, const CfiSection& s) {
  if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect)) return std::nullopt;
  const uint64_t field = s.address + static_cast<uint64_t>(r.pos() - s.bytes.data());
  auto v = read_format(r, enc, s.elf64);
  if (!v) return std::nullopt;
  uint64_t out = 0;
  switch (enc & 0x70) {
    case DW_EH_PE_absptr:
      out = *v;
      break;
    case DW_EH_PE_pcrel:
      out = field + *v;  // wraps as the target's arithmetic does
      break;
    case DW_EH_PE_textrel:
      if (s.text_address == 0) return std::nullopt;
      out = s.text_address + *v;
      break;
    default:
      return std::nullopt;
  }
  return s.elf64 ? out : (out & 0xffffffffu);
}

// The FDE pointer encoding a CIE states (augmentation 'R'), absptr when it
// states none; nullopt when its augmentation cannot be understood.
std::optional<uint8_t> fde_encoding(const Dwarf_CIE& cie, const CfiSection& s) {
  const char* aug = cie.augmentation;  // NUL-terminated inside the entry (libdw checked)
  if (aug[0] == '\0') return uint8_t{DW_EH_PE_absptr};
  if (aug[0] != 'z' || !cie.augmentation_data) return std::nullopt;
  // libdw checked the 'z' size against the entry.
  Reader r(cie.augmentation_data, cie.augmentation_data + cie.augmentation_data_size, s.big_endian);
  uint64_t byte = 0;
  for (const char* a = aug + 1; *a != '\0'; ++a) {
    switch (*a) {
      case 'R':
        if (!r.fixed(1, &byte)) return std::nullopt;
        return static_cast<uint8_t>(byte);
      case 'L':  // LSDA encoding byte
        if (!r.fixed(1, &byte)) return std::nullopt;
        break;
      case 'P':  // personality: encoding byte, then a pointer in that format
        if (!r.fixed(1, &byte) || (byte & 0x70) == DW_EH_PE_aligned ||
            !read_format(r, static_cast<uint8_t>(byte), s.elf64)) {
          return std::nullopt;
        }
        break;
      case 'S':  // signal frame
      case 'B':  // AArch64 BTI
      case 'G':  // AArch64 MTE
        break;
      default:
        return std::nullopt;
    }
  }
  return uint8_t{DW_EH_PE_absptr};
}

}  // namespace

size_t add_cfi_fdes(const CfiSection& s, FdeTable& table) {
  if (s.bytes.size() < 8) return 0;
  unsigned char ident[EI_NIDENT] = {};
  ident[EI_CLASS] = s.elf64 ? ELFCLASS64 : ELFCLASS32;
  ident[EI_DATA] = s.big_endian ? ELFDATA2MSB : ELFDATA2LSB;
  // dwarf_next_cfi reads only d_buf and d_size; it never writes.
  Elf_Data data{};
  data.d_buf = const_cast<uint8_t*>(s.bytes.data());
  data.d_size = s.bytes.size();
  data.d_type = ELF_T_BYTE;
  data.d_version = EV_CURRENT;

  std::unordered_map<Dwarf_Off, std::optional<uint8_t>> cies;  // by section offset
  auto encoding_of = [&](Dwarf_Off cie_off) -> std::optional<uint8_t> {
    auto it = cies.find(cie_off);
    if (it != cies.end()) return it->second;
    Dwarf_CFI_Entry cie;
    Dwarf_Off after = 0;
    std::optional<uint8_t> enc;
    if (cie_off < s.bytes.size() &&
        dwarf_next_cfi(ident, &data, s.eh_frame, cie_off, &after, &cie) == 0 &&
        dwarf_cfi_cie_p(&cie)) {
      enc = fde_encoding(cie.cie, s);
    }
    cies.emplace(cie_off, enc);
    return enc;
  };

  size_t added = 0;
  for (Dwarf_Off off = 0; off < s.bytes.size();) {
    Dwarf_Off next = static_cast<Dwarf_Off>(-1);
    Dwarf_CFI_Entry entry;
    const int rc = dwarf_next_cfi(ident, &data, s.eh_frame, off, &next, &entry);
    if (rc == 1) break;  // the end, or a zero terminator
    if (rc == 0 && dwarf_cfi_cie_p(&entry)) {
      cies.try_emplace(off, fde_encoding(entry.cie, s));
    } else if (rc == 0) {
      // entry.fde.start..end: the initial location onwards, inside the section.
      if (auto enc = encoding_of(entry.fde.CIE_pointer)) {
        Reader r(entry.fde.start, entry.fde.end, s.big_endian);
        auto start = read_pointer(r, *enc, s);
        auto range = start ? read_format(r, *enc, s.elf64) : std::nullopt;
        if (range && !s.elf64) *range &= 0xffffffffu;
        if (start && range && *start != 0 && *range != 0) {
          table.add(*start, *range);
          ++added;
        }
      }
    }
    // A damaged entry whose length was still readable is skipped; one whose
    // length was not ends the walk.
    if (next == static_cast<Dwarf_Off>(-1) || next <= off) break;
    off = next;
  }
  return added;
}

size_t add_fde_ranges(Elf* elf, FdeTable& table) {
  size_t ident_size = 0;
  const char* ident = elf_getident(elf, &ident_size);
  if (!ident || ident_size < EI_NIDENT) return 0;
  const bool elf64 = ident[EI_CLASS] == ELFCLASS64;
  const bool big = ident[EI_DATA] == ELFDATA2MSB;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;

  struct Found {
    Elf_Scn* scn;
    bool eh_frame;
    uint64_t addr;
  };
  std::vector<Found> found;
  uint64_t text_address = 0;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (!name) continue;
    if (std::strcmp(name, ".text") == 0) text_address = shdr.sh_addr;
    const bool eh = std::strcmp(name, ".eh_frame") == 0;
    if (!eh && std::strcmp(name, ".debug_frame") != 0) continue;
    if (shdr.sh_flags & SHF_COMPRESSED) continue;
    found.push_back({scn, eh, shdr.sh_addr});
  }

  size_t added = 0;
  for (const Found& f : found) {
    Elf_Data* data = elf_getdata(f.scn, nullptr);
    if (!data || !data->d_buf) continue;
    CfiSection s{.bytes = {static_cast<const uint8_t*>(data->d_buf), data->d_size},
                 .eh_frame = f.eh_frame,
                 .address = f.addr,
                 .text_address = text_address,
                 .elf64 = elf64,
                 .big_endian = big};
    added += add_cfi_fdes(s, table);
  }
  return added;
}

}  // namespace kprof::symbolizer
