// Off-CPU views (kprof report/diff/export --off-cpu): a profile's off-CPU
// time (core/off_cpu.h) read through the same views as its CPU samples, and
// the lines that put on-CPU, blocked and run-queue time on one scale.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "core/off_cpu.h"
#include "core/profile.h"

namespace kprof {

// `p` with its off-CPU stacks in place of its CPU samples: every view of
// stacks (flat table, --children, --callers, diff, folded, pprof, the page)
// then reads off-CPU time, in samples of OffCpu::tick_ns. The run's event is
// renamed "off-cpu" so headers and pages say what they show. Throws
// kprof::Error (exit 2) naming `file` when it holds no off-CPU time.
Profile off_cpu_profile(Profile p, const std::string& file);

// "on-CPU 500.1 ms + blocked 480.2 ms + run queue 20.3 ms = 1000.6 ms of
// wall, 4 threads (sampled on-CPU: 498.0 ms)": over every followed thread.
std::string off_cpu_identity(const OffCpu& o);

// The report header's off-CPU part: what one sample stands for, the
// identity summed, then per thread (the `top` with the most wall time, 0:
// all) its on-CPU, blocked and run-queue time as shares of its wall time,
// and how far on + blocked + run queue is from its wall time.
void write_off_cpu_summary(std::ostream& out, const OffCpu& o, size_t top);

// The default diff's short section when every input recorded off-CPU time:
// per kernel its threads' time on CPU, blocked and on the run queue (shares
// of the threads' wall time over all its runs, and ms and switches per run),
// then what to run for the matched diff.
struct OffCpuSide {
  std::string name;                 // the kernel's label
  std::vector<const OffCpu*> runs;  // one per run, none null
};
void write_off_cpu_comparison(std::ostream& out, const std::vector<OffCpuSide>& sides);

}  // namespace kprof
