// A whole file mapped read-only: the bytes of a large input (a perf.data of
// millions of samples) without copying them into memory first. Owns the
// mapping (munmap on destruction); the fd is closed once mapped.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace kprof {

class MappedFile {
 public:
  // Throws kprof::Error naming the file when it cannot be opened, is a
  // directory, or cannot be mapped. An empty file maps to no bytes.
  static MappedFile open(const std::string& path);

  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(base_), size_}; }

 private:
  MappedFile(void* base, size_t size) : base_(base), size_(size) {}
  void* base_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kprof
