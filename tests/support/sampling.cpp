#include "tests/support/sampling.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/fd.h"

namespace kprof::test {

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return std::string(name ? name : ("errno " + std::to_string(err)).c_str()) + " (" +
         std::strerror(err) + ")";
}

SamplingCheck check_sampling() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_freq = 100;
  attr.freq = 1;
  attr.disabled = 1;
  attr.exclude_kernel = 1;  // what perf_event_paranoid <= 2 lets any user do
  const Fd fd(
      static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)));
  if (fd) return {};
  const int err = errno;
  const std::string said =
      "perf_event_open(cpu-clock, this process) failed with " + errno_text(err);
  if (err == EACCES || err == EPERM) {
    return {SamplingCheck::Kind::NotPermitted,
            said +
                ": sampling is not permitted here (kernel.perf_event_paranoid is above 2, "
                "or a seccomp/container policy forbids perf_event_open)"};
  }
  return {SamplingCheck::Kind::Broken,
          said +
              ": that is not a permission refusal, so sampling is broken here (or the "
              "kernel lacks perf events); recording tests cannot pass"};
}

}  // namespace kprof::test
