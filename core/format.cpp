// ProfileWriter, ProfileReader and load_profile. The chunk payload codecs live
// in format_codec.cpp.
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

// zstd's fastest level: on kallsyms and record chunks it compresses about as
// well as level 3 (measured: 1005 KB vs 1013 KB for this kernel's kallsyms)
// at a third of the CPU, and record time is what a profiler must not spend.
constexpr int kZstdLevel = 1;

constexpr uint8_t kMagic[8] = {'K', 'P', 'R', 'O', 'F', '\r', '\n', 0x1a};

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

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::optional<InputFile> in;
  int fd = STDIN_FILENO;
  if (path == "-") {
    if (::isatty(STDIN_FILENO) == 1) {
      throw Error(
          "standard input is a terminal: pipe a profile in (ssh host cat x.kprof | kprof "
          "report -)");
    }
  } else {
    in.emplace(InputFile::open(path, "record one with kprof record -o " + path));
    fd = in->fd();
  }
  std::vector<uint8_t> bytes;
  if (in && in->regular()) bytes.reserve(static_cast<size_t>(in->size()));
  uint8_t buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_message("cannot read " + (path == "-" ? "standard input" : path), errno));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
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
      return "histogram";
    case ChunkType::End:
      return "end";
    case ChunkType::Stacks:
      return "stacks";
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

StoredChunk pack_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress) {
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
        ZSTD_compress(c.bytes.data(), c.bytes.size(), payload.data(), payload.size(), kZstdLevel);
    if (!ZSTD_isError(n) && n < payload.size()) {
      c.bytes.resize(n);
      c.flags = kChunkZstd;
      return c;
    }
  }
  c.bytes.assign(payload.begin(), payload.end());
  return c;
}

