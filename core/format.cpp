// ProfileWriter and the input helpers. The reader and load_profile live in
// format_reader.cpp, the chunk payload codecs in format_codec.cpp.
#include "core/format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "core/bytes.h"
#include "core/error.h"
#include "core/mapped_file.h"
#include "core/records.h"

namespace kprof {
namespace {

std::string parent_dir(const std::string& path) {
  auto parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// Writes all of `data` at `offset`, looping on short writes and EINTR.
// Returns 0 or the errno of the failing write.
int pwrite_all(int fd, std::span<const uint8_t> data, uint64_t offset) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n =
        ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;  // a regular file only writes 0 bytes when it cannot grow
    done += static_cast<size_t>(n);
  }
  return 0;
}

std::string open_error(const std::string& path, int e) {
  switch (e) {
    case EISDIR:
      return path + " is a directory; give a file path with -o";
    case ELOOP:
      return "refusing to follow symlink " + path + "; remove it or give another path with -o";
    case EACCES:
    case EPERM:
      return errno_message("cannot create " + path, e) + " (choose a writable directory with -o)";
    case EROFS:
      return errno_message("cannot create " + path, e) + " (choose a writable file system with -o)";
    case ENOENT:
    case ENOTDIR:
      return "cannot create " + path + ": directory " + parent_dir(path) +
             " does not exist (create it or give another path with -o)";
    default:
      return errno_message("cannot create " + path, e);
  }
}

}  // namespace

bool rereadable_input(const std::string& path) {
  struct stat st {};
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<uint8_t> read_fd(int fd, const std::string& name, size_t limit) {
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  while (bytes.size() < limit) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - bytes.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_message("cannot read " + name, errno));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  if (path == "-") {
    if (::isatty(STDIN_FILENO) == 1) {
      throw Error(
          "standard input is a terminal: pipe a profile in (ssh host cat x.kprof | kprof "
          "report -)");
    }
    return read_fd(STDIN_FILENO, "standard input");
  }
  const InputFile in = InputFile::open(path, "record one with kprof record -o " + path);
  return read_fd(in.fd(), path);
}

const char* chunk_type_name(uint16_t type) {
  switch (static_cast<ChunkType>(type)) {
    case ChunkType::Meta:
      return "meta";
    case ChunkType::Kallsyms:
      return "kallsyms";
    case ChunkType::Modules:
      return "modules";
    case ChunkType::Records:
      return "records";
    case ChunkType::Summary:
      return "summary";
    case ChunkType::Histogram:
    case ChunkType::HistogramColumns:
      return "histogram";
    case ChunkType::End:
      return "end";
    case ChunkType::Stacks:
      return "stacks";
    case ChunkType::PerfRecords:
      return "perf-records";
  }
  return "unknown";
}

// ---------------------------------------------------------------- writer

ProfileWriter::ProfileWriter(int fd, std::string path, uint64_t offset)
    : fd_(fd), path_(std::move(path)), offset_(offset) {}

ProfileWriter::ProfileWriter(ProfileWriter&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), offset_(o.offset_) {}

ProfileWriter& ProfileWriter::operator=(ProfileWriter&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    offset_ = o.offset_;
  }
  return *this;
}

ProfileWriter::~ProfileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

ProfileWriter ProfileWriter::create(const std::string& path) {
  // O_NONBLOCK keeps a FIFO at `path` from blocking the open; it is refused below.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                  0600);
  if (fd < 0) throw Error(open_error(path, errno));
  ProfileWriter w(fd, path, 0);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(errno_message("cannot stat " + path, errno));
  if (!S_ISREG(st.st_mode)) throw Error(path + " is not a regular file; give a file path with -o");
  // An existing file keeps its old mode through O_TRUNC; the profile holds kernel addresses.
  if (::fchmod(fd, 0600) != 0) throw Error(errno_message("cannot chmod 0600 " + path, errno));
  ByteWriter h;
  h.raw(kMagic);
  h.u32(kFormatVersion);
  h.u32(0);
  if (int e = pwrite_all(fd, h.bytes(), 0); e != 0) {
    (void)::ftruncate(fd, 0);
    if (e == ENOSPC || e == EDQUOT) throw Error("disk full writing " + path + " (nothing kept)");
    throw Error(errno_message("cannot write " + path, e));
  }
  w.offset_ = kHeaderBytes;
  return w;
}

