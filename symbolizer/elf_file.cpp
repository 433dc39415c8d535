#include "symbolizer/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/bytes.h"

namespace kprof::symbolizer {

std::optional<uint64_t> file_offset_to_vaddr(std::span<const LoadSegment> segments,
                                             uint64_t offset) {
  const LoadSegment* hit = nullptr;
  for (const LoadSegment& s : segments) {
    if (offset >= s.offset && offset - s.offset < s.filesz) {
      // Overlapping file ranges are malformed; the executable one is where
      // code samples come from.
      if (!hit || (s.exec && !hit->exec)) hit = &s;
    }
  }
  if (!hit) {
    constexpr uint64_t kPage = 4096;
    for (const LoadSegment& s : segments) {
      if (offset < s.offset && s.offset - offset < kPage && s.filesz != 0) {
        if (!hit || s.offset < hit->offset || (s.offset == hit->offset && s.exec && !hit->exec)) {
          hit = &s;
        }
      }
    }
  }
  if (!hit) return std::nullopt;
  return offset - hit->offset + hit->vaddr;  // unsigned wrap is the ELF's own arithmetic
}

ElfFile ElfFile::open(const std::string& path, std::string* error) {
  ElfFile f;
  elf_version(EV_CURRENT);
  f.fd_ = Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!f.fd_) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return f;
  }
  struct stat st {};
  if (::fstat(f.fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = "not a regular file";
    return {};
  }
  // ELF_C_READ (pread on demand) rather than mmap: a file truncated under us
  // then gives short reads, not SIGBUS.
  f.elf_.reset(elf_begin(f.fd_.get(), ELF_C_READ, nullptr));
  if (!f.elf_ || elf_kind(f.elf_.get()) != ELF_K_ELF) {
    *error = "not an ELF file";
    return {};
  }
  return f;
}

ElfFile ElfFile::from_memory(std::span<const uint8_t> bytes, std::string* error) {
  ElfFile f;
  elf_version(EV_CURRENT);
  f.bytes_ = std::make_unique<char[]>(bytes.size() + 1);
  if (!bytes.empty()) std::memcpy(f.bytes_.get(), bytes.data(), bytes.size());
  f.elf_.reset(elf_memory(f.bytes_.get(), bytes.size()));
  if (!f.elf_ || elf_kind(f.elf_.get()) != ELF_K_ELF) {
    *error = "not an ELF image";
    return {};
  }
  return f;
}

// NT_GNU_BUILD_ID from any SHT_NOTE section; gelf_getnote bounds-checks each
// note against the section data.
static std::string read_build_id(Elf* elf) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    size_t off = 0, name_off = 0, desc_off = 0;
    GElf_Nhdr nhdr;
    while (off < data->d_size && (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
      const auto* base = static_cast<const uint8_t*>(data->d_buf);
      if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
          std::memcmp(base + name_off, "GNU", 4) == 0 && nhdr.n_descsz > 0 && nhdr.n_descsz <= 64 &&
          desc_off <= data->d_size && nhdr.n_descsz <= data->d_size - desc_off) {
        return hex_bytes({base + desc_off, nhdr.n_descsz});
      }
    }
  }
  return {};
}

std::string file_build_id(const std::string& path) {
  std::string error;
  const ElfFile f = ElfFile::open(path, &error);
  return f ? read_build_id(f.elf()) : "";
}

ElfInfo read_elf_info(Elf* elf) {
  ElfInfo info;
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum && i < 4096; ++i) {
      GElf_Phdr phdr;
      if (!gelf_getphdr(elf, static_cast<int>(i), &phdr) || phdr.p_type != PT_LOAD) continue;
      info.segments.push_back(
          {phdr.p_offset, phdr.p_vaddr, phdr.p_filesz, (phdr.p_flags & PF_X) != 0});
    }
  }
  info.build_id = read_build_id(elf);

  size_t shstrndx = 0;
  bool have_names = elf_getshdrstrndx(elf, &shstrndx) == 0;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    if (shdr.sh_type == SHT_SYMTAB && shdr.sh_size > 0) info.has_symtab = true;
    if (!have_names || shdr.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (!name || std::strcmp(name, ".gnu_debuglink") != 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    // File name, NUL, padding to 4 bytes, then the CRC-32 of the debug file.
    const auto* p = static_cast<const char*>(data->d_buf);
    const void* nul = std::memchr(p, '\0', data->d_size);
    if (!nul) continue;
    size_t len = static_cast<const char*>(nul) - p;
    size_t crc_off = (len + 4) & ~size_t{3};
    if (len == 0 || crc_off > data->d_size || data->d_size - crc_off < 4) continue;
    info.debuglink.assign(p, len);
    std::memcpy(&info.debuglink_crc, p + crc_off, 4);  // same byte order as the file; x86 LE
  }
  return info;
}

size_t add_function_symbols(Elf* elf, uint32_t section_type, SymbolTable& table) {
  size_t added = 0;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != section_type) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    if (entsize == 0) continue;
    size_t count = data->d_size / entsize;
    // Room for every symbol and for the names as large as the string table
    // read (its data: a header's size is untrusted, the bytes are there).
    Elf_Scn* names = elf_getscn(elf, shdr.sh_link);
    const Elf_Data* name_data = names ? elf_getdata(names, nullptr) : nullptr;
    table.reserve(count, name_data && name_data->d_buf ? name_data->d_size : 0);
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
      int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
          sym.st_value == 0) {
        continue;
      }
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (!name || !*name) continue;
      int bind = GELF_ST_BIND(sym.st_info);
      Binding b = bind == STB_GLOBAL ? Binding::Global
                  : bind == STB_WEAK ? Binding::Weak
                                     : Binding::Local;
      table.add(sym.st_value, sym.st_size, name, b);
      ++added;
    }
  }
  return added;
}

std::optional<uint32_t> file_crc32(const std::string& path, uint64_t max_bytes) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) > max_bytes) {
    return std::nullopt;
  }
  std::vector<uint8_t> buf(1 << 16);
  uint32_t crc = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    crc = kprof::crc32({buf.data(), static_cast<size_t>(n)}, crc);
  }
  return crc;
}

}  // namespace kprof::symbolizer
