// Walking a .kprof file chunk by chunk (layout: core/file_layout.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/big_buffer.h"

namespace kprof {

class InputFile;  // core/mapped_file.h

// A chunk skipped as damaged: its header's extent fit the file, its bytes
// did not check out (checksum, compression, or its decoder refused them).
struct DamagedChunk {
  uint16_t type = 0;
  uint64_t offset = 0;  // of the chunk header
  uint64_t bytes = 0;   // stored bytes skipped
  std::string problem;  // "bad checksum (the bytes were damaged)"
};

// Where reading stopped, and what it skipped.
struct ReadStatus {
  bool complete = false;    // End chunk seen
  uint64_t good_bytes = 0;  // bytes up to the end of the last chunk read (or skipped)
  uint64_t file_bytes = 0;  // a stream's: the bytes it held (read to its end when cut short)
  std::string problem;  // "" when complete; else "truncated chunk 'records' at offset 1234: ..."
  std::map<uint16_t, uint64_t> chunks;  // good chunks by type
  uint64_t skipped_unread = 0;          // chunks a walk's `skip` passed over unread
  // Damaged chunks the walk stepped over (chunks are self-delimiting, so what
  // follows one is still read). A second damaged chunk in a row ends the walk
  // (`problem`): the first one's length was probably what was damaged.
  std::vector<DamagedChunk> damaged;
  // Read whole: End seen and nothing skipped.
  bool intact() const { return complete && damaged.empty(); }
  // "chunk 'records' (type 4) at offset 27203, 44800 bytes: bad checksum (...)"
  // for each damaged chunk, "; "-separated; "" when none.
  std::string describe_damage() const;
};

// One chunk as read: type and its decompressed payload.
struct Chunk {
  uint16_t type = 0;
  uint16_t flags = 0;
  uint64_t offset = 0;  // of the chunk header in the file
  // Decompressed: the reader's buffer, valid during the callback only.
  std::span<const uint8_t> payload;
  // As in the file (checksum verified): the reader's buffer, valid during the callback only.
  std::span<const uint8_t> stored;
};

// A chunk's header, as chunk_headers() lists them and a walk's `skip` sees
// them before their bytes are read.
struct ChunkHeaderInfo {
  uint16_t type = 0;
  uint16_t flags = 0;
  uint64_t offset = 0;  // of the chunk header in the file
  uint32_t stored_len = 0, raw_len = 0, crc = 0;
};

// Reads a profile chunk by chunk: from a file (read(), one chunk in memory at
// a time, so reading costs memory for the largest chunk, not the file), a
// stream (standard input, a pipe or FIFO: read once, in order), or memory
// (the caller's bytes). Header problems (not a kprof file, empty file,
// unknown version) throw kprof::Error; damage after the header ends the walk
// and is reported in status(), so everything before it is still usable.
class ProfileReader {
 public:
  // A file, or "-" for standard input (refused when it is a terminal).
  static ProfileReader open(const std::string& path);
  // A file opened already, owned from now on (the loader opens an input once
  // and reads its first bytes to tell its format). A regular file is read
  // by offset, from its start whatever was read from it before; anything
  // else (a pipe, FIFO, device) is read on from where it is, after
  // `read_already`, the bytes already read from it.
  static ProfileReader open(InputFile file, std::string name,
                            std::vector<uint8_t> read_already = {});
  // Reads `fd` (not owned) on from where it is, after `prefix`, the bytes
  // already read from it (a format sniff).
  static ProfileReader stream(int fd, std::vector<uint8_t> prefix, std::string name);
  explicit ProfileReader(std::vector<uint8_t> bytes, std::string name = "<memory>");
  ProfileReader(ProfileReader&&) noexcept;
  ProfileReader& operator=(ProfileReader&&) = delete;
  ~ProfileReader();

  // Calls `fn` for each good chunk in order. `want` filters by type before
  // decompression (the checksum of every chunk is still verified). A chunk
  // whose bytes are damaged (checksum, compression, or a kprof::Error thrown
  // by `fn`) is skipped and listed in status().damaged, and the walk goes on
  // after it; damage to the chunk structure itself (a header that does not
  // fit, two damaged chunks in a row) ends the walk. The walk stops after an End chunk;
  // a file without one reports "cut short". A stream can be walked once (a
  // second walk throws); a file or memory any number of times.
  //
  // A file's next large chunk that `want` takes is read, checked and
  // decompressed on a second thread while `fn` handles the one before it,
  // so `want` sees each type before `fn` has seen the chunk before it.
  // `skip`, when given, sees each header of a file (not a stream) at the
  // same point: a chunk it skips is neither read nor checked
  // (status().skipped_unread counts them). End is never skipped.
  const ReadStatus& for_each_chunk(const std::function<bool(uint16_t type)>& want,
                                   const std::function<void(const Chunk&)>& fn,
                                   const std::function<bool(const ChunkHeaderInfo&)>& skip = {});
  // The chunk types in order as their headers say, read without payloads or
  // checksums (16 bytes per chunk), up to the first header that does not
  // fit; nothing for a stream. How a reader decides what to decode before
  // its one real walk.
  std::optional<std::vector<uint16_t>> chunk_types();
  // The same headers, with where each chunk lies.
  std::optional<std::vector<ChunkHeaderInfo>> chunk_headers();
  // Reads, checks and decompresses the one chunk `h` (of chunk_headers())
  // and calls `fn` with it; returns "" or what was wrong with its bytes.
  // A file's only (not a stream's); the walk's status is left as it was.
  std::string read_chunk(const ChunkHeaderInfo& h, const std::function<void(const Chunk&)>& fn);
  // The same for a text chunk (kallsyms, modules): its payload decompressed
  // straight into `text`, which `fn`'s Chunk::payload then views (megabytes
  // of kallsyms are not unpacked into the reader's buffer and copied).
  std::string read_text_chunk(const ChunkHeaderInfo& h, std::string& text,
                              const std::function<void(const Chunk&)>& fn);
  bool rewindable() const;
  const ReadStatus& status() const { return status_; }
  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }

 private:
  struct Source;
  ProfileReader(std::unique_ptr<Source> source, std::string name);
  void read_header();
  std::string read_one(const ChunkHeaderInfo& h, std::string* text,
                       const std::function<void(const Chunk&)>& fn);
  std::unique_ptr<Source> src_;
  std::string name_;
  uint32_t version_ = 0;
  bool walked_ = false;
  ReadStatus status_;
  // Where a chunk is read into: its stored bytes (large ones in big_stored)
  // and its payload, decompressed (small ones in small, large ones, Records
  // chunks up to 4 MiB, in big: core/big_buffer.h). Two, so the next chunk
  // is read into one while the caller handles the other.
  struct Slot {
    std::vector<uint8_t> buf;
    BigBuffer big_stored;
    std::vector<uint8_t> small;
    BigBuffer big;
  };
  Slot slots_[2];
};

}  // namespace kprof
