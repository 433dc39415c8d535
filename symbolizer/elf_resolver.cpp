#include "symbolizer/elf_resolver.h"

#include <gelf.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <unordered_map>

#include "symbolizer/eh_frame.h"
#include "symbolizer/elf_file.h"
#include "symbolizer/symbol_table.h"

namespace kprof {

using symbolizer::ElfFile;
using symbolizer::ElfInfo;
using symbolizer::SymbolTable;

namespace {

// One parsed image, kept for the resolver's lifetime. Only the extracted
// facts are kept; the file itself is closed once loaded.
struct LoadedImage {
  bool ok = false;  // false: missing / unreadable / not ELF (see `problem`)
  // What a reader is told about this file, once, when a mapping is named
  // from it (checked_image): why it cannot be read, or that it names
  // nothing. Loading itself warns of nothing, so preload() stays silent.
  std::string problem;
  std::string build_id;
  std::vector<symbolizer::LoadSegment> segments;
  SymbolTable symbols;
  std::unordered_map<const char*, std::string> demangled;  // by name start in `symbols`
  // Only when no .symtab was found (the file's or a debug file's): the FDE
  // extents of the file's own .eh_frame/.debug_frame, naming what no symbol
  // covers "<fde_prefix>+0x<start>" (the file's base name).
  symbolizer::FdeTable fdes;
  std::string fde_prefix;
  std::string path;        // the file read
  std::string debug_path;  // the separate debug file read, "" when none
};

constexpr std::string_view kDeleted = " (deleted)";
constexpr uint64_t kMaxCrcBytes = 512ull << 20;  // debuglink CRC only when reading it is cheap

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string basename_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "postgres+0x4a1b20": an unnamed function by its image and start address.
std::string fde_name(std::string_view prefix, uint64_t start) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(start));
  std::string out(prefix);
  out += hex;
  return out;
}

std::string dirname_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// Build-ids as recorded may be zero-padded to 20 bytes (perf's fixed field).
bool build_ids_match(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  if (b.substr(0, a.size()) != a) return false;
  return b.substr(a.size()).find_first_not_of('0') == std::string_view::npos;
}

std::string lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Mappings that are not ELF files by nature: name them "" without a warning.
bool is_pseudo_file(std::string_view name) {
  return name.empty() || name[0] != '/' || name.starts_with("/memfd:") ||
         name.starts_with("/dev/") || name.starts_with("/SYSV") || name.starts_with("//anon");
}

}  // namespace

struct ElfResolver::Impl {
  ElfResolverOptions options;
  std::unordered_map<std::string, std::unique_ptr<LoadedImage>> cache;  // by path ("[vdso]")
  std::vector<std::string> warnings;
  std::set<std::string> warned;  // one warning per key

  void warn(const std::string& key, const std::string& line) {
    if (warned.insert(key).second) warnings.push_back(line);
  }

  // `name`: the file's name in FDE-derived names ("" for path's basename).
  LoadedImage& image(const std::string& path, const std::string& name = "");
  LoadedImage* cached_copy(const std::string& path, const std::string& build_id);
  std::unique_ptr<LoadedImage> load_file(const std::string& path, const std::string& name);
  std::unique_ptr<LoadedImage> load_vdso();
  // The debug file found is named in *found.
  ElfFile find_debug_file(const std::string& path, const ElfInfo& info, std::string* found);
  ElfFile try_debug_candidate(const std::string& cand, const std::string& path, const ElfInfo& info,
                              bool check_crc);
  void fill(LoadedImage& img, const ElfFile& file, const ElfInfo& info, const ElfFile* debug,
            std::string name);
  // The image a mapping's user ips are named from, its build-id checked
  // against the recorded one (*path: the path read); null when unusable.
  LoadedImage* checked_image(const Mmap& mapping, std::string* path, std::string* build_id);
  // The file a mapping's filename is read from (a deleted one's live path).
  static std::string path_read(const std::string& filename);
  // The image for `path`, perf's cached copy of the `recorded` build first;
  // loaded once, silently (checked_image warns).
  LoadedImage* load(const std::string& path, const std::string& recorded);
};

