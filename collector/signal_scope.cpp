#include "collector/signal_scope.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.h"

namespace kprof::collector {

SignalScope::SignalScope() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGCHLD);
  ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  fd_ = Fd(::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd_.valid()) throw Error(errno_message("cannot create a signalfd", errno));
}

SignalScope::~SignalScope() {
  // Drop what arrived for us before unblocking, so it is not delivered late.
  fd_.reset();
  timespec zero{};
  siginfo_t info;
  while (::sigtimedwait(&set_, &info, &zero) > 0) {
  }
  ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

int SignalScope::next() {
  signalfd_siginfo si;
  const ssize_t n = ::read(fd_.get(), &si, sizeof si);
  return n == sizeof si ? static_cast<int>(si.ssi_signo) : 0;
}

}  // namespace kprof::collector
