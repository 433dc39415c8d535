#include "core/fd.h"

#include <unistd.h>

namespace kprof {

void Fd::reset(int fd) {
  if (fd_ >= 0 && fd_ != fd) ::close(fd_);
  fd_ = fd;
}

}  // namespace kprof
