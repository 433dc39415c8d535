// ElfResolver against real ELF images: this PIE test binary, a dlopen'ed
// fixture library, a stripped library with a .gnu_debuglink / build-id debug
// file, the vDSO, and bad files; and symbolize_profile(), the naming pass
// record and symbolize share, on the same images.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/chunk_codecs.h"
#include "perfabi/load.h"
#include "symbolizer/elf_file.h"
#include "symbolizer/elf_resolver.h"
#include "symbolizer/profile_symbols.h"
#include "tests/symbolizer/self_mapping.h"

namespace fs = std::filesystem;

namespace {
volatile uint64_t test_sink;
}

extern "C" __attribute__((noinline, used)) uint64_t kprof_test_pie_function(uint64_t a) {
  test_sink = a + 11;
  return test_sink * 13;
}

namespace kprof_test_ns {
__attribute__((noinline, used)) uint64_t namespaced_function(uint64_t a, double b) {
  test_sink = a * 17;
  return test_sink + static_cast<uint64_t>(b);
}
}  // namespace kprof_test_ns

namespace kprof {
namespace {

std::string resolve_one(ElfResolver& r, const Mmap& m, uint64_t ip,
                        std::string* build_id = nullptr) {
  uint64_t ips[] = {ip};
  auto names = r.resolve(m, ips, build_id);
  EXPECT_EQ(names.size(), 1u);
  return names.empty() ? "" : names[0];
}

uint64_t addr_of(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

bool any_warning_contains(const ElfResolver& r, const std::string& what) {
  for (const auto& w : r.warnings()) {
    if (w.find(what) != std::string::npos) return true;
  }
  return false;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kprof-symtest-XXXXXX").string();
    path = ::mkdtemp(tmpl.data()) ? fs::path(tmpl) : fs::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

struct DlHandle {
  void* h;
  explicit DlHandle(const char* path) : h(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
  ~DlHandle() {
    if (h) dlclose(h);
  }
};

TEST(ElfResolver, PieExecutableFunctionByName) {
  const void* fn = reinterpret_cast<const void*>(&kprof_test_pie_function);
  auto m = mapping_of(fn);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->filename, fs::read_symlink("/proc/self/exe").string());
  ElfResolver r;
  uint64_t ips[] = {addr_of(fn), addr_of(fn) + 3};
  std::string build_id;
  auto names = r.resolve(*m, ips, &build_id);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "kprof_test_pie_function");
  EXPECT_EQ(names[1], "kprof_test_pie_function");
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();
}

TEST(ElfResolver, DemanglesNamespacedCxxFunction) {
  const void* fn = reinterpret_cast<const void*>(&kprof_test_ns::namespaced_function);
  auto m = mapping_of(fn);
  ASSERT_TRUE(m);
  ElfResolver r;
  EXPECT_EQ(resolve_one(r, *m, addr_of(fn) + 1),
            "kprof_test_ns::namespaced_function(unsigned long, double)");
  ElfResolver raw(ElfResolverOptions{.demangle = false});
  EXPECT_EQ(resolve_one(raw, *m, addr_of(fn) + 1), "_ZN13kprof_test_ns19namespaced_functionEmd");
}

TEST(ElfResolver, SharedLibraryThroughDlopen) {
  DlHandle lib(SYM_FIXTURE_LIB);
  ASSERT_NE(lib.h, nullptr) << dlerror();
  void* add = dlsym(lib.h, "kprof_fixture_add");
  void* scale = dlsym(lib.h, "_ZN13kprof_fixture5scaleEmi");
  ASSERT_NE(add, nullptr);
  ASSERT_NE(scale, nullptr);
  auto m = mapping_of(add);
  ASSERT_TRUE(m);
  EXPECT_NE(m->filename.find("libsym_fixture_lib"), std::string::npos) << m->filename;
  ElfResolver r;
  std::string build_id;
  EXPECT_EQ(resolve_one(r, *m, addr_of(add) + 2, &build_id), "kprof_fixture_add");
  EXPECT_FALSE(build_id.empty());  // the toolchain links with --build-id
  auto ms = mapping_of(scale);
  ASSERT_TRUE(ms);
  EXPECT_EQ(resolve_one(r, *ms, addr_of(scale)), "kprof_fixture::scale(unsigned long, int)");

  // The same build-id, as perf records it (upper case, zero-padded), still matches.
  Mmap recorded = *m;
  recorded.build_id = build_id;
  for (char& c : recorded.build_id) c = static_cast<char>(std::toupper(c));
  recorded.build_id.append(40 - std::min<size_t>(40, recorded.build_id.size()), '0');
  EXPECT_EQ(resolve_one(r, recorded, addr_of(add)), "kprof_fixture_add");
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();
}

TEST(ElfResolver, StrippedLibraryUsesDebuglinkFile) {
  DlHandle lib(SYM_STRIPPED_SO);
  ASSERT_NE(lib.h, nullptr) << dlerror();
  auto static_addr_fn = reinterpret_cast<void* (*)()>(dlsym(lib.h, "kprof_stripped_static_addr"));
  void* exported = dlsym(lib.h, "kprof_stripped_exported");
  ASSERT_NE(static_addr_fn, nullptr);
  ASSERT_NE(exported, nullptr);
  void* hidden = static_addr_fn();
  auto m = mapping_of(hidden);
  ASSERT_TRUE(m);

  // The stripped file really has no .symtab: the name can only come from the debug file.
  std::string error;
  auto file = symbolizer::ElfFile::open(SYM_STRIPPED_SO, &error);
  ASSERT_TRUE(file) << error;
  auto info = symbolizer::read_elf_info(file.elf());
  EXPECT_FALSE(info.has_symtab);
  EXPECT_EQ(info.debuglink, "libsym_stripped.so.debug");

  ElfResolver r(ElfResolverOptions{.debug_dirs = {}});
  EXPECT_EQ(resolve_one(r, *m, addr_of(hidden) + 1), "hidden_static_work(unsigned long)");
  EXPECT_EQ(resolve_one(r, *m, addr_of(exported)), "kprof_stripped_exported");
}

TEST(ElfResolver, StrippedLibraryWithoutDebugFileUsesDynsymThenFdes) {
  DlHandle lib(SYM_STRIPPED_SO);
  ASSERT_NE(lib.h, nullptr) << dlerror();
  auto static_addr_fn = reinterpret_cast<void* (*)()>(dlsym(lib.h, "kprof_stripped_static_addr"));
  void* exported = dlsym(lib.h, "kprof_stripped_exported");
  ASSERT_NE(static_addr_fn, nullptr);
  void* hidden = static_addr_fn();
  auto m = mapping_of(hidden);
  ASSERT_TRUE(m);

  // The static function's start as a virtual address in the file: the
  // mapping's bias is the same for every address in it.
  ElfResolver with_debug(ElfResolverOptions{.debug_dirs = {}});
  ASSERT_EQ(resolve_one(with_debug, *m, addr_of(hidden)), "hidden_static_work(unsigned long)");
  std::string error;
  auto file = symbolizer::ElfFile::open(SYM_STRIPPED_SO, &error);
  ASSERT_TRUE(file) << error;
  auto vaddr = symbolizer::file_offset_to_vaddr(symbolizer::read_elf_info(file.elf()).segments,
                                                addr_of(hidden) - m->start + m->pgoff);
  ASSERT_TRUE(vaddr);
  char hex[32];
  std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(*vaddr));
  // Not in .dynsym: named by its .eh_frame FDE, which starts where the symbol does.
  const std::string by_fde = std::string("libsym_stripped.so") + hex;

  TempDir tmp;
  ASSERT_FALSE(tmp.path.empty());
  fs::copy_file(SYM_STRIPPED_SO, tmp.path / "libsym_stripped.so");
  Mmap alone = *m;
  alone.filename = (tmp.path / "libsym_stripped.so").string();
  ElfResolver r(ElfResolverOptions{.debug_dirs = {}});
  EXPECT_EQ(resolve_one(r, alone, addr_of(hidden)), by_fde);
  EXPECT_EQ(resolve_one(r, alone, addr_of(hidden) + 3), by_fde);
  EXPECT_EQ(resolve_one(r, alone, addr_of(exported)), "kprof_stripped_exported");
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();

  // A wrong file under the debuglink name is rejected (build-id differs).
  fs::copy_file(SYM_FIXTURE_LIB, tmp.path / "libsym_stripped.so.debug");
  ElfResolver r2(ElfResolverOptions{.debug_dirs = {}});
  EXPECT_EQ(resolve_one(r2, alone, addr_of(hidden)), by_fde);
  EXPECT_EQ(resolve_one(r2, alone, addr_of(exported)), "kprof_stripped_exported");
}

// The recorder's reader for /proc mappings: a file's build-id, "" (never a
// throw) for a file that is gone, not ELF, or cut short.
TEST(ElfFile, BuildIdOfAFileOrNothing) {
  std::string error;
  auto file = symbolizer::ElfFile::open(SYM_STRIPPED_SO, &error);
  ASSERT_TRUE(file) << error;
  const std::string id = symbolizer::read_elf_info(file.elf()).build_id;
  ASSERT_FALSE(id.empty()) << "fixture linked without --build-id";
  EXPECT_EQ(symbolizer::file_build_id(SYM_STRIPPED_SO), id);

  TempDir tmp;
  EXPECT_EQ(symbolizer::file_build_id((tmp.path / "gone.so").string()), "");
  std::ofstream(tmp.path / "text.so") << "not an ELF image\n";
  EXPECT_EQ(symbolizer::file_build_id((tmp.path / "text.so").string()), "");
  std::ifstream in(SYM_STRIPPED_SO, std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  std::ofstream(tmp.path / "cut.so", std::ios::binary) << head;  // the ELF header alone
  EXPECT_EQ(symbolizer::file_build_id((tmp.path / "cut.so").string()), "");
}

TEST(ElfResolver, StrippedLibraryUsesBuildIdDebugDir) {
  DlHandle lib(SYM_STRIPPED_SO);
  ASSERT_NE(lib.h, nullptr) << dlerror();
  auto static_addr_fn = reinterpret_cast<void* (*)()>(dlsym(lib.h, "kprof_stripped_static_addr"));
  ASSERT_NE(static_addr_fn, nullptr);
  void* hidden = static_addr_fn();
  auto m = mapping_of(hidden);
  ASSERT_TRUE(m);

  std::string error;
  auto file = symbolizer::ElfFile::open(SYM_STRIPPED_SO, &error);
  ASSERT_TRUE(file) << error;
  std::string id = symbolizer::read_elf_info(file.elf()).build_id;
  ASSERT_GT(id.size(), 2u) << "fixture linked without --build-id";

  TempDir tmp;
  fs::create_directories(tmp.path / "bin");
  fs::create_directories(tmp.path / "debug/.build-id" / id.substr(0, 2));
  fs::copy_file(SYM_STRIPPED_SO, tmp.path / "bin/libsym_stripped.so");
  fs::copy_file(SYM_STRIPPED_DEBUG,
                tmp.path / "debug/.build-id" / id.substr(0, 2) / (id.substr(2) + ".debug"));
  Mmap moved = *m;
  moved.filename = (tmp.path / "bin/libsym_stripped.so").string();
  ElfResolver r(ElfResolverOptions{.debug_dirs = {(tmp.path / "debug").string()}});
  EXPECT_EQ(resolve_one(r, moved, addr_of(hidden)), "hidden_static_work(unsigned long)");
}

TEST(ElfResolver, VdsoClockGettime) {
  void* vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!vdso || getauxval(AT_SYSINFO_EHDR) == 0) GTEST_SKIP() << "this process has no vDSO";
  void* fn = dlsym(vdso, "__vdso_clock_gettime");
  if (!fn) fn = dlsym(vdso, "clock_gettime");
  ASSERT_NE(fn, nullptr) << "vDSO without clock_gettime";
  auto m = mapping_of(fn);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->filename, "[vdso]");
  // A recording of another process: another base address, same kernel image.
  Mmap other = *m;
  other.start += 0x10000000;
  ElfResolver r;
  std::string name = resolve_one(r, other, addr_of(fn) + 0x10000000 + 1);
  EXPECT_NE(name.find("clock_gettime"), std::string::npos) << name;
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();
}

TEST(ElfResolver, MissingFileGivesEmptyNamesAndOneWarning) {
  ElfResolver r;
  Mmap m{.start = 0x1000, .len = 0x1000, .filename = "/nonexistent/kprof/libnothing.so"};
  uint64_t ips[] = {0x1100, 0x1200};
  EXPECT_EQ(r.resolve(m, ips, nullptr), std::vector<std::string>(2));
  EXPECT_EQ(r.resolve(m, ips, nullptr), std::vector<std::string>(2));
  ASSERT_EQ(r.warnings().size(), 1u);
  EXPECT_NE(r.warnings()[0].find("/nonexistent/kprof/libnothing.so"), std::string::npos);
}

TEST(ElfResolver, PseudoMappingsAreSilentlyUnnamed) {
  ElfResolver r;
  uint64_t ips[] = {0x1100};
  for (const char* name : {"//anon", "[heap]", "[stack]", "", "/memfd:jit (deleted)"}) {
    Mmap m{.start = 0x1000, .len = 0x1000, .filename = name};
    EXPECT_EQ(r.resolve(m, ips, nullptr), std::vector<std::string>(1)) << name;
  }
  EXPECT_TRUE(r.warnings().empty());
}

TEST(ElfResolver, NonElfAndTruncatedFilesWarnWithoutThrowing) {
  TempDir tmp;
  fs::path text = tmp.path / "notes.txt";
  std::ofstream(text) << "this is not an ELF file\n";
  fs::path truncated = tmp.path / "truncated.so";
  {
    std::ifstream in(SYM_FIXTURE_LIB, std::ios::binary);
    std::vector<char> head(300);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    ASSERT_EQ(in.gcount(), 300);
    std::ofstream(truncated, std::ios::binary).write(head.data(), 300);
  }
  ElfResolver r;
  uint64_t ips[] = {0x1100, 0x1ff0};
  for (const fs::path& p : {text, truncated}) {
    Mmap m{.start = 0x1000, .len = 0x1000, .pgoff = 0x1000, .filename = p.string()};
    std::vector<std::string> names;
    EXPECT_NO_THROW(names = r.resolve(m, ips, nullptr));
    EXPECT_EQ(names, std::vector<std::string>(2));
    EXPECT_TRUE(any_warning_contains(r, p.string())) << p;
  }
}

// The fixture library loaded, with kprof_fixture_add and its mapping.
class FixtureAdd : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(lib_.h, nullptr) << dlerror();
    add_ = dlsym(lib_.h, "kprof_fixture_add");
    ASSERT_NE(add_, nullptr);
    auto m = mapping_of(add_);
    ASSERT_TRUE(m);
    map_ = *m;
  }
  DlHandle lib_{SYM_FIXTURE_LIB};
  void* add_ = nullptr;
  Mmap map_;
};