ProfileWriter ProfileWriter::append(const std::string& path) {
  ProfileReader reader = ProfileReader::open(path);
  std::optional<uint64_t> end_offset;
  reader.for_each_chunk([](uint16_t type) { return type == static_cast<uint16_t>(ChunkType::End); },
                        [&](const Chunk& c) { end_offset = c.offset; });
  const uint64_t keep = end_offset ? *end_offset : reader.status().good_bytes;
  int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw Error(open_error(path, errno));
  ProfileWriter w(fd, path, keep);
  if (::ftruncate(fd, static_cast<off_t>(keep)) != 0) {
    throw Error(errno_message("cannot truncate " + path + " to its last complete chunk", errno));
  }
  return w;
}

void ProfileWriter::sync() {
  if (fd_ >= 0 && ::fsync(fd_) != 0) throw Error(errno_message("cannot sync " + path_, errno));
}

StoredChunk pack_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress, int level) {
  if (payload.size() > kMaxChunkBytes) {
    throw Error("internal: chunk '" + std::string(chunk_type_name(static_cast<uint16_t>(type))) +
                "' of " + std::to_string(payload.size()) + " bytes is over the limit of " +
                std::to_string(kMaxChunkBytes));
  }
  StoredChunk c;
  c.type = static_cast<uint16_t>(type);
  c.raw_len = static_cast<uint32_t>(payload.size());
  if (compress && payload.size() > 64) {
    c.bytes.resize(ZSTD_compressBound(payload.size()));
    const size_t n =
        ZSTD_compress(c.bytes.data(), c.bytes.size(), payload.data(), payload.size(), level);
    if (!ZSTD_isError(n) && n < payload.size()) {
      c.bytes.resize(n);
      c.flags = kChunkZstd;
      return c;
    }
  }
  c.bytes.assign(payload.begin(), payload.end());
  return c;
}

void ProfileWriter::write_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress,
                                int level) {
  if (compress && payload.size() > 64) {
    write_stored(pack_chunk(type, payload, compress, level));
  } else {
    write_raw(static_cast<uint16_t>(type), 0, static_cast<uint32_t>(payload.size()), payload);
  }
}

void ProfileWriter::write_stored(const StoredChunk& c) {
  write_raw(c.type, c.flags, c.raw_len, c.bytes);
}

void ProfileWriter::write_raw(uint16_t type, uint16_t flags, uint32_t raw_len,
                              std::span<const uint8_t> stored) {
  const char* name = chunk_type_name(type);
  if (fd_ < 0)
    throw Error("internal: writing chunk '" + std::string(name) + "' to a closed profile");
  if (stored.size() > kMaxChunkBytes || raw_len > kMaxChunkBytes ||
      (!(flags & kChunkZstd) && raw_len != stored.size())) {
    throw Error("internal: chunk '" + std::string(name) + "' of " + std::to_string(raw_len) +
                " bytes (" + std::to_string(stored.size()) + " stored) is malformed or over " +
                "the limit of " + std::to_string(kMaxChunkBytes));
  }
  ByteWriter h;
  h.u16(type);
  h.u16(flags);
  h.u32(static_cast<uint32_t>(stored.size()));
  h.u32(raw_len);
  h.u32(crc32(stored));
  int e = pwrite_all(fd_, h.bytes(), offset_);
  if (e == 0) e = pwrite_all(fd_, stored, offset_ + kChunkHeaderBytes);
  if (e != 0) {
    // Cut the partial chunk so the file ends on a chunk boundary.
    (void)::ftruncate(fd_, static_cast<off_t>(offset_));
    const std::string kept = std::to_string(offset_) + " bytes kept";
    if (e == ENOSPC || e == EDQUOT) {
      throw Error("disk full writing " + path_ + " (" + kept +
                  "; the profile reads up to its last complete chunk)");
    }
    throw Error(errno_message("cannot write " + path_, e) + " (" + kept + ")");
  }
  offset_ += kChunkHeaderBytes + stored.size();
}

}  // namespace kprof
