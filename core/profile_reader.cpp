// ProfileReader: chunk by chunk from a file, a stream or memory.
#include "core/profile_reader.h"

#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>
#include <optional>
#include <utility>

#include "core/bytes.h"
#include "core/error.h"
#include "core/file_layout.h"
#include "core/input.h"
#include "core/mapped_file.h"

namespace kprof {

// Where the bytes come from. A regular file is read with pread at `pos` (so
// it can be walked again); a stream with read, after its prefix; memory is
// copied out of `mem`.
struct ProfileReader::Source {
  std::string name;
  std::vector<uint8_t> mem;
  bool memory = false;
  std::optional<InputFile> file;  // owned when opened by path
  int fd = -1;
  bool regular = false;
  uint64_t size = 0;  // memory or a regular file
  std::vector<uint8_t> prefix;
  size_t prefix_at = 0;
  uint64_t pos = 0;  // offset of the next byte

  bool rewindable() const { return memory || regular; }

  // Up to n bytes at `at` of a file or memory, fewer only at the end; does
  // not move `pos`, so the reader's second thread can read too.
  size_t read_at(uint64_t at, uint8_t* out, size_t n) const {
    if (n == 0) return 0;  // an empty payload: `out` may be null
    if (memory) {
      const size_t k = at < mem.size() ? std::min<size_t>(n, mem.size() - at) : 0;
      if (k != 0) std::memcpy(out, mem.data() + at, k);
      return k;
    }
    size_t done = 0;
    while (done < n) {
      const ssize_t k = ::pread(fd, out + done, n - done, static_cast<off_t>(at + done));
      if (k < 0) {
        if (errno == EINTR) continue;
        throw Error(errno_message("cannot read " + name, errno));
      }
      if (k == 0) break;
      done += static_cast<size_t>(k);
    }
    return done;
  }

