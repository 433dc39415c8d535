// SignalScope: the recorder's signals (SIGINT, SIGTERM, SIGCHLD) read
// through a signalfd instead of delivered.
//
// Contract: while one lives, the three are blocked in the calling thread and
// read with next() (0 when none is pending; fd() polls); on destruction the
// ones still pending are dropped (not delivered late) and the previous mask
// is restored. old_mask() is that previous mask, for a child to restore
// before it execs. Throws kprof::Error when no signalfd can be made.
#pragma once

#include <signal.h>

#include "core/fd.h"

namespace kprof::collector {

class SignalScope {
 public:
  SignalScope();
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  int fd() const { return fd_.get(); }
  const sigset_t& old_mask() const { return old_; }
  // Next pending signal number, 0 when none.
  int next();

 private:
  sigset_t set_, old_;
  Fd fd_;
};

}  // namespace kprof::collector