void ProfileWriter::write_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress) {
  if (compress && payload.size() > 64) {
    write_stored(pack_chunk(type, payload, compress));
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

// ---------------------------------------------------------------- reader

ProfileReader ProfileReader::open(const std::string& path) {
  return ProfileReader(read_file_bytes(path), path);
}

ProfileReader::ProfileReader(std::vector<uint8_t> bytes, std::string name)
    : bytes_(std::move(bytes)), name_(std::move(name)) {
  if (bytes_.empty()) {
    throw Error(name_ +
                " is empty: not a kprof profile (was the recording killed before it started?)");
  }
  const size_t magic_len = std::min(bytes_.size(), sizeof kMagic);
  if (std::memcmp(bytes_.data(), kMagic, magic_len) != 0)
    throw Error(name_ + " is not a kprof profile");
  if (bytes_.size() < kHeaderBytes) {
    throw Error(name_ + " is cut short inside its " + std::to_string(kHeaderBytes) +
                "-byte header (" + std::to_string(bytes_.size()) + " bytes): nothing was recorded");
  }
  ByteReader r(std::span<const uint8_t>(bytes_).subspan(sizeof kMagic), "profile header");
  version_ = r.u32();
  if (version_ != kFormatVersion) {
    throw Error(name_ + " has format version " + std::to_string(version_) +
                "; this kprof reads version " + std::to_string(kFormatVersion));
  }
  status_.file_bytes = bytes_.size();
  status_.good_bytes = kHeaderBytes;
}

namespace {

struct ChunkHeader {
  uint16_t type = 0, flags = 0;
  uint32_t stored_len = 0, raw_len = 0, crc = 0;
};

// Checks the chunk at `pos` (which is < file.size()) up to its checksum;
// returns "" or the problem. `where` names the chunk for messages.
std::string check_chunk(std::span<const uint8_t> file, uint64_t pos, ChunkHeader* h,
                        std::string* where) {
  const size_t left = file.size() - pos;
  if (left < kChunkHeaderBytes) {
    return "truncated chunk header at offset " + std::to_string(pos) + " (" + std::to_string(left) +
           " of " + std::to_string(kChunkHeaderBytes) + " bytes)";
  }
  ByteReader r(file.subspan(pos, kChunkHeaderBytes), "chunk header");
  h->type = r.u16();
  h->flags = r.u16();
  h->stored_len = r.u32();
  h->raw_len = r.u32();
  h->crc = r.u32();
  *where = "chunk '" + std::string(chunk_type_name(h->type)) + "' (type " +
           std::to_string(h->type) + ") at offset " + std::to_string(pos);
  const size_t body_left = left - kChunkHeaderBytes;
  if (h->stored_len > kMaxChunkBytes || h->raw_len > kMaxChunkBytes) {
    return *where + ": length " + std::to_string(std::max(h->stored_len, h->raw_len)) +
           " is over the limit of " + std::to_string(kMaxChunkBytes) + " bytes";
  }
  if (h->stored_len > body_left) {
    return "truncated " + *where + ": needs " + std::to_string(h->stored_len) + " payload bytes, " +
           std::to_string(body_left) + " left";
  }
  if (h->flags & ~kChunkZstd) return *where + ": unknown flags " + std::to_string(h->flags);
  if (crc32(file.subspan(pos + kChunkHeaderBytes, h->stored_len)) != h->crc) {
    return *where + ": bad checksum (the bytes were damaged)";
  }
  if (!(h->flags & kChunkZstd) && h->raw_len != h->stored_len) {
    return *where + ": raw length " + std::to_string(h->raw_len) +
           " does not match stored length " + std::to_string(h->stored_len);
  }
  return "";
}

// Decompresses (or copies) the stored bytes into `out`; returns "" or the problem.
std::string unpack(const ChunkHeader& h, std::span<const uint8_t> stored,
                   std::vector<uint8_t>* out) {
  if (!(h.flags & kChunkZstd)) {
    out->assign(stored.begin(), stored.end());
    return "";
  }
  // The frame must declare exactly raw_len bytes, so a damaged length can
  // neither overflow the buffer nor make us allocate what the data cannot fill.
  const unsigned long long size = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (size != h.raw_len) {
    const bool unreadable = size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN;
    return "bad zstd data (frame size " + (unreadable ? "unreadable" : std::to_string(size)) +
           ", raw length " + std::to_string(h.raw_len) + ")";
  }
  out->resize(h.raw_len);
  const size_t n = ZSTD_decompress(out->data(), out->size(), stored.data(), stored.size());
  if (ZSTD_isError(n)) return "bad zstd data (" + std::string(ZSTD_getErrorName(n)) + ")";
  if (n != h.raw_len) return "bad zstd data (short frame)";
  return "";
}

}  // namespace

const ReadStatus& ProfileReader::for_each_chunk(const std::function<bool(uint16_t type)>& want,
                                                const std::function<void(const Chunk&)>& fn) {
  status_ = ReadStatus{};
  status_.file_bytes = bytes_.size();
  const std::span<const uint8_t> file(bytes_);
  uint64_t pos = kHeaderBytes;
  status_.good_bytes = pos;
  while (true) {
    if (pos == file.size()) {
      status_.problem = "no end marker after offset " + std::to_string(pos) +
                        ": the recording was cut short; complete chunks were read";
      break;
    }
    ChunkHeader h;
    std::string where;
    if (std::string problem = check_chunk(file, pos, &h, &where); !problem.empty()) {
      status_.problem = std::move(problem);
      break;
    }
    const uint64_t body = pos + kChunkHeaderBytes;
    if (want(h.type)) {
      Chunk chunk;
      chunk.type = h.type;
      chunk.flags = h.flags;
      chunk.offset = pos;
      chunk.stored = file.subspan(body, h.stored_len);
      if (std::string problem = unpack(h, file.subspan(body, h.stored_len), &chunk.payload);
          !problem.empty()) {
        status_.problem = where + ": " + problem;
        break;
      }
      try {
        fn(chunk);
      } catch (const Error& e) {
        status_.problem = where + ": " + e.what();
        break;
      }
    }
    pos = body + h.stored_len;
    status_.good_bytes = pos;
    if (h.type == static_cast<uint16_t>(ChunkType::End)) {
      status_.complete = true;
      break;
    }
  }
  return status_;
}

// ---------------------------------------------------------------- load

Profile load_profile(const std::string& path, RecordSink* records) {
  return load_profile_bytes(read_file_bytes(path), path, records);
}

Profile load_profile_bytes(std::vector<uint8_t> bytes, const std::string& name,
                           RecordSink* records) {
  ProfileReader reader(std::move(bytes), name);
  Profile p;
  p.path = name;
  bool have_meta = false;
  auto want = [&](uint16_t type) {
    switch (static_cast<ChunkType>(type)) {
      case ChunkType::Records:
        return records != nullptr;
      case ChunkType::Meta:
        return true;  // the last one wins (kprof import writes it again at the end)
      case ChunkType::Kallsyms:
      case ChunkType::Modules:
      case ChunkType::Summary:
      case ChunkType::Histogram:
      case ChunkType::Stacks:
        return true;
      default:
        return false;
    }
  };
  auto text = [](const Chunk& c) {
    return std::string(reinterpret_cast<const char*>(c.payload.data()), c.payload.size());
  };
  p.status = reader.for_each_chunk(want, [&](const Chunk& c) {
    switch (static_cast<ChunkType>(c.type)) {
      case ChunkType::Meta:
        p.run = decode_run_info(c.payload);
        have_meta = true;
        break;
      case ChunkType::Kallsyms:
        p.kallsyms = text(c);
        break;
      case ChunkType::Modules:
        p.modules = text(c);
        break;
      case ChunkType::Records:
        decode_records(c.payload, *records);
        break;
      case ChunkType::Summary:
        p.summary = decode_summary(c.payload);
        break;
      case ChunkType::Histogram:
        p.histogram = decode_histogram(c.payload);
        break;
      case ChunkType::Stacks:
        p.stacks = decode_stacks(c.payload);
        break;
      default:
        break;
    }
  });
  if (!have_meta) {
    throw Error(name + " has no readable run information (meta chunk)" +
                (p.status.problem.empty() ? std::string() : ": " + p.status.problem));
  }
  p.run.format_version = reader.version();
  return p;
}

}  // namespace kprof