TEST_F(FixtureAdd, BuildIdMismatchGivesEmptyNamesAndWarning) {
  Mmap* m = &map_;
  void* add = add_;
  m->build_id = "0123456789abcdef0123456789abcdef01234567";
  ElfResolver r;
  std::string build_id;
  EXPECT_EQ(resolve_one(r, *m, addr_of(add), &build_id), "");
  EXPECT_EQ(build_id, m->build_id);
  EXPECT_TRUE(any_warning_contains(r, "build-id differs from the recording's"));
  // Without a recorded build-id the same file resolves.
  m->build_id.clear();
  EXPECT_EQ(resolve_one(r, *m, addr_of(add)), "kprof_fixture_add");
}

// preload() reads a file ahead (a report does it on a second thread while it
// walks the records); resolving then names as without it, and the warnings
// come from resolving the mappings, not from what was only read ahead.
TEST_F(FixtureAdd, PreloadedImagesNameAsBeforeAndWarnOnlyWhenResolved) {
  ElfResolver r;
  r.preload(map_.filename, map_.build_id);
  r.preload("/nonexistent/kprof/libnothing.so", "");
  r.preload("[heap]", "");
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();
  EXPECT_EQ(resolve_one(r, map_, addr_of(add_)), "kprof_fixture_add");
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();
  Mmap missing{.start = 0x1000, .len = 0x1000, .filename = "/nonexistent/kprof/libnothing.so"};
  EXPECT_EQ(resolve_one(r, missing, 0x1100), "");
  EXPECT_EQ(resolve_one(r, missing, 0x1200), "");
  ASSERT_EQ(r.warnings().size(), 1u);
  EXPECT_NE(r.warnings()[0].find("/nonexistent/kprof/libnothing.so"), std::string::npos);
}