  // Up to n bytes; fewer only at the end.
  size_t read(uint8_t* out, size_t n) {
    if (n == 0) return 0;
    if (rewindable()) {
      const size_t done = read_at(pos, out, n);
      pos += done;
      return done;
    }
    size_t done = 0;
    if (prefix_at < prefix.size()) {
      done = std::min(n, prefix.size() - prefix_at);
      std::memcpy(out, prefix.data() + prefix_at, done);
      prefix_at += done;
    }
    while (done < n) {
      const ssize_t k = ::read(fd, out + done, n - done);
      if (k < 0) {
        if (errno == EINTR) continue;
        throw Error(errno_message("cannot read " + name, errno));
      }
      if (k == 0) break;
      done += static_cast<size_t>(k);
    }
    pos += done;
    return done;
  }
};

ProfileReader::ProfileReader(std::unique_ptr<Source> source, std::string name)
    : src_(std::move(source)), name_(std::move(name)) {
  src_->name = name_;
  read_header();
}

ProfileReader::ProfileReader(std::vector<uint8_t> bytes, std::string name)
    : src_(std::make_unique<Source>()), name_(std::move(name)) {
  src_->name = name_;
  src_->memory = true;
  src_->size = bytes.size();
  src_->mem = std::move(bytes);
  read_header();
}

ProfileReader::ProfileReader(ProfileReader&&) noexcept = default;
ProfileReader::~ProfileReader() = default;

ProfileReader ProfileReader::open(const std::string& path) {
  if (path == "-") {
    refuse_terminal_stdin();
    auto s = std::make_unique<Source>();
    s->fd = STDIN_FILENO;
    return ProfileReader(std::move(s), "stdin");
  }
  return open(InputFile::open(path, "record one with kprof record -o " + path), path);
}

ProfileReader ProfileReader::open(InputFile file, std::string name,
                                  std::vector<uint8_t> read_already) {
  auto s = std::make_unique<Source>();
  s->file.emplace(std::move(file));
  s->fd = s->file->fd();
  s->regular = s->file->regular();
  s->size = s->file->size();
  if (!s->regular) s->prefix = std::move(read_already);
  return ProfileReader(std::move(s), std::move(name));
}

ProfileReader ProfileReader::stream(int fd, std::vector<uint8_t> prefix, std::string name) {
  auto s = std::make_unique<Source>();
  s->fd = fd;
  s->prefix = std::move(prefix);
  return ProfileReader(std::move(s), std::move(name));
}

bool ProfileReader::rewindable() const {
  return src_->rewindable();
}

void ProfileReader::read_header() {
  uint8_t h[kHeaderBytes];
  const size_t got = src_->read(h, sizeof h);
  if (got == 0) {
    throw Error(name_ +
                " is empty: not a kprof profile (was the recording killed before it started?)");
  }
  if (std::memcmp(h, kMagic, std::min(got, sizeof kMagic)) != 0) {
    throw Error(name_ + " is not a kprof profile");
  }
  if (got < kHeaderBytes) {
    throw Error(name_ + " is cut short inside its " + std::to_string(kHeaderBytes) +
                "-byte header (" + std::to_string(got) + " bytes): nothing was recorded");
  }
  ByteReader r(std::span<const uint8_t>(h).subspan(sizeof kMagic), "profile header");
  version_ = r.u32();
  if (version_ != kFormatVersion) {
    throw Error(name_ + " has format version " + std::to_string(version_) +
                "; this kprof reads version " + std::to_string(kFormatVersion));
  }
  status_.file_bytes = src_->rewindable() ? src_->size : kHeaderBytes;
  status_.good_bytes = kHeaderBytes;
}

namespace {

struct ChunkHeader {
  uint16_t type = 0, flags = 0;
  uint32_t stored_len = 0, raw_len = 0, crc = 0;
};

ChunkHeader parse_header(const uint8_t* b) {
  ByteReader r(std::span<const uint8_t>(b, kChunkHeaderBytes), "chunk header");
  ChunkHeader h;
  h.type = r.u16();
  h.flags = r.u16();
  h.stored_len = r.u32();
  h.raw_len = r.u32();
  h.crc = r.u32();
  return h;
}

// From this size, a chunk's bytes go into a BigBuffer (core/big_buffer.h).
constexpr size_t kBigChunk = 64u << 10;

// A compressed chunk's payload, decompressed where `room(raw_len)` says;
// returns "" or the problem. The frame must declare exactly raw_len bytes,
// so a damaged length can neither overflow the room nor make us allocate
// what the data cannot fill.
template <typename Room>
std::string decompress(const ChunkHeader& h, std::span<const uint8_t> stored, Room&& room) {
  const unsigned long long size = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (size != h.raw_len) {
    const bool unreadable = size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN;
    return "bad zstd data (frame size " + (unreadable ? "unreadable" : std::to_string(size)) +
           ", raw length " + std::to_string(h.raw_len) + ")";
  }
  void* into = room(h.raw_len);
  const size_t n = ZSTD_decompress(into, h.raw_len, stored.data(), stored.size());
  if (ZSTD_isError(n)) return "bad zstd data (" + std::string(ZSTD_getErrorName(n)) + ")";
  if (n != h.raw_len) return "bad zstd data (short frame)";
  return "";
}

// The payload: the stored bytes themselves, or decompressed into `small`
// or (from kBigChunk) `big`; returns "" or the problem.
std::string unpack(const ChunkHeader& h, std::span<const uint8_t> stored,
                   std::vector<uint8_t>& small, BigBuffer& big, std::span<const uint8_t>* out) {
  if (!(h.flags & kChunkZstd)) {
    *out = stored;
    return "";
  }
  uint8_t* into = nullptr;
  std::string problem = decompress(h, stored, [&](size_t n) {
    if (n < kBigChunk) {
      small.resize(n);
      into = small.data();
    } else {
      into = big.reserve(n);
    }
    return into;
  });
  if (problem.empty()) *out = std::span<const uint8_t>(into, h.raw_len);
  return problem;
}

// A stream's payload grows in steps of this much, so a damaged length costs
// memory only for bytes that are really there.
constexpr size_t kStreamStep = 1 << 20;

}  // namespace

std::string ReadStatus::describe_damage() const {
  std::string out;
  for (const DamagedChunk& d : damaged) {
    if (!out.empty()) out += "; ";
    out += "chunk '" + std::string(chunk_type_name(d.type)) + "' (type " + std::to_string(d.type) +
           ") at offset " + std::to_string(d.offset) + ", " + std::to_string(d.bytes) +
           " bytes: " + d.problem;
  }
  return out;
}

std::optional<std::vector<ChunkHeaderInfo>> ProfileReader::chunk_headers() {
  Source& s = *src_;
  if (!s.rewindable()) return std::nullopt;
  std::vector<ChunkHeaderInfo> headers;
  for (uint64_t pos = kHeaderBytes; pos + kChunkHeaderBytes <= s.size;) {
    uint8_t b[kChunkHeaderBytes];
    if (s.read_at(pos, b, sizeof b) != sizeof b) break;
    const ChunkHeader h = parse_header(b);
    if (h.stored_len > kMaxChunkBytes || h.stored_len > s.size - pos - kChunkHeaderBytes) break;
    headers.push_back({h.type, h.flags, pos, h.stored_len, h.raw_len, h.crc});
    if (h.type == static_cast<uint16_t>(ChunkType::End)) break;
    pos += kChunkHeaderBytes + h.stored_len;
  }
  return headers;
}

std::optional<std::vector<uint16_t>> ProfileReader::chunk_types() {
  const auto headers = chunk_headers();
  if (!headers) return std::nullopt;
  std::vector<uint16_t> types;
  types.reserve(headers->size());
  for (const ChunkHeaderInfo& h : *headers) types.push_back(h.type);
  return types;
}

namespace {

// One chunk on its way to the caller: its header, then (read_body) its
// bytes, checked, and its payload when wanted.
struct Loaded {
  ChunkHeader h;
  uint64_t pos = 0;     // of the header
  bool eof = false;     // no header there: the file ends
  bool unread = false;  // skipped unread (a walk's `skip`)
  bool wanted = false;
  std::string problem;  // the walk ends here (the chunk structure is damaged)
  std::string damage;   // the chunk is skipped as damaged
  std::span<const uint8_t> stored, payload;
  std::string where() const {
    return "chunk '" + std::string(chunk_type_name(h.type)) + "' (type " + std::to_string(h.type) +
           ") at offset " + std::to_string(pos);
  }
  // Its bytes end after `left` of them.
  std::string truncated(uint64_t left) const {
    return "truncated " + where() + ": needs " + std::to_string(h.stored_len) + " payload bytes, " +
           std::to_string(left) + " left";
  }
};

// What `fn` is handed of a chunk read.
Chunk chunk_of(const Loaded& l) {
  Chunk c;
  c.type = l.h.type;
  c.flags = l.h.flags;
  c.offset = l.pos;
  c.stored = l.stored;
  c.payload = l.payload;
  return c;
}

// Checks the stored bytes (whose checksum is `crc`) against the header and
// unpacks them when wanted.
void check_and_unpack(Loaded& l, uint32_t crc, std::vector<uint8_t>& small, BigBuffer& big) {
  if (l.h.flags & ~kChunkZstd) {
    l.damage = "unknown flags " + std::to_string(l.h.flags);
  } else if (crc != l.h.crc) {
    l.damage = "bad checksum (the bytes were damaged)";
  } else if (!(l.h.flags & kChunkZstd) && l.h.raw_len != l.h.stored_len) {
    l.damage = "raw length " + std::to_string(l.h.raw_len) + " does not match stored length " +
               std::to_string(l.h.stored_len);
  } else if (l.wanted) {
    l.damage = unpack(l.h, l.stored, small, big, &l.payload);
  }
}

// A checked chunk's payload into `text` (read_text_chunk).
std::string unpack_text(Loaded& l, std::string& text) {
  if (!(l.h.flags & kChunkZstd)) {
    text.assign(reinterpret_cast<const char*>(l.stored.data()), l.stored.size());
  } else {
    auto room = [&text](size_t n) {
      text.resize(n);
      return text.data();
    };
    if (std::string problem = decompress(l.h, l.stored, room); !problem.empty()) return problem;
  }
  l.payload = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  return "";
}

}  // namespace

std::string ProfileReader::read_chunk(const ChunkHeaderInfo& info,
                                      const std::function<void(const Chunk&)>& fn) {
  return read_one(info, nullptr, fn);
}

std::string ProfileReader::read_text_chunk(const ChunkHeaderInfo& info, std::string& text,
                                           const std::function<void(const Chunk&)>& fn) {
  return read_one(info, &text, fn);
}

std::string ProfileReader::read_one(const ChunkHeaderInfo& info, std::string* text,
                                    const std::function<void(const Chunk&)>& fn) {
  Source& s = *src_;
  if (!s.rewindable()) throw Error("internal: " + name_ + " is a stream: no chunk by offset");
  Slot& slot = slots_[0];
  Loaded l;
  l.h = {info.type, info.flags, info.stored_len, info.raw_len, info.crc};
  l.pos = info.offset;
  const uint64_t body = info.offset + kChunkHeaderBytes;
  if (info.stored_len > kMaxChunkBytes || body > s.size || info.stored_len > s.size - body) {
    return "truncated " + l.where();
  }
  uint8_t* at = info.stored_len < kBigChunk ? (slot.buf.resize(info.stored_len), slot.buf.data())
                                            : slot.big_stored.reserve(info.stored_len);
  if (s.read_at(body, at, info.stored_len) != info.stored_len) return "truncated " + l.where();
  l.stored = std::span<const uint8_t>(at, info.stored_len);
  l.wanted = text == nullptr;
  check_and_unpack(l, crc32(l.stored), slot.small, slot.big);
  if (l.damage.empty() && text != nullptr) l.damage = unpack_text(l, *text);
  if (!l.damage.empty()) return l.damage;
  try {
    fn(chunk_of(l));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const ReadStatus& ProfileReader::for_each_chunk(
    const std::function<bool(uint16_t type)>& want, const std::function<void(const Chunk&)>& fn,
    const std::function<bool(const ChunkHeaderInfo&)>& skip) {
  Source& s = *src_;
  if (walked_ && !s.rewindable()) {
    throw Error("internal: " + name_ + " is a stream and was read already");
  }
  walked_ = true;
  status_ = ReadStatus{};
  uint64_t pos = kHeaderBytes;
  s.pos = pos;
  status_.good_bytes = pos;

  // The header at `at`: a file's by offset, a stream's as it comes.
  auto read_head = [&](uint64_t at) {
    Loaded l;
    l.pos = at;
    uint8_t hb[kChunkHeaderBytes];
    const size_t got = s.rewindable() ? s.read_at(at, hb, sizeof hb) : s.read(hb, sizeof hb);
    if (got == 0) {
      l.eof = true;
      return l;
    }
    if (got < kChunkHeaderBytes) {
      l.problem = "truncated chunk header at offset " + std::to_string(at) + " (" +
                  std::to_string(got) + " of " + std::to_string(kChunkHeaderBytes) + " bytes)";
      return l;
    }
    l.h = parse_header(hb);
    if (l.h.stored_len > kMaxChunkBytes || l.h.raw_len > kMaxChunkBytes) {
      l.problem = l.where() + ": length " + std::to_string(std::max(l.h.stored_len, l.h.raw_len)) +
                  " is over the limit of " + std::to_string(kMaxChunkBytes) + " bytes";
      return l;
    }
    const uint64_t body = at + kChunkHeaderBytes;
    if (s.rewindable() && l.h.stored_len > s.size - body) {
      l.problem = l.truncated(s.size - body);
      return l;
    }
    if (skip && s.rewindable() && l.h.type != static_cast<uint16_t>(ChunkType::End) &&
        skip({l.h.type, l.h.flags, at, l.h.stored_len, l.h.raw_len, l.h.crc})) {
      l.unread = true;
    }
    l.wanted = !l.unread && want(l.h.type);
    return l;
  };
  // Its bytes, into `slot`: on the second thread for a file's large chunks.
  auto read_body = [&](Loaded& l, Slot& slot) {
    const uint64_t body = l.pos + kChunkHeaderBytes;
    size_t have = 0;
    uint8_t* stored_at = nullptr;
    if (s.rewindable() && !l.wanted && l.h.stored_len >= kBigChunk) {
      // Only checked (the records under a report of the tables): read in
      // pieces through a small buffer, so no large one is touched.
      uint32_t crc = 0;
      slot.buf.resize(kBigChunk);
      while (have < l.h.stored_len) {
        const size_t step = std::min<size_t>(l.h.stored_len - have, kBigChunk);
        const size_t n = s.read_at(body + have, slot.buf.data(), step);
        crc = crc32(std::span<const uint8_t>(slot.buf.data(), n), crc);
        have += n;
        if (n < step) break;
      }
      if (have < l.h.stored_len) {
        l.problem = l.truncated(have);
        return;
      }
      check_and_unpack(l, crc, slot.small, slot.big);
      return;
    }
    if (s.rewindable()) {
      // Large stored chunks into a mapping as their payloads are (unpack).
      stored_at = l.h.stored_len < kBigChunk ? (slot.buf.resize(l.h.stored_len), slot.buf.data())
                                             : slot.big_stored.reserve(l.h.stored_len);
      have = s.read_at(body, stored_at, l.h.stored_len);
    } else {
      while (have < l.h.stored_len) {
        const size_t step = std::min<size_t>(l.h.stored_len - have, kStreamStep);
        slot.buf.resize(have + step);
        const size_t n = s.read(slot.buf.data() + have, step);
        have += n;
        if (n < step) break;
      }
      stored_at = slot.buf.data();
    }
    if (have < l.h.stored_len) {
      l.problem = l.truncated(have);
      return;
    }
    l.stored = std::span<const uint8_t>(stored_at, l.h.stored_len);
    check_and_unpack(l, crc32(l.stored), slot.small, slot.big);
  };
  auto needs_body = [](const Loaded& l) { return !l.eof && l.problem.empty() && !l.unread; };

  int slot = 0;
  Loaded cur = read_head(pos);
  if (needs_body(cur)) read_body(cur, slots_[slot]);
  Loaded next;
  // Declared after `next` and the slots it fills, so it is waited for
  // before they go (also when `fn` throws).
  std::future<void> ahead;
  bool after_damage = false;  // the chunk before this one was skipped as damaged
  while (true) {
    if (cur.eof) {
      status_.problem = "no end marker after offset " + std::to_string(pos) +
                        ": the recording was cut short; complete chunks were read";
      break;
    }
    if (!cur.problem.empty()) {
      status_.problem = cur.problem;
      break;
    }
    const uint64_t after = cur.pos + kChunkHeaderBytes + cur.h.stored_len;
    const bool end =
        cur.h.type == static_cast<uint16_t>(ChunkType::End) && cur.damage.empty() && !cur.unread;
    // A file's next chunk is read while this one is handed over.
    const bool read_ahead = s.rewindable() && !end;
    if (read_ahead) {
      next = read_head(after);
      if (needs_body(next)) {
        Slot& other = slots_[1 - slot];
        // Only a compressed chunk: a thread per chunk (std::async) costs
        // more than reading and checking an uncompressed one here (kprof
        // record's spooled PerfRecords, 256 KiB each: bench/off_cpu_finish.sh).
        if (next.wanted && next.h.stored_len >= kBigChunk && (next.h.flags & kChunkZstd)) {
          ahead = std::async(std::launch::async,
                             [&next, &other, &read_body] { read_body(next, other); });
        } else {
          read_body(next, other);
        }
      }
    }
    std::string damage = cur.damage;
    if (damage.empty() && cur.wanted) {
      try {
        fn(chunk_of(cur));
      } catch (const Error& e) {
        damage = e.what();
      }
    }
    if (!damage.empty()) {
      if (after_damage) {
        status_.problem = cur.where() + ": " + damage +
                          ", right after the damaged chunk at offset " +
                          std::to_string(status_.damaged.back().offset) +
                          " (its length was probably damaged too): the rest cannot be read";
        break;
      }
      status_.damaged.push_back({cur.h.type, cur.pos, cur.h.stored_len, damage});
      after_damage = true;
    } else {
      after_damage = false;
      if (cur.unread) {
        ++status_.skipped_unread;
      } else {
        ++status_.chunks[cur.h.type];
      }
      if (end) status_.complete = true;
    }
    pos = after;
    status_.good_bytes = pos;
    if (status_.complete) break;
    if (read_ahead) {
      if (ahead.valid()) ahead.get();
      std::swap(cur, next);  // `next` is read again before it is used
      slot = 1 - slot;
    } else {
      cur = read_head(after);
      if (needs_body(cur)) read_body(cur, slots_[slot]);
    }
  }
  if (!s.rewindable()) {
    // A stream's size: what it held, read to its end unless the walk ended at End.
    if (!status_.complete) {
      uint8_t rest[1 << 14];
      while (s.read(rest, sizeof rest) == sizeof rest) {
      }
    }
    status_.file_bytes = s.pos;
  } else {
    status_.file_bytes = s.size;
  }
  return status_;
}

}  // namespace kprof
