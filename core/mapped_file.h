// Input files: opened read-only with one set of error messages (InputFile),
// and a whole file mapped read-only: the bytes of a large input (a perf.data of
// millions of samples) without copying them into memory first. Owns the
// mapping (munmap on destruction); the fd is closed once mapped.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "core/fd.h"

namespace kprof {

// A file opened read-only for input, with what fstat said of it; owns the fd.
// Throws kprof::Error naming the file when it is missing ("no such file",
// then `missing_hint` when given), unreadable, or a directory.
class InputFile {
 public:
  static InputFile open(const std::string& path, const std::string& missing_hint = "");
  int fd() const { return fd_.get(); }
  bool regular() const { return regular_; }
  uint64_t size() const { return size_; }

 private:
  InputFile(Fd fd, bool regular, uint64_t size)
      : fd_(std::move(fd)), regular_(regular), size_(size) {}
  Fd fd_;
  bool regular_ = false;
  uint64_t size_ = 0;
};

class MappedFile {
 public:
  // Throws kprof::Error naming the file when it cannot be opened, is a
  // directory, or cannot be mapped. An empty file maps to no bytes.
  static MappedFile open(const std::string& path);
  // The same for a file opened already (`name` in messages); `in` may be
  // closed once this returns.
  static MappedFile map(const InputFile& in, const std::string& name);

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
