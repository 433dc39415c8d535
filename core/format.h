// The .kprof file format: a 16-byte header, then self-delimiting chunks.
//
//   header:  "KPROF\r\n\x1a" (8 bytes), u32 version, u32 reserved
//   chunk:   u16 type, u16 flags, u32 stored_len, u32 raw_len, u32 crc32(stored bytes)
//            then stored_len bytes (zstd-compressed when flags & kChunkZstd).
//
// A file normally holds: Meta, Kallsyms, Modules, Records..., Summary,
// HistogramColumns (Histogram in older files; or, for a -g recording,
// Stacks: its flat table is their leaves, core/stacks.h), End. The Kallsyms chunk is left out at
// the start when this boot's cache holds the snapshot (RunInfo::kallsyms_digest); one Kallsyms
// chunk of the lines the samples need then comes before Histogram (core/kallsyms_subset.h). Readers
// take the last one. While recording, the rings' perf records are written as PerfRecords chunks
// (undecoded, uncompressed: perfabi/spool.h); when it ends they become compressed Records chunks
// (core/compact.h). Either way they are written as they come, so a file cut short (kill -9, full
// disk) still reads up to its last complete chunk; the reader says where it stopped and why.
// Unknown chunk types are skipped, so new chunk types do not need a version bump; a changed
// encoding of an existing chunk does, unless its payload says which one it is (Records: a first
// byte 0 is the column layout, records.h).
//
// Limits: raw_len and stored_len <= kMaxChunkBytes.
//
// Payloads of Meta, Summary and Histogram (bytes.h encoding): a struct is a
// varint field count, then its fields in declaration order (integers as
// varints, doubles as u64 bit patterns, bools as u8, strings and lists
// length-prefixed); nested structs and list elements are length-prefixed blobs
// holding their own field count. Readers take the fields they know and ignore
// extra ones; fields an older writer did not write keep their defaults. So a
// field may be appended to a struct without a version bump; reordering or
// changing a field's type needs one (HistogramColumns: see
// encode_histogram_columns). Kallsyms and Modules hold the raw text;
// Records see records.h. Stacks: see encode_stacks in format_codec.cpp (its
// stack table is plain varints, since it holds nearly all of the chunk).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/model.h"
#include "core/stacks.h"

