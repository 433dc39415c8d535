#include "core/bytes.h"

#if KPROF_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.h"

namespace kprof {

void ByteWriter::u16(uint16_t v) {
  u8(static_cast<uint8_t>(v));
  u8(static_cast<uint8_t>(v >> 8));
}

void ByteWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
}

void ByteWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
}

void ByteWriter::varint(uint64_t v) {
  while (v >= 0x80) {
    u8(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  u8(static_cast<uint8_t>(v));
}

void ByteWriter::svarint(int64_t v) {
  // Zigzag: the shift is done on unsigned values so it is defined for INT64_MIN.
  const uint64_t u = static_cast<uint64_t>(v);
  varint((u << 1) ^ (v < 0 ? ~uint64_t{0} : 0));
}

void ByteWriter::str(std::string_view s) {
  varint(s.size());
  buf_.insert(buf_.end(), s.begin(), s.end());
}

void ByteWriter::raw(std::span<const uint8_t> bytes) {
  buf_.insert(buf_.end(), bytes.begin(), bytes.end());
}

void ByteReader::fail(std::string_view what) const {
  throw Error(std::string(context_) + ": " + std::string(what) + " at offset " +
              std::to_string(pos_) + " (" + std::to_string(left()) + " bytes left)");
}

void ByteReader::fail_truncated(size_t n, const char* field) const {
  const std::string name = field ? std::string(field) : std::to_string(n) + "-byte field";
  fail("truncated " + name + " (needs " + std::to_string(n) + " bytes)");
}

uint64_t ByteReader::varint_long() {
  uint64_t v = 0;
  const size_t start = pos_;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= data_.size()) {
      pos_ = start;
      fail("truncated varint");
    }
    const uint8_t b = data_[pos_++];
    // The 10th byte may only carry the top bit of a 64-bit value.
    if (i == 9 && b > 1) {
      pos_ = start;
      fail("varint overflows 64 bits");
    }
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) return v;
  }
  pos_ = start;
  fail("varint longer than 10 bytes");
}

std::string_view ByteReader::str() {
  const size_t start = pos_;
  const uint64_t n = varint();
  if (n > left()) {
    pos_ = start;
    fail("string of " + std::to_string(n) + " bytes is longer than the data");
  }
  std::string_view s(reinterpret_cast<const char*>(data_.data() + pos_), n);
  pos_ += n;
  return s;
}

size_t ByteReader::count(size_t min_element_bytes) {
  const size_t start = pos_;
  const uint64_t n = varint();
  const size_t per = min_element_bytes == 0 ? 1 : min_element_bytes;
  if (n > left() / per) {
    pos_ = start;
    fail("count " + std::to_string(n) + " too large for the data");
  }
  return static_cast<size_t>(n);
}

uint32_t crc32(std::span<const uint8_t> data, uint32_t seed) {
  // zlib's CRC-32 (polynomial and conditioning), from ISA-L: its folding
  // with carry-less multiplies runs ~9x zlib 1.2.13's crc32 here, and a
  // report checks every chunk. Without it (a -static build), zlib's, whose
  // length is uInt: fed in pieces below 4 GiB.
#if KPROF_ISAL
  return crc32_gzip_refl(seed, data.data(), data.size());
#else
  uLong c = seed;
  while (!data.empty()) {
    const size_t n = std::min<size_t>(data.size(), 1u << 30);
    c = ::crc32(c, data.data(), static_cast<uInt>(n));
    data = data.subspan(n);
  }
  return static_cast<uint32_t>(c);
#endif
}

std::vector<uint8_t> FieldWriter::take() {
  ByteWriter out;
  out.varint(count_);
  out.raw(body_.bytes());
  body_.clear();
  count_ = 0;
  return out.take();
}

std::string hex_bytes(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::vector<ByteReader> read_columns(ByteReader& r, std::span<const char* const> names,
                                     size_t required) {
  const uint64_t columns = r.varint();
  const size_t need = std::min(required, names.size());
  if (columns < need) {
    r.fail(std::to_string(columns) + " columns, fewer than the " + std::to_string(need) +
           " of this layout");
  }
  std::vector<ByteReader> col;
  col.reserve(names.size());
  for (uint64_t i = 0; i < columns; ++i) {
    const auto bytes = r.raw(r.count(1));
    if (i < names.size()) col.emplace_back(bytes, names[i]);
  }
  return col;
}

void expect_columns_done(const std::vector<ByteReader>& columns) {
  for (const ByteReader& c : columns) {
    if (!c.done()) c.fail(std::to_string(c.left()) + " bytes left over after the last entry");
  }
}

}  // namespace kprof
