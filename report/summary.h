// What report, info and diff say about a loaded profile: its histogram (also
// for a file cut short) and one-line descriptions of the run. Reads the
// loaded Profile only; never the file again, nor the live system.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/profile.h"
#include "core/profile_reader.h"

namespace kprof {

struct ProfileHistogram {
  Histogram histogram;
  // "" for a complete file; else one line saying how the histogram was
  // recovered ("profile cut short: ...; recovered K samples (...)").
  std::string notice;
  bool recovered = false;  // rebuilt from Records chunks (user functions not named)
  // The call stacks of a -g profile (the stored Stacks chunk, or rebuilt from
  // the Records with the histogram); absent for a profile without call chains.
  std::optional<Stacks> stacks;
};

// The histogram of `profile`: the leaves of its stored Stacks (-g), or its
// stored Histogram chunk (not for a -g file cut short or damaged before its
// Stacks read: that one is rebuilt like any cut-short file).
// Otherwise (a recording killed or cut short before its symbols were written)
// names the records the load counted again (`profile.counted`, no second
// read of the file): kernel samples from the profile's own kallsyms
// snapshot, user samples by image as "[unknown]".
ProfileHistogram histogram_of(const Profile& profile);
// Throws kprof::Error (exit 1) when a cut-short or damaged profile gave no
// samples at all: nothing to show is a failure, as an empty file is. What
// report, diff and export call; info describes such a file all the same.
void require_recovered_samples(const Profile& profile, const ProfileHistogram& hist);

// "cpu-clock @ 499 Hz (fallback: CPU_CLK_UNHALTED cannot be sampled here: ...)",
// "cycles, period 100000 (requested CPU_CLK_UNHALTED:100000)".
std::string describe_event(const EventInfo& event);
// The events recorded beside the shown one (kprof record -e A,B), each with
// its rate: "page-faults @ 499 Hz; sched:sched_switch, period 1 (show one
// with --event NAME)".
std::string describe_more_events(const RunInfo& run);
// The run's notices less the one that repeats what describe_event() already
// says (the recorder's "... cannot be sampled here ...; sampling cpu-clock
// instead" of a fallback): each fact once in a header or a page.
std::vector<std::string> run_notices(const RunInfo& run);
// "499 Hz" or "period 100000"; "" when the rate is not known (a listing).
std::string describe_rate(const EventInfo& event);
// The heading of a profile's shares, by what really ran: "Cycles%" only when
// a cycles event was sampled (not when one was asked for and cpu-clock ran
// instead), else "Samples%".
std::string share_title(const EventInfo& event);
// "exited 0", "killed by signal 9 (SIGKILL)", "" when there was no workload.
std::string describe_exit(const ExitStatus& exit);
// "SIGKILL" for 9, "signal 77" when unknown (Linux numbering).
std::string signal_name(int signo);
// The workload ("./bench --x") or the target ("system-wide", "pid 12").
std::string describe_target(const RunInfo& run);
// "complete", or "damaged: skipped chunk ...", "cut short: <problem>; read N
// of M bytes", or both.
std::string describe_status(const ReadStatus& status);
// How the file was read, in one line for a report header, a diff warning or
// the page: "" when whole; the recovery notice when the histogram was rebuilt;
// else what was damaged or cut, and that the histogram was whole.
std::string read_notice(const Profile& profile, const ProfileHistogram& hist);
// Wall-clock time as "2024-05-01 12:34:56 UTC"; "unknown" for 0.
std::string format_utc(uint64_t realtime_ns);

}  // namespace kprof