namespace kprof {

struct AddressCounts;  // core/aggregate.h

inline constexpr uint8_t kMagic[8] = {'K', 'P', 'R', 'O', 'F', '\r', '\n', 0x1a};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kChunkHeaderBytes = 16;
inline constexpr uint32_t kMaxChunkBytes = 256u << 20;
inline constexpr uint16_t kChunkZstd = 1;

enum class ChunkType : uint16_t {
  Meta = 1,               // RunInfo
  Kallsyms = 2,           // /proc/kallsyms text at record start
  Modules = 3,            // /proc/modules text
  Records = 4,            // encoded Sample/Mmap/Comm/Fork/Exit/Lost (records.h)
  Summary = 5,            // Summary
  Histogram = 6,          // Histogram (symbolized)
  End = 7,                // empty; the file is complete
  Stacks = 8,             // Stacks (symbolized call stacks; -g profiles, in place of Histogram)
  PerfRecords = 9,        // perf records as the kernel wrote them (perfabi/spool.h)
  HistogramColumns = 10,  // Histogram in column layout (what kprof writes; 6 in older files)
};
const char* chunk_type_name(uint16_t type);

// Payload codecs (bounds-checked; throw kprof::Error on damage).
std::vector<uint8_t> encode_run_info(const RunInfo&);
RunInfo decode_run_info(std::span<const uint8_t>);
std::vector<uint8_t> encode_summary(const Summary&);
Summary decode_summary(std::span<const uint8_t>);
// Histogram: the row layout (one blob per row) of older files, and the
// column layout kprof writes now (format_codec.cpp; smaller
// once compressed: names next to names, numbers as small deltas).
std::vector<uint8_t> encode_histogram(const Histogram&);
Histogram decode_histogram(std::span<const uint8_t>);
std::vector<uint8_t> encode_histogram_columns(const Histogram&);
Histogram decode_histogram_columns(std::span<const uint8_t>);
std::vector<uint8_t> encode_stacks(const Stacks&);
Stacks decode_stacks(std::span<const uint8_t>);

// A chunk in its stored form (what follows its header in a file), so it can be
// copied from one file to another without compressing it again: kprof record
// keeps this boot's kallsyms snapshot this way (collector/kallsyms_cache.h).
struct StoredChunk {
  uint16_t type = 0;
  uint16_t flags = 0;  // kChunkZstd
  uint32_t raw_len = 0;
  std::vector<uint8_t> bytes;  // the stored (maybe compressed) payload
};
// zstd levels. kZstdFast while recording (kallsyms, synthesized records):
// about as small as level 3 on those, at a third of the CPU. kZstdCompact
// for the Records chunks compact_records writes once the events are off.
// kZstdSmall for the histogram, written once and read by every report.
inline constexpr int kZstdFast = 1;
inline constexpr int kZstdCompact = 3;
inline constexpr int kZstdSmall = 9;

// Packs a payload as ProfileWriter::write_chunk does: zstd at `level` when
// `compress` and that makes it smaller, else the bytes as they are.
StoredChunk pack_chunk(ChunkType type, std::span<const uint8_t> payload, bool compress = true,
                       int level = kZstdFast);

// Appends chunks to a file. Owns the fd. Creating refuses to follow a
// symlink or write into a directory, and uses mode 0600 (the file holds
// kernel addresses). Every write error throws kprof::Error naming the file
// and the cause (ENOSPC -> "disk full"); bytes written before stay valid.
class ProfileWriter {
 public:
  // Creates `path` (O_EXCL on a temporary name is not used: the caller moves
  // an existing file aside first, see cli/cmd_record).
  static ProfileWriter create(const std::string& path);
  // Opens a complete or cut-short file to append final chunks (used by the
  // symbolizer after recording). Truncates anything after the last good chunk
  // and any existing End chunk.
  static ProfileWriter append(const std::string& path);

  ProfileWriter(ProfileWriter&&) noexcept;
  ProfileWriter& operator=(ProfileWriter&&) noexcept;
  ~ProfileWriter();

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
  ProfileWriter(int fd, std::string path, uint64_t offset);
  void write_raw(uint16_t type, uint16_t flags, uint32_t raw_len, std::span<const uint8_t> stored);
  int fd_ = -1;
  std::string path_;
  uint64_t offset_ = 0;
};

// Where reading stopped.
struct ReadStatus {
  bool complete = false;    // End chunk seen
  uint64_t good_bytes = 0;  // bytes up to the end of the last good chunk
  uint64_t file_bytes = 0;  // a stream's: the bytes it held (read to its end when cut short)
  std::string problem;  // "" when complete; else "truncated chunk 'records' at offset 1234: ..."
  std::map<uint16_t, uint64_t> chunks;  // good chunks by type
};

// One chunk as read: type and its decompressed payload.
struct Chunk {
  uint16_t type = 0;
  uint16_t flags = 0;
  uint64_t offset = 0;  // of the chunk header in the file
  std::vector<uint8_t> payload;
  // As in the file (checksum verified): the reader's buffer, valid during the callback only.
  std::span<const uint8_t> stored;
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
  // Reads `fd` (not owned) on from where it is, after `prefix`, the bytes
  // already read from it (a format sniff).
  static ProfileReader stream(int fd, std::vector<uint8_t> prefix, std::string name);
  explicit ProfileReader(std::vector<uint8_t> bytes, std::string name = "<memory>");
  ProfileReader(ProfileReader&&) noexcept;
  ProfileReader& operator=(ProfileReader&&) = delete;
  ~ProfileReader();

