#include "symbolizer/function_code.h"

#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/shared_library.h"
#include "symbolizer/elf_file.h"

namespace kprof::symbolizer {

std::optional<std::vector<uint8_t>> read_code(const std::string& path, uint64_t start, uint64_t end,
                                              std::string* why) {
  if (end <= start || end - start > kMaxFunctionBytes) {
    *why = "the function's extent is empty or too large to read";
    return std::nullopt;
  }
  std::string error;
  ElfFile file = ElfFile::open(path, &error);
  if (!file) {
    *why = path + ": " + error;
    return std::nullopt;
  }
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(file.elf(), scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC)) {
      continue;
    }
    if (start < sh.sh_addr || end - sh.sh_addr > sh.sh_size) continue;
    const uint64_t offset = sh.sh_offset + (start - sh.sh_addr);
    // Only the function's bytes are read, not the whole section (a
    // vmlinux's .text is tens of MiB); libelf checks them against the file.
    Elf_Data* d =
        elf_getdata_rawchunk(file.elf(), static_cast<int64_t>(offset), end - start, ELF_T_BYTE);
    if (!d || !d->d_buf || d->d_size != end - start) break;
    const auto* bytes = static_cast<const uint8_t*>(d->d_buf);
    return std::vector<uint8_t>(bytes, bytes + d->d_size);
  }
  *why = path + ": no section holds the function's bytes (a debug file, or the file changed?)";
  return std::nullopt;
}

namespace {
// Capstone, loaded when a function is disassembled, not at every kprof
// start (core/shared_library.h), and its x86-64 decoder.
struct Capstone {
#ifndef KPROF_LINKED_LIBS
  SharedLibrary lib{"libcapstone.so." + std::to_string(CS_API_MAJOR),
                    "kprof annotate disassembles with it (apt-get install libcapstone" +
                        std::to_string(CS_API_MAJOR) + ")"};
#endif
  decltype(&cs_open) open = KPROF_LIBRARY_FUNCTION(lib, cs_open);
  decltype(&cs_option) option = KPROF_LIBRARY_FUNCTION(lib, cs_option);
  decltype(&cs_malloc) malloc = KPROF_LIBRARY_FUNCTION(lib, cs_malloc);
  decltype(&cs_disasm_iter) disasm_iter = KPROF_LIBRARY_FUNCTION(lib, cs_disasm_iter);
  decltype(&cs_free) free = KPROF_LIBRARY_FUNCTION(lib, cs_free);
  decltype(&cs_close) close = KPROF_LIBRARY_FUNCTION(lib, cs_close);
};
struct Decoder {
  const Capstone& cs;
  csh handle = 0;
  bool open = false;
  explicit Decoder(const Capstone& c) : cs(c) {
    open = cs.open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK;
  }
  ~Decoder() {
    if (open) cs.close(&handle);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
};
}  // namespace

std::vector<Instruction> disassemble_x86_64(std::span<const uint8_t> code, uint64_t address,
                                            std::string* why) {
  std::vector<Instruction> out;
  std::optional<Capstone> cs;
  try {
    cs.emplace();
  } catch (const Error& e) {
    *why = e.what();
    return out;
  }
  Decoder d(*cs);
  if (!d.open) {
    *why = "Capstone cannot open its x86-64 decoder";
    return out;
  }
  cs->option(d.handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  cs->option(d.handle, CS_OPT_SKIPDATA, CS_OPT_ON);  // undecodable bytes: ".byte", then on
  const auto free_insn = [&](cs_insn* insn) { cs->free(insn, 1); };
  std::unique_ptr<cs_insn, decltype(free_insn)> insn(cs->malloc(d.handle), free_insn);
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t at = address;
  while (left > 0 && cs->disasm_iter(d.handle, &p, &left, &at, insn.get())) {
    std::string text = insn->mnemonic;
    if (insn->op_str[0] != '\0') {
      text.resize(std::max<size_t>(text.size() + 1, 7), ' ');
      text += insn->op_str;
    }
    out.push_back({insn->address, insn->size, std::move(text)});
  }
  return out;
}

namespace {
// libdw reads the names in .debug_str and .debug_line_str with strlen: a
// damaged file whose last string is not terminated would be read past its
// end (found by fuzzing elfutils 0.188). Such a file is refused here.
bool string_sections_terminated(Elf* elf) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) return false;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name ||
        (std::strcmp(name, ".debug_str") != 0 && std::strcmp(name, ".debug_line_str") != 0)) {
      continue;
    }
    if (sh.sh_type == SHT_NOBITS) continue;
    // Compressed (as Debian's debug files are): decompressed in memory, as
    // libdw would, then checked.
    if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) return false;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d) return false;
    if (d->d_size > 0 && (!d->d_buf || static_cast<const char*>(d->d_buf)[d->d_size - 1] != '\0')) {
      return false;
    }
  }
  return true;
}
}  // namespace

struct SourceLines::Impl {
  ElfFile file;
  Dwarf* dwarf = nullptr;
  ~Impl() {
    if (dwarf) dwarf_end(dwarf);
  }
};

SourceLines::SourceLines() = default;
SourceLines::~SourceLines() = default;
SourceLines::SourceLines(SourceLines&&) noexcept = default;
SourceLines& SourceLines::operator=(SourceLines&&) noexcept = default;

SourceLines SourceLines::open(const std::string& path, std::string* why) {
  SourceLines out;
  auto impl = std::make_unique<Impl>();
  std::string error;
  impl->file = ElfFile::open(path, &error);
  if (!impl->file) {
    *why = path + ": " + error;
    return out;
  }
  if (!string_sections_terminated(impl->file.elf())) {
    *why = path + ": damaged DWARF (a string section is not terminated)";
    return out;
  }
  impl->dwarf = dwarf_begin_elf(impl->file.elf(), DWARF_C_READ, nullptr);
  if (!impl->dwarf) {
    *why = path + ": no DWARF debug information";
    return out;
  }
  out.impl_ = std::move(impl);
  return out;
}

std::optional<SourceLine> SourceLines::at(uint64_t vaddr) const {
  if (!impl_) return std::nullopt;
  Dwarf_Die cu;
  if (!dwarf_addrdie(impl_->dwarf, vaddr, &cu)) return std::nullopt;
  Dwarf_Line* line = dwarf_getsrc_die(&cu, vaddr);
  if (!line) return std::nullopt;
  int lineno = 0;
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  if (!file || dwarf_lineno(line, &lineno) != 0) return std::nullopt;
  return SourceLine{file, lineno};
}

}  // namespace kprof::symbolizer
