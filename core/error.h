// kprof's one error style: functions that fail throw kprof::Error with a
// single line that names the thing and the fix. `main` catches it, prints
// "kprof: <message>" and exits non-zero. Nothing else is thrown on purpose;
// std::bad_alloc and friends are caught in main as well.
#pragma once

#include <stdexcept>
#include <string>

namespace kprof {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// "<what>: <strerror(errno_value)>" — for failed system calls.
std::string errno_message(const std::string& what, int errno_value);

}  // namespace kprof