  // Calls `fn` for each good chunk in order. `want` filters by type before
  // decompression (the checksum of every chunk is still verified). A
  // kprof::Error thrown by `fn` ends the walk as damage in that chunk
  // (status().good_bytes stops before it). The walk stops after an End chunk;
  // a file without one reports "cut short". A stream can be walked once (a
  // second walk throws); a file or memory any number of times.
  const ReadStatus& for_each_chunk(const std::function<bool(uint16_t type)>& want,
                                   const std::function<void(const Chunk&)>& fn);
  // The chunk types in order as their headers say, read without payloads or
  // checksums (16 bytes per chunk), up to the first header that does not
  // fit; nothing for a stream. How a reader decides what to decode before
  // its one real walk.
  std::optional<std::vector<uint16_t>> chunk_types();
  bool rewindable() const;
  const ReadStatus& status() const { return status_; }
  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }

 private:
  struct Source;
  ProfileReader(std::unique_ptr<Source> source, std::string name);
  void read_header();
  std::unique_ptr<Source> src_;
  std::string name_;
  uint32_t version_ = 0;
  bool walked_ = false;
  ReadStatus status_;
  std::vector<uint8_t> buf_;  // the current chunk's stored bytes
};

// Everything report/diff need, loaded in one walk of the file (and its header
// index, chunk_types()). Records chunks are not decoded when the file holds
// a usable Histogram or Stacks; otherwise (cut short) they are counted again
// into `counted`. Given `records`, every Records chunk is decoded into it
// instead, in order (a Records chunk that fails to decode ends the walk as
// damage, after the records before the damage were delivered). Throws
// kprof::Error for header problems and when no Meta chunk could be read.
// When a file holds several Meta, Summary or Histogram chunks (appended
// later), the last one wins.
// Decodes a PerfRecords chunk's payload into a sink: perfabi::decode_spool
// (core does not know perf's record layout; perfabi::reading() sets it).
using ChunkDecoder = std::function<void(std::span<const uint8_t>, RecordSink&)>;
struct LoadOptions {
  RecordSink* records = nullptr;
  // For PerfRecords chunks (a recording's, until it ends); without it such a
  // chunk ends the walk as damage ("needs perfabi") when its records are read.
  ChunkDecoder perf_records;
  // Fill `counted` even when the histogram is usable, with every user
  // address (to name them: kprof symbolize). Otherwise `counted` (cut short)
  // holds user samples by mapping, as a report names them: [unknown] per image.
  bool count_records = false;
};
struct Profile {
  std::string path;
  RunInfo run;
  std::optional<Summary> summary;
  std::string kallsyms;  // snapshot text
  std::string modules;
  std::optional<Histogram> histogram;  // absent when cut short, and for -g (see stacks)
  std::optional<Stacks> stacks;        // -g profiles; absent when cut short or without -g
  ReadStatus status;
  // The records counted again by address (core/aggregate.h): memory grows
  // with distinct addresses and stacks, not samples. Set when the histogram
  // (or a -g file's stacks) is missing or unusable, or when asked for.
  std::shared_ptr<const AddressCounts> counted;
  // Whether the Histogram / Stacks the file holds are what a report shows: a
  // -g profile cut short keeps a Histogram of an older kprof only.
  bool histogram_usable() const;
};
Profile load_profile(const std::string& path, const LoadOptions& options = {});
Profile load_profile(ProfileReader& reader, const LoadOptions& options = {});
Profile load_profile_bytes(std::vector<uint8_t> bytes, const std::string& name,
                           const LoadOptions& options = {});
inline Profile load_profile(const std::string& path, RecordSink* records) {
  return load_profile(path, LoadOptions{.records = records});
}
inline Profile load_profile_bytes(std::vector<uint8_t> bytes, const std::string& name,
                                  RecordSink* records) {
  return load_profile_bytes(std::move(bytes), name, LoadOptions{.records = records});
}
// The whole file; throws kprof::Error naming it when it cannot be read
// (missing: "no such file", a directory, no permission). "-" reads standard
// input (refused when it is a terminal: a profile is piped in).
std::vector<uint8_t> read_file_bytes(const std::string& path);
// What `fd` yields from where it is, up to `limit` bytes or its end; throws
// kprof::Error "cannot read NAME: ..." on a read error.
std::vector<uint8_t> read_fd(int fd, const std::string& name, size_t limit = SIZE_MAX);
// Whether `path` can be read twice: a regular file (not "-", a pipe or FIFO).
bool rereadable_input(const std::string& path);

}  // namespace kprof
