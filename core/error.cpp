#include "core/error.h"

#include <cstring>

namespace kprof {

std::string errno_message(const std::string& what, int errno_value) {
  return what + ": " + std::strerror(errno_value);
}

}  // namespace kprof