// Issue 23, item 7: a program rebuilt (or removed) since `perf record` is
// read from perf's build-id cache, as perf report does.
TEST_F(FixtureAdd, RebuiltFileIsReadFromPerfsBuildIdCache) {
  const Mmap* m = &map_;
  void* add = add_;
  std::string id;
  {
    ElfResolver probe;
    EXPECT_EQ(resolve_one(probe, *m, addr_of(add), &id), "kprof_fixture_add");
  }
  ASSERT_GT(id.size(), 8u);
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  // "Rebuilt": another ELF file (this test) now at the recorded path.
  const fs::path lib_path = dir.path / "app/libfixture.so";
  fs::create_directories(lib_path.parent_path());
  fs::copy_file("/proc/self/exe", lib_path);
  Mmap recorded = *m;
  recorded.filename = lib_path.string();
  recorded.build_id = id;
  {
    ElfResolver no_cache;
    EXPECT_EQ(resolve_one(no_cache, recorded, addr_of(add)), "");
    EXPECT_TRUE(any_warning_contains(no_cache, "build-id differs"));
  }
  // perf's layout: <cache>/<path>/<build-id>/elf.
  const fs::path cache = dir.path / "debug";
  const fs::path copy = cache / lib_path.relative_path() / id / "elf";
  fs::create_directories(copy.parent_path());
  fs::copy_file(m->filename, copy);
  ElfResolver r(ElfResolverOptions{.buildid_cache = cache.string()});
  std::string got_id;
  EXPECT_EQ(resolve_one(r, recorded, addr_of(add) + 2, &got_id), "kprof_fixture_add");
  EXPECT_EQ(got_id, id);
  EXPECT_TRUE(r.warnings().empty()) << r.warnings().front();
  // Perf's zero-padded, upper-case form of the id finds the same copy.
  Mmap padded = recorded;
  padded.build_id = id;
  for (char& c : padded.build_id) c = static_cast<char>(std::toupper(c));
  padded.build_id.append(40 - std::min<size_t>(40, padded.build_id.size()), '0');
  EXPECT_EQ(resolve_one(r, padded, addr_of(add)), "kprof_fixture_add");

  // The file gone, found through the cache's .build-id/xx/rest link.
  const fs::path cache2 = dir.path / "debug2";
  fs::create_directories(cache2 / ".build-id" / id.substr(0, 2) / id.substr(2));
  fs::copy_file(m->filename, cache2 / ".build-id" / id.substr(0, 2) / id.substr(2) / "elf");
  Mmap gone = recorded;
  gone.filename = (dir.path / "removed/libfixture.so").string();
  ElfResolver r2(ElfResolverOptions{.buildid_cache = cache2.string()});
  EXPECT_EQ(resolve_one(r2, gone, addr_of(add)), "kprof_fixture_add");
  EXPECT_TRUE(r2.warnings().empty()) << r2.warnings().front();
}

