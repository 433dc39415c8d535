#include "core/profile_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <utility>

#include "core/bytes.h"
#include "core/error.h"
#include "core/profile_reader.h"

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

ProfileWriter::ProfileWriter(Fd fd, std::string path, uint64_t offset)
    : fd_(std::move(fd)), path_(std::move(path)), offset_(offset) {}

ProfileWriter ProfileWriter::create(const std::string& path) {
  // O_NONBLOCK keeps a FIFO at `path` from blocking the open; it is refused below.
  Fd owned(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                  0600));
  if (!owned) throw Error(open_error(path, errno));
  const int fd = owned.get();
  ProfileWriter w(std::move(owned), path, 0);
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
  Fd fd(::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) throw Error(open_error(path, errno));
  if (::ftruncate(fd.get(), static_cast<off_t>(keep)) != 0) {
    throw Error(errno_message("cannot truncate " + path + " to its last complete chunk", errno));
  }
  return ProfileWriter(std::move(fd), path, keep);
}

void ProfileWriter::sync() {
  if (fd_ && ::fsync(fd_.get()) != 0) throw Error(errno_message("cannot sync " + path_, errno));
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
  if (!fd_) throw Error("internal: writing chunk '" + std::string(name) + "' to a closed profile");
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
  int e = pwrite_all(fd_.get(), h.bytes(), offset_);
  if (e == 0) e = pwrite_all(fd_.get(), stored, offset_ + kChunkHeaderBytes);
  if (e != 0) {
    // Cut the partial chunk so the file ends on a chunk boundary.
    (void)::ftruncate(fd_.get(), static_cast<off_t>(offset_));
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
