#include "collector/kallsyms_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <span>

#include "collector/perf_event.h"
#include "collector/procfs.h"
#include "core/bytes.h"
#include "core/error.h"
#include "core/profile_reader.h"
#include "core/profile_writer.h"

namespace kprof::collector {
namespace {

constexpr size_t kPrefixBytes = 64 << 10;
constexpr size_t kMaxCacheBytes = 64 << 20;  // a snapshot is ~1 MB compressed
constexpr std::string_view kPrefix = "kallsyms-";
constexpr std::string_view kSuffix = ".kprof";

}  // namespace

std::string current_boot_id() {
  std::string id = read_text_file("/proc/sys/kernel/random/boot_id", 64);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  for (char c : id) {
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '-') return "";
  }
  return id;
}

namespace {

// The cache file's bytes, if it is a regular file of this user that no one
// else can write (its contents decide which names a profile gets).
std::optional<std::vector<uint8_t>> read_trusted(const std::string& path) {
  const Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 || st.st_size <= 0 ||
      static_cast<uint64_t>(st.st_size) > kMaxCacheBytes) {
    return std::nullopt;
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<size_t>(n);
  }
  return bytes;
}

}  // namespace

std::string KallsymsCache::default_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/kprof";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/kprof";
  }
  return "";
}

std::string KallsymsCache::path() const {
  if (dir_.empty()) return "";
  const std::string id = current_boot_id();
  if (id.empty()) return "";
  return dir_ + "/" + std::string(kPrefix) + id + std::string(kSuffix);
}

namespace {

// The snapshot and the modules text stored in a cache file.
struct CacheFile {
  KallsymsSnapshot snapshot;
  std::string modules;
};

std::optional<CacheFile> read_cache_file(const std::string& file) {
  if (file.empty()) return std::nullopt;
  auto bytes = read_trusted(file);
  if (!bytes) return std::nullopt;
  std::optional<std::string> cached_modules;
  std::optional<KallsymsSnapshot> snap;
  try {
    // Our own file of three chunks (modules, kallsyms, end), each read
    // straight into its string: kallsyms is megabytes of text.
    ProfileReader reader(std::move(*bytes), file);
    const auto headers = reader.chunk_headers();
    if (!headers || headers->empty() ||
        headers->back().type != static_cast<uint16_t>(ChunkType::End)) {
      return std::nullopt;  // cut short
    }
    for (const ChunkHeaderInfo& h : *headers) {
      if (h.type == static_cast<uint16_t>(ChunkType::Modules)) {
        cached_modules.emplace();
        if (!reader.read_text_chunk(h, *cached_modules, [](const Chunk&) {}).empty()) {
          return std::nullopt;
        }
      } else if (h.type == static_cast<uint16_t>(ChunkType::Kallsyms)) {
        snap.emplace();
        const std::string damage = reader.read_text_chunk(h, snap->text, [&](const Chunk& c) {
          snap->chunk.type = c.type;
          snap->chunk.flags = c.flags;
          snap->chunk.raw_len = static_cast<uint32_t>(c.payload.size());
          snap->chunk.bytes.assign(c.stored.begin(), c.stored.end());
        });
        if (!damage.empty()) return std::nullopt;
      }
    }
  } catch (const Error&) {
    return std::nullopt;  // damaged: the caller reads /proc/kallsyms and stores it again
  }
  if (!snap || !cached_modules) return std::nullopt;
  return CacheFile{std::move(*snap), std::move(*cached_modules)};
}

}  // namespace

std::optional<KallsymsSnapshot> KallsymsCache::snapshot() const {
  auto file = read_cache_file(path());
  if (!file) return std::nullopt;
  return std::move(file->snapshot);
}

std::optional<KallsymsSnapshot> KallsymsCache::load(std::string_view modules) const {
  auto file = read_cache_file(path());
  if (!file || file->modules != modules) return std::nullopt;
  const std::string now = read_text_file("/proc/kallsyms", kPrefixBytes);
  if (now.empty() || std::string_view(file->snapshot.text).substr(0, now.size()) != now) {
    return std::nullopt;
  }
  return std::move(file->snapshot);
}

bool KallsymsCache::store(const StoredChunk& kallsyms, std::string_view modules) const noexcept {
  const std::string file = path();
  if (file.empty()) return false;
  const std::string tmp = file + "." + std::to_string(::getpid()) + ".tmp";
  std::error_code ec;
  bool stored = false;
  try {
    // Only the leaf is created 0700; parents (~/.cache) get the usual mode.
    std::filesystem::create_directories(std::filesystem::path(dir_).parent_path(), ec);
    if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) return false;
    // Kernel addresses go only into a directory of ours that others cannot read.
    struct stat st {};
    if (::lstat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
      return false;
    }
    if ((st.st_mode & 077) != 0 && ::chmod(dir_.c_str(), 0700) != 0) return false;
    {
      ProfileWriter w = ProfileWriter::create(tmp);
      w.write_chunk(ChunkType::Modules, bytes_of(modules), false);
      w.write_stored(kallsyms);
      w.write_end();
    }
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
      std::filesystem::remove(tmp, ec);
      return false;
    }
    stored = true;
    // Earlier boots' snapshots can never be used again.
    const std::string keep = std::filesystem::path(file).filename().string();
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
      const std::string name = entry.path().filename().string();
      if (name != keep && name.starts_with(kPrefix) && name.ends_with(kSuffix)) {
        std::filesystem::remove(entry.path(), ec);
      }
    }
  } catch (...) {
    std::filesystem::remove(tmp, ec);
  }
  return stored;
}

KallsymsSnapshot read_kallsyms_snapshot() {
  KallsymsSnapshot snap;
  snap.text = read_kallsyms();
  snap.chunk = pack_chunk(ChunkType::Kallsyms, bytes_of(snap.text));
  return snap;
}

}  // namespace kprof::collector