TEST(ElfResolver, DeletedSuffixFallsBackToLivePath) {
  const void* fn = reinterpret_cast<const void*>(&kprof_test_pie_function);
  auto m = mapping_of(fn);
  ASSERT_TRUE(m);
  m->filename += " (deleted)";
  ElfResolver r;
  EXPECT_EQ(resolve_one(r, *m, addr_of(fn)), "kprof_test_pie_function");
  EXPECT_TRUE(any_warning_contains(r, "deleted"));
}

TEST(ElfResolver, ThousandsOfIpsResolveQuickly) {
  const void* fn = reinterpret_cast<const void*>(&kprof_test_pie_function);
  auto m = mapping_of(fn);
  ASSERT_TRUE(m);
  std::vector<uint64_t> ips;
  for (uint64_t i = 0; i < 20000; ++i) ips.push_back(m->start + (i * 97) % m->len);
  ips.push_back(addr_of(fn));
  ElfResolver r;
  auto names = r.resolve(*m, ips, nullptr);
  ASSERT_EQ(names.size(), ips.size());
  EXPECT_EQ(names.back(), "kprof_test_pie_function");
  size_t named = 0;
  for (const auto& n : names) named += !n.empty();
  EXPECT_GT(named, ips.size() / 4);  // most of the text segment is functions
}

