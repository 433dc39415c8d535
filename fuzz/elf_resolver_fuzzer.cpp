// Fuzzes the ELF symbolizer with arbitrary file contents: the bytes go to a
// file in a private temp directory (so .gnu_debuglink lookups stay inside
// it), an ElfResolver without debug dirs resolves a few addresses in a
// mapping of it, and the in-memory path parses the same bytes directly, also
// as a bare call-frame section (the FDE reader of symbolizer/eh_frame.h).
// What kprof annotate reads of a function found there goes through the same
// bytes: its code (read_code, then Capstone) and its source lines (libdw).
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "symbolizer/eh_frame.h"
#include "symbolizer/elf_file.h"
#include "symbolizer/elf_resolver.h"
#include "symbolizer/function_code.h"

namespace {

// A private directory holding the input file, removed at exit.
struct FuzzDir {
  std::string dir, file;
  FuzzDir() {
    char tmpl[] = "/tmp/kprof-elf-fuzz-XXXXXX";
    if (!::mkdtemp(tmpl)) abort();
    dir = tmpl;
    file = dir + "/input.so";
  }
  ~FuzzDir() {
    ::unlink(file.c_str());
    ::rmdir(dir.c_str());
  }
};

const std::string& fuzz_file() {
  static const FuzzDir dir;
  return dir.file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kprof;
  // The last 8 bytes steer one extra address, so the fuzzer can aim at symbols.
  uint64_t steer = 0;
  if (size >= 8) std::memcpy(&steer, data + size - 8, 8);

  const std::string& path = fuzz_file();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  ElfResolver resolver(ElfResolverOptions{.debug_dirs = {}});
  Mmap m{.start = 0x400000, .len = 0x100000, .pgoff = 0, .filename = path};
  const uint64_t ips[] = {
      0x400000, 0x400040, 0x401000, 0x401123, 0x4fffff, 0x400000 + (steer & 0xfffff), 0x3fffff};
  std::string build_id;
  auto names = resolver.resolve(m, ips, &build_id);
  if (names.size() != std::size(ips)) abort();
  if (auto at = resolver.locate(m, 0x400000 + (steer & 0xfffff))) {
    std::string why;
    if (auto code = symbolizer::read_code(at->file, at->start, at->end, &why)) {
      symbolizer::disassemble_x86_64(*code, at->start, &why);
    }
    const auto lines = symbolizer::SourceLines::open(at->file, &why);
    lines.at(at->start);
    lines.at(steer);
  }
  m.build_id = "00ff";
  m.pgoff = steer & ~uint64_t{0xfff};
  resolver.resolve(m, ips, nullptr);

  std::string error;
  auto file = symbolizer::ElfFile::from_memory({data, size}, &error);
  if (file) {
    auto info = symbolizer::read_elf_info(file.elf());
    symbolizer::SymbolTable table;
    symbolizer::add_function_symbols(file.elf(), SHT_SYMTAB, table);
    symbolizer::add_function_symbols(file.elf(), SHT_DYNSYM, table);
    table.finish();
    symbolizer::FdeTable fdes;
    symbolizer::add_fde_ranges(file.elf(), fdes);
    fdes.finish(info.segments);
    for (uint64_t off : {uint64_t{0}, uint64_t{0x1000}, steer}) {
      if (auto vaddr = symbolizer::file_offset_to_vaddr(info.segments, off)) {
        symbolizer::demangle(table.lookup(*vaddr));
        fdes.lookup(*vaddr);
      }
    }
  }
  // The same bytes as a bare .eh_frame / .debug_frame section.
  for (bool eh : {true, false}) {
    symbolizer::FdeTable fdes;
    symbolizer::add_cfi_fdes({.bytes = {data, size},
                              .eh_frame = eh,
                              .address = 0x2000,
                              .text_address = 0x1000,
                              .elf64 = (steer & 1) == 0,
                              .big_endian = (steer & 2) != 0},
                             fdes);
    const symbolizer::LoadSegment all[] = {{0, 0, ~uint64_t{0} >> 1, true}};
    fdes.finish(all);
    fdes.lookup(steer);
  }
  return 0;
}
