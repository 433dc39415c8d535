// Appending chunks to a .kprof file (layout: core/file_layout.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/fd.h"
#include "core/file_layout.h"

namespace kprof {

// Appends chunks to a file. Owns the fd. Creating refuses to follow a
// symlink or write into a directory, and uses mode 0600 (the file holds
// kernel addresses). Every write error throws kprof::Error naming the file
// and the cause (ENOSPC -> "disk full"); bytes written before stay valid.
class ProfileWriter {
 public:
  // Creates `path` (O_EXCL on a temporary name is not used: the caller moves
  // an existing file aside first, see cli/cmd_record).
  static ProfileWriter create(const std::string& path);
  // Opens a complete or cut-short file to append final chunks (kprof
  // symbolize). Truncates anything after the last good chunk and any
  // existing End chunk.
  static ProfileWriter append(const std::string& path);

  // compress: zstd at `level` when it makes the chunk smaller.
  void write_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress = true,
                   int level = kZstdFast);
  void write_stored(const StoredChunk& chunk);
  void write_end() { write_chunk(ChunkType::End, {}, false); }
  // fsync: what was written is on disk (throws kprof::Error naming the file).
  void sync();
  uint64_t bytes_written() const { return offset_; }
  const std::string& path() const { return path_; }

 private:
  ProfileWriter(Fd fd, std::string path, uint64_t offset);
  void write_raw(uint16_t type, uint16_t flags, uint32_t raw_len, std::span<const uint8_t> stored);
  Fd fd_;
  std::string path_;
  uint64_t offset_ = 0;
};

}  // namespace kprof