// ------------------------------------------------------ symbolize_profile

// A -g sample in kprof_test_pie_function called from kprof_fixture_add (its
// return address just past the call), in process 1.
struct TwoImages {
  DlHandle lib{SYM_FIXTURE_LIB};
  uint64_t pie = 0, add = 0;
  Mmap pie_map, lib_map;
  bool ok() {
    void* a = lib.h ? dlsym(lib.h, "kprof_fixture_add") : nullptr;
    const void* fn = reinterpret_cast<const void*>(&kprof_test_pie_function);
    auto pm = mapping_of(fn), lm = a ? mapping_of(a) : std::nullopt;
    if (!pm || !lm) return false;
    pie = addr_of(fn);
    add = addr_of(a);
    pie_map = *pm;
    lib_map = *lm;
    pie_map.pid = lib_map.pid = 1;
    return true;
  }
  void feed(AddressAggregator& agg, uint64_t samples) const {
    agg.on_mmap(pie_map);
    agg.on_mmap(lib_map);
    for (uint64_t i = 0; i < samples; ++i) {
      agg.on_sample(Sample{i, pie, 1, 1, 0, Mode::User, 10, {pie, add + 1}});
    }
  }
};

TEST(SymbolizeProfile, NamesLeafAndCallerAndWritesStacksOnly) {
  TwoImages t;
  ASSERT_TRUE(t.ok()) << dlerror();
  AddressAggregator agg(/*stacks=*/true);
  t.feed(agg, 3);
  const ProfileSymbols sym = symbolize_profile(agg.counts(), KernelSymbols::parse("", ""));
  EXPECT_TRUE(sym.warnings.empty()) << sym.warnings.front();
  ASSERT_TRUE(sym.stacks.has_value());
  ASSERT_EQ(sym.stacks->stacks.size(), 1u);
  const Stack& st = sym.stacks->stacks[0];
  EXPECT_EQ(st.samples, 3u);
  ASSERT_EQ(st.frames.size(), 2u);
  EXPECT_EQ(sym.stacks->frames[st.frames[0]].function, "kprof_test_pie_function");
  EXPECT_EQ(sym.stacks->frames[st.frames[1]].function, "kprof_fixture_add");
  EXPECT_EQ(sym.histogram, leaf_histogram(*sym.stacks));

  TempDir dir;
  const std::string path = (dir.path / "p.kprof").string();
  {
    ProfileWriter w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(RunInfo{}));
    write_profile_symbols(w, sym);
  }
  const Profile p = perfabi::load_profile(path);
  EXPECT_TRUE(p.status.complete) << p.status.problem;
  EXPECT_FALSE(p.histogram.has_value()) << "a -g profile's flat table is its stacks' leaves";
  ASSERT_TRUE(p.stacks.has_value());
  EXPECT_EQ(*p.stacks, *sym.stacks);
}

