// Little-endian byte encoding used by every chunk payload.
//
// ByteWriter appends to a growing buffer. ByteReader reads from a borrowed
// span: every read is bounds-checked and throws kprof::Error("<context>:
// truncated ...") naming the field, its offset and the bytes left. Varints
// are LEB128 (max 10 bytes); zigzag maps signed deltas to small unsigned
// numbers.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

class ByteWriter {
 public:
  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void varint(uint64_t v);
  void svarint(int64_t v);       // zigzag
  void str(std::string_view s);  // varint length + bytes
  void raw(std::span<const uint8_t> bytes);

  const std::vector<uint8_t>& bytes() const { return buf_; }
  std::vector<uint8_t> take() { return std::move(buf_); }
  size_t size() const { return buf_.size(); }
  void clear() { buf_.clear(); }

 private:
  std::vector<uint8_t> buf_;
};

class ByteReader {
 public:
  // `context` prefixes error messages ("profile chunk 'records'", ...). It is
  // not copied (readers are made per record): it must outlive the reader, as
  // a string literal does.
  ByteReader(std::span<const uint8_t> data, std::string_view context)
      : data_(data), context_(context) {}

  // The fixed-size reads are inline: decoders call them for every field of
  // millions of records.
  uint8_t u8() {
    need(1, "u8");
    return data_[pos_++];
  }
  uint16_t u16() { return fixed<uint16_t>("u16"); }
  uint32_t u32() { return fixed<uint32_t>("u32"); }
  uint64_t u64() { return fixed<uint64_t>("u64"); }
  // One-byte varints (most fields of a record) take the inline path.
  uint64_t varint() {
    if (pos_ < data_.size() && data_[pos_] < 0x80) [[likely]]
      return data_[pos_++];
    return varint_long();
  }
  int64_t svarint() {
    const uint64_t u = varint();
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  std::string_view str();  // view into the underlying data
  std::span<const uint8_t> raw(size_t n) {
    need(n, nullptr);
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  // A count that will size an allocation: checked against the bytes left,
  // assuming each element needs at least `min_element_bytes`.
  size_t count(size_t min_element_bytes);

  size_t offset() const { return pos_; }
  size_t left() const { return data_.size() - pos_; }
  bool done() const { return pos_ == data_.size(); }

  [[noreturn]] void fail(std::string_view what) const;

 private:
  // `field` nullptr: "N-byte field". The message is made only on failure.
  void need(size_t n, const char* field) {
    if (n > left()) [[unlikely]]
      fail_truncated(n, field);
  }
  [[noreturn]] void fail_truncated(size_t n, const char* field) const;
  uint64_t varint_long();
  template <typename T>
  T fixed(const char* field) {
    need(sizeof(T), field);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    if constexpr (std::endian::native == std::endian::big) {
      T le = 0;
      for (size_t i = 0; i < sizeof(T); ++i)
        le = static_cast<T>((le << 8) | ((v >> (8 * i)) & 0xff));
      v = le;
    }
    return v;
  }
  std::span<const uint8_t> data_;
  std::string_view context_;
  size_t pos_ = 0;
};

// The bytes of a string, for the codecs and writers that take bytes.
inline std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Structs (core/chunk_codecs.h): a varint field count, then the fields in
// order. The writer counts each field as it is written, so a field added to
// an encoder cannot leave the count stale; a field made of several values
// (a list) is one field().
class FieldWriter {
 public:
  void varint(uint64_t v) { field().varint(v); }
  void svarint(int64_t v) { field().svarint(v); }
  void u8(uint8_t v) { field().u8(v); }
  void f64(double v) { field().u64(std::bit_cast<uint64_t>(v)); }
  void str(std::string_view s) { field().str(s); }
  void blob(std::span<const uint8_t> b) { write_blob(field(), b); }
  // Starts the next field; the caller writes its values into the writer returned.
  ByteWriter& field() {
    ++count_;
    return body_;
  }
  std::vector<uint8_t> take();  // the count, then the fields
  // A nested struct or list element: varint length + bytes.
  static void write_blob(ByteWriter& w, std::span<const uint8_t> b) {
    w.varint(b.size());
    w.raw(b);
  }

 private:
  ByteWriter body_;
  uint64_t count_ = 0;
};

// Reads a struct's fields while the writer's field count lasts.
class FieldReader {
 public:
  FieldReader(std::span<const uint8_t> data, std::string_view context) : r(data, context) {
    left_ = r.varint();
  }
  // True when the writer wrote one more field; consumes it from the count.
  bool next() {
    if (left_ == 0) return false;
    --left_;
    return true;
  }
  double f64() { return std::bit_cast<double>(r.u64()); }
  std::span<const uint8_t> blob() { return r.raw(r.count(1)); }
  ByteReader r;

 private:
  uint64_t left_ = 0;
};

// Column layouts (Records, HistogramColumns): a varint column count, then
// each column as varint length + bytes. Returns a reader per known column,
// named by `names` (string literals; a later writer's extra columns are
// skipped); fewer columns than `required` (default: all of `names`) is
// damage, and columns from `required` on that an older writer did not write
// are left out of what is returned.
std::vector<ByteReader> read_columns(ByteReader& r, std::span<const char* const> names,
                                     size_t required = SIZE_MAX);
// Each column was read to its end (else: damage, naming the column).
void expect_columns_done(const std::vector<ByteReader>& columns);

uint32_t crc32(std::span<const uint8_t> data, uint32_t seed = 0);

// Lower-case hex of each byte in order ("0a1b..."), as build-ids are written.
std::string hex_bytes(std::span<const uint8_t> bytes);

}  // namespace kprof