ElfResolver::ElfResolver(ElfResolverOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  elf_version(EV_CURRENT);
}

ElfResolver::~ElfResolver() = default;

const std::vector<std::string>& ElfResolver::warnings() const {
  return impl_->warnings;
}

LoadedImage& ElfResolver::Impl::image(const std::string& path, const std::string& name) {
  auto it = cache.find(path);
  if (it != cache.end()) return *it->second;
  auto img =
      path == "[vdso]" ? load_vdso() : load_file(path, name.empty() ? basename_of(path) : name);
  return *cache.emplace(path, std::move(img)).first->second;
}

void ElfResolver::Impl::fill(LoadedImage& img, const ElfFile& file, const ElfInfo& info,
                             const ElfFile* debug, std::string name) {
  img.ok = true;
  img.build_id = info.build_id;
  img.segments = info.segments;
  // .symtab (the file's or the debug file's) plus .dynsym: MiniDebugInfo-style
  // debug tables may hold only what .dynsym lacks; aliases collapse in finish().
  if (info.has_symtab) {
    symbolizer::add_function_symbols(file.elf(), SHT_SYMTAB, img.symbols);
  } else if (debug) {
    symbolizer::add_function_symbols(debug->elf(), SHT_SYMTAB, img.symbols);
  }
  symbolizer::add_function_symbols(file.elf(), SHT_DYNSYM, img.symbols);
  img.symbols.finish();
  // Without a .symtab, .dynsym leaves static functions unnamed: split them by
  // the FDEs the file still carries (strip keeps .eh_frame).
  if (!info.has_symtab && !debug) {
    symbolizer::add_fde_ranges(file.elf(), img.fdes);
    img.fdes.finish(img.segments);
    img.fde_prefix = std::move(name);
  }
}

std::unique_ptr<LoadedImage> ElfResolver::Impl::load_file(const std::string& path,
                                                          const std::string& name) {
  auto img = std::make_unique<LoadedImage>();
  std::string error;
  ElfFile file = ElfFile::open(path, &error);
  if (!file) {
    img->problem = path + ": " + error + "; its samples stay unnamed";
    return img;
  }
  ElfInfo info = symbolizer::read_elf_info(file.elf());
  ElfFile debug;
  if (!info.has_symtab) debug = find_debug_file(path, info, &img->debug_path);
  fill(*img, file, info, debug ? &debug : nullptr, name);
  img->path = path;
  if (img->symbols.empty() && img->fdes.empty()) {
    img->problem = path + ": no function symbols (.symtab, .dynsym, debug file or .eh_frame)";
  }
  return img;
}

ElfFile ElfResolver::Impl::try_debug_candidate(const std::string& cand, const std::string& path,
                                               const ElfInfo& info, bool check_crc) {
  struct stat st {};
  if (::stat(cand.c_str(), &st) != 0 || same_file(cand, path)) return {};
  std::string error;
  ElfFile debug = ElfFile::open(cand, &error);
  if (!debug) return {};
  ElfInfo dinfo = symbolizer::read_elf_info(debug.elf());
  if (!dinfo.has_symtab) return {};
  if (!info.build_id.empty() && !dinfo.build_id.empty()) {
    if (info.build_id != dinfo.build_id) return {};
  } else if (check_crc) {
    auto crc = symbolizer::file_crc32(cand, kMaxCrcBytes);
    if (crc && *crc != info.debuglink_crc) return {};
  }
  return debug;
}

