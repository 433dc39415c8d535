// The one owner of a file descriptor: closes it when it goes (RAII), moves,
// never copies. Every fd kprof opens is held by one of these.
#pragma once

#include <utility>

namespace kprof {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }
  // Gives the fd up without closing it.
  int release() { return std::exchange(fd_, -1); }
  // Closes the fd held (if any) and holds `fd`.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

}  // namespace kprof