TEST(SymbolizeProfile, ChangedFileKeepsTheRecordingsNamesInAFlatProfile) {
  TwoImages t;
  ASSERT_TRUE(t.ok()) << dlerror();
  t.lib_map.build_id = "0123456789abcdef0123456789abcdef01234567";  // not this file's
  AddressAggregator agg;
  agg.on_mmap(t.lib_map);
  for (int i = 0; i < 4; ++i) agg.on_sample(Sample{0, t.add, 1, 1, 0, Mode::User, 1, {}});
  const KernelSymbols none = KernelSymbols::parse("", "");
  const ProfileSymbols fresh = symbolize_profile(agg.counts(), none);
  ASSERT_EQ(fresh.warnings.size(), 1u);
  EXPECT_NE(fresh.warnings[0].find("build-id differs"), std::string::npos) << fresh.warnings[0];
  ASSERT_EQ(fresh.histogram.rows.size(), 1u);
  EXPECT_EQ(fresh.histogram.rows[0].function, "[unknown]");
  // The histogram the recording wrote counted the same 4 samples there.
  Histogram recorded;
  recorded.images = {{t.lib_map.filename, t.lib_map.build_id}};
  recorded.rows = {{0, "kprof_fixture_add", Mode::User, 4, 4}};
  const ProfileSymbols kept = symbolize_profile(agg.counts(), none, &recorded);
  EXPECT_EQ(kept.kept_images, std::vector<std::string>{t.lib_map.filename});
  ASSERT_EQ(kept.histogram.rows.size(), 1u);
  EXPECT_EQ(kept.histogram.rows[0].function, "kprof_fixture_add");
  // Counted differently (5 samples then): nothing is kept.
  recorded.rows[0].samples = 5;
  EXPECT_TRUE(symbolize_profile(agg.counts(), none, &recorded).kept_images.empty());
}

}  // namespace
}  // namespace kprof