ElfFile ElfResolver::Impl::find_debug_file(const std::string& path, const ElfInfo& info,
                                           std::string* found) {
  const std::string& id = info.build_id;
  if (id.size() > 2) {
    for (const std::string& dir : options.debug_dirs) {
      std::string cand = dir + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
      if (ElfFile f = try_debug_candidate(cand, path, info, false)) {
        *found = cand;
        return f;
      }
    }
  }
  if (info.debuglink.empty() || info.debuglink.find('/') != std::string::npos) return {};
  // The file's own directory, and its real one (merged /usr: /lib -> /usr/lib).
  std::vector<std::string> dirs = {dirname_of(path)};
  if (char* real = ::realpath(path.c_str(), nullptr)) {
    std::string r = dirname_of(real);
    std::free(real);
    if (r != dirs[0]) dirs.push_back(r);
  }
  for (const std::string& dir : dirs) {
    std::vector<std::string> cands = {dir + "/" + info.debuglink,
                                      dir + "/.debug/" + info.debuglink};
    for (const std::string& ddir : options.debug_dirs) {
      cands.push_back(ddir + (dir.starts_with("/") ? "" : "/") + dir + "/" + info.debuglink);
    }
    for (const std::string& cand : cands) {
      if (ElfFile f = try_debug_candidate(cand, path, info, true)) {
        *found = cand;
        return f;
      }
    }
  }
  return {};
}

// perf's cache keeps each build as <cache>/<path>/<build-id>/elf, linked
// from <cache>/.build-id/<first 2 hex>/<the rest>. Build-ids read from a
// perf.data may be zero-padded to 20 bytes: the unpadded form is tried too.
LoadedImage* ElfResolver::Impl::cached_copy(const std::string& path, const std::string& build_id) {
  if (options.buildid_cache.empty() || build_id.size() < 4) return nullptr;
  std::vector<std::string> ids = {build_id};
  std::string trimmed = build_id;
  while (trimmed.size() > 16 && trimmed.ends_with("00")) trimmed.resize(trimmed.size() - 2);
  if (trimmed != build_id) ids.push_back(trimmed);
  const std::string& root = options.buildid_cache;
  for (const std::string& id : ids) {
    for (const std::string& cand :
         {root + (path.starts_with("/") ? "" : "/") + path + "/" + id + "/elf",
          root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + "/elf"}) {
      struct stat st {};
      if (::stat(cand.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      LoadedImage& img = image(cand, basename_of(path));
      if (img.ok && build_ids_match(build_id, img.build_id)) return &img;
    }
  }
  return nullptr;
}

std::unique_ptr<LoadedImage> ElfResolver::Impl::load_vdso() {
  auto img = std::make_unique<LoadedImage>();
  // The recorded process ran on this kernel, so its vDSO is this process's.
  uint64_t base = ::getauxval(AT_SYSINFO_EHDR);
  uint64_t len = 0;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; base != 0 && std::getline(maps, line);) {
    if (!ends_with(line, "[vdso]")) continue;
    uint64_t start = 0, end = 0;
    const char* first = line.data();
    const char* last = first + line.size();
    const auto a = std::from_chars(first, last, start, 16);
    if (a.ec != std::errc() || a.ptr == last || *a.ptr != '-') continue;
    const auto b = std::from_chars(a.ptr + 1, last, end, 16);
    if (b.ec == std::errc() && start == base && end > start) {
      len = end - start;
    }
  }
  if (base == 0 || len == 0) {
    img->problem = "[vdso]: this process has no vDSO to read symbols from";
    return img;
  }
  std::string error;
  // The kernel maps the vDSO at `base` in this process (AT_SYSINFO_EHDR).
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  const auto* vdso = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(base));
  ElfFile file = ElfFile::from_memory({vdso, len}, &error);
  if (!file) {
    img->problem = "[vdso]: " + error;
    return img;
  }
  fill(*img, file, symbolizer::read_elf_info(file.elf()), nullptr, "[vdso]");
  return img;
}

