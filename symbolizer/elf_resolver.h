// Names user-space addresses from ELF files on this machine, through elfutils.
//
// ElfResolver implements kprof::UserSymbolResolver (core/aggregate.h): given a
// mapping as recorded (path, start, pgoff, build-id) and absolute ips inside
// it, it returns one demangled function name per ip ("" when unknown). It
// reads .symtab, falls back to .dynsym, and looks for separate debug files
// (build-id under the debug dirs, .gnu_debuglink next to the file, in .debug/
// and under the debug dirs). Where no .symtab is found at all (a stripped
// file without its debug file), what .dynsym leaves unnamed is split by the
// file's own FDE extents (.eh_frame, .debug_frame; symbolizer/eh_frame.h)
// and named "<file base name>+0x<FDE start>" (a virtual address as in the
// file, so the name is the same in every run of that build); "" only where
// neither a symbol nor an FDE covers the address. The load bias comes from
// the mapping and the ELF program headers, so PIE executables and shared
// libraries resolve alike. "[vdso]" is read from this process's own vDSO
// (same kernel).
// Each file is opened once and cached for the resolver's lifetime; every
// libelf/libdw handle and fd is owned by RAII wrappers and closed with it.
// A file that is missing, unreadable, not ELF, or whose build-id differs
// from the recorded one yields "" names (and a warning in warnings()), never
// an exception, unless perf's build-id cache holds the recorded build
// (ElfResolverOptions::buildid_cache).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/aggregate.h"

namespace kprof {

struct ElfResolverOptions {
  // Where separate debug files live (build-id/xx/yyyy.debug and mirrored paths).
  std::vector<std::string> debug_dirs = {"/usr/lib/debug"};
  bool demangle = true;  // C++ names through abi::__cxa_demangle
  // perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug; "" for none): a
  // mapping whose recorded build-id has a copy there is read from that copy
  // (<cache>/<path>/<build-id>/elf, or the <cache>/.build-id/xx/yyyy link),
  // as perf report does, so a binary rebuilt since the recording still names.
  std::string buildid_cache;
};

class ElfResolver : public UserSymbolResolver {
 public:
  explicit ElfResolver(ElfResolverOptions options = {});
  ~ElfResolver() override;
  ElfResolver(const ElfResolver&) = delete;
  ElfResolver& operator=(const ElfResolver&) = delete;

  std::vector<std::string> resolve(const Mmap& mapping, std::span<const uint64_t> ips,
                                   std::string* build_id) override;

  // Where the function around a user ip lies, to read its code (kprof
  // annotate): the file the mapping's bytes come from (perf's cached copy
  // of the recorded build first, as resolve() reads it), its separate debug
  // file if one was found, and the function's extent in file virtual
  // addresses. nullopt (with a warning) when resolve() would not name it, or
  // for "[vdso]", whose code is not in a file.
  struct CodeLocation {
    std::string file;
    std::string debug_file;  // "" when none was found (or none needed)
    std::string function;    // demangled as resolve() names it
    uint64_t start = 0, end = 0;
    uint64_t bias = 0;  // a run-time address less bias is its file virtual address
  };
  std::optional<CodeLocation> locate(const Mmap& mapping, uint64_t ip);

  // Reads the file a mapping of `filename` (recorded with `build_id`) would
  // be named from, so a later resolve() or locate() of it only looks names
  // up: a report loads the images its stored table names on a second thread
  // while it reads the records again. Warns of nothing itself (resolve()
  // does, for the mappings it is given).
  void preload(const std::string& filename, const std::string& build_id);

  // One line per problem met ("/usr/bin/x: build-id differs from the recording's").
  const std::vector<std::string>& warnings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kprof