std::string ElfResolver::Impl::path_read(const std::string& filename) {
  if (filename == "[vdso]" || !ends_with(filename, kDeleted)) return filename;
  return filename.substr(0, filename.size() - kDeleted.size());
}

LoadedImage* ElfResolver::Impl::load(const std::string& path, const std::string& recorded) {
  // perf's copy of the recorded build first, as perf report reads it.
  LoadedImage* cached = path == "[vdso]" ? nullptr : cached_copy(path, recorded);
  return cached ? cached : &image(path);
}

LoadedImage* ElfResolver::Impl::checked_image(const Mmap& mapping, std::string* path_read_out,
                                              std::string* build_id) {
  if (mapping.filename != "[vdso]" && is_pseudo_file(mapping.filename)) return nullptr;
  std::string path = path_read(mapping.filename);
  if (path != mapping.filename) {
    warn(mapping.filename,
         mapping.filename + ": file was deleted after it was mapped; reading " + path + " instead");
  }
  const std::string recorded = lower(mapping.build_id);
  LoadedImage& img = *load(path, recorded);
  if (!img.problem.empty()) warn(img.problem, img.problem);
  if (!img.ok) return nullptr;
  if (!recorded.empty() && !img.build_id.empty() && !build_ids_match(recorded, img.build_id)) {
    warn(path + "\n" + recorded,
         path + ": build-id differs from the recording's (binary changed since?)");
    if (build_id) *build_id = recorded;
    return nullptr;
  }
  if (build_id) *build_id = img.build_id.empty() ? recorded : img.build_id;
  if (path_read_out) *path_read_out = std::move(path);
  return &img;
}

void ElfResolver::preload(const std::string& filename, const std::string& build_id) {
  if (filename != "[vdso]" && is_pseudo_file(filename)) return;
  impl_->load(impl_->path_read(filename), lower(build_id));
}

std::vector<std::string> ElfResolver::resolve(const Mmap& mapping, std::span<const uint64_t> ips,
                                              std::string* build_id) {
  std::vector<std::string> names(ips.size());
  LoadedImage* found = impl_->checked_image(mapping, nullptr, build_id);
  if (!found) return names;
  LoadedImage& img = *found;
  for (size_t i = 0; i < ips.size(); ++i) {
    uint64_t ip = ips[i];
    if (ip < mapping.start) continue;
    auto vaddr = symbolizer::file_offset_to_vaddr(img.segments, ip - mapping.start + mapping.pgoff);
    if (!vaddr) continue;
    std::string_view raw = img.symbols.lookup(*vaddr);
    if (raw.empty()) {
      if (auto start = img.fdes.lookup(*vaddr)) names[i] = fde_name(img.fde_prefix, *start);
      continue;
    }
    if (!impl_->options.demangle || !raw.starts_with("_Z")) {
      names[i] = raw;
      continue;
    }
    auto [it, inserted] = img.demangled.try_emplace(raw.data());
    if (inserted) it->second = symbolizer::demangle(raw);
    names[i] = it->second;
  }
  return names;
}

}  // namespace kprof

namespace kprof {

std::optional<ElfResolver::CodeLocation> ElfResolver::locate(const Mmap& mapping, uint64_t ip) {
  std::string path;
  LoadedImage* img = impl_->checked_image(mapping, &path, nullptr);
  if (!img || path == "[vdso]" || ip < mapping.start) return std::nullopt;
  auto vaddr = symbolizer::file_offset_to_vaddr(img->segments, ip - mapping.start + mapping.pgoff);
  if (!vaddr) return std::nullopt;
  auto x = img->symbols.extent(*vaddr);
  if (!x) return std::nullopt;
  CodeLocation at{
      .file = img->path,
      .debug_file = img->debug_path,
      .function = impl_->options.demangle ? symbolizer::demangle(x->name) : std::string(x->name),
      .start = x->addr,
      .end = x->end,
      .bias = ip - *vaddr};
  return at;
}

}  // namespace kprof
