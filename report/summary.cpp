#include "report/summary.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "report/table.h"

namespace kprof {

ProfileHistogram histogram_of(const Profile& profile) {
  ProfileHistogram out;
  if (profile.histogram_usable()) {
    if (profile.stacks) {  // a -g profile: the flat table is the stacks' leaves
      out.histogram = leaf_histogram(*profile.stacks);
      out.stacks = profile.stacks;
    } else {
      out.histogram = *profile.histogram;
    }
    return out;
  }
  // Symbols are only written when recording ends, so a cut-short file has
  // just the raw records, counted again as it was read: name what the file
  // itself can name (kernel addresses, from the snapshot taken at record start).
  const AddressCounts none;
  const AddressCounts& counts = profile.counted ? *profile.counted : none;
  KernelSymbols kernel = KernelSymbols::parse(profile.kallsyms, profile.modules);
  NullUserResolver user;
  SymbolizedCounts named = symbolize_counts(counts, kernel, user);
  out.histogram = std::move(named.histogram);
  out.stacks = std::move(named.stacks);
  out.recovered = true;
  const ReadStatus& st = profile.status;
  const bool file = profile.path != "stdin" && profile.path != "-";
  out.notice = "profile " +
               (st.intact() ? std::string("without a histogram") : describe_status(st)) +
               "; recovered " + format_count(counts.samples) +
               " samples (user functions not named: symbols are written when recording ends; "
               "on the machine that recorded it, kprof symbolize " +
               (file ? profile.path : std::string("FILE (a saved copy)")) +
               " names them, checking each binary's build-id)";
  return out;
}

void require_recovered_samples(const Profile& profile, const ProfileHistogram& hist) {
  if (profile.status.intact() || hist.histogram.total_samples() > 0) return;
  const ReadStatus& st = profile.status;
  throw Error(profile.path + " is " + (st.complete ? "damaged" : "cut short") +
                  " and no samples could be recovered (" + describe_status(st) +
                  "): nothing to report; record it again",
              1);
}

std::string describe_rate(const EventInfo& e) {
  if (e.rate == 0) return "";
  return e.use_freq ? std::to_string(e.rate) + " Hz" : "period " + std::to_string(e.rate);
}

std::string share_title(const EventInfo& e) {
  std::string s = e.name;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool cycles =
      s.find("cycles") != std::string::npos || s.find("cpu_clk_unhalted") != std::string::npos;
  return cycles && !e.fell_back ? "Cycles%" : "Samples%";
}

std::string describe_event(const EventInfo& event) {
  std::string s = event.name.empty() ? "unknown event" : event.name;
  if (event.rate == 0) {
    // not known (a listing that does not say)
  } else if (event.use_freq) {
    s += " @ " + format_count(event.rate) + " Hz";
    if (event.dither_pct != 0) s += " (period dithered ±" + std::to_string(event.dither_pct) + "%)";
  } else {
    s += ", period " + format_count(event.rate);
  }
  if (event.fell_back) {
    s += " (fallback: ";
    if (!event.requested.empty()) s += event.requested + " cannot be sampled here: ";
    s += event.fallback_reason.empty() ? "no reason recorded" : event.fallback_reason;
    s += ")";
  } else if (!event.requested.empty() && event.requested != event.name) {
    s += " (requested " + event.requested + ")";
  }
  if (event.exclude_kernel) s += ", user only";
  if (event.callchains) s += ", with callchains";
  return s;
}

std::string describe_more_events(const RunInfo& run) {
  std::string s;
  for (const EventInfo& e : run.more_events) {
    std::string one = e.name;
    if (e.rate != 0)
      one += e.use_freq ? " @ " + format_count(e.rate) + " Hz" : ", period " + format_count(e.rate);
    if (e.fell_back) one += " (fallback for " + e.requested + ")";
    s += (s.empty() ? "" : "; ") + one;
  }
  return s + " (show one with --event NAME)";
}

std::vector<std::string> run_notices(const RunInfo& run) {
  std::vector<std::string> out;
  for (const std::string& n : run.notices) {
    if (run.event.fell_back && n.find("sampling cpu-clock instead") != std::string::npos) continue;
    out.push_back(n);
  }
  return out;
}

std::string signal_name(int signo) {
  // Linux numbering (x86, arm, and most others); the profile may be read on
  // another system, so strsignal() of the reader would be wrong anyway.
  static constexpr const char* kNames[] = {
      nullptr,     "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",   "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE",    "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2",  "SIGPIPE", "SIGALRM", "SIGTERM",
      "SIGSTKFLT", "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",  "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU",   "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS"};
  if (signo > 0 && signo < static_cast<int>(std::size(kNames))) return kNames[signo];
  return "signal " + std::to_string(signo);
}

std::string describe_exit(const ExitStatus& exit) {
  switch (exit.kind) {
    case ExitStatus::Kind::Exited:
      return "exited " + std::to_string(exit.value);
    case ExitStatus::Kind::Signaled:
      return "killed by signal " + std::to_string(exit.value) + " (" + signal_name(exit.value) +
             ")";
    case ExitStatus::Kind::None:
      break;
  }
  return "";
}

std::string describe_target(const RunInfo& run) {
  if (!run.command.empty()) return format_command(run.command);
  return run.target.empty() ? "unknown" : run.target;
}

std::string describe_status(const ReadStatus& status) {
  if (status.intact()) return "complete";
  std::string s;
  if (!status.damaged.empty()) {
    s = "damaged: skipped " + status.describe_damage() +
        (status.complete ? "; the rest was read" : "");
  }
  if (!status.complete) {
    s += (s.empty() ? "" : "; ") + std::string("cut short: ") +
         (status.problem.empty() ? std::string("no end marker") : status.problem) + "; read " +
         format_count(status.good_bytes) + " of " + format_count(status.file_bytes) + " bytes";
  }
  return s;
}

std::string read_notice(const Profile& profile, const ProfileHistogram& hist) {
  if (!hist.notice.empty()) return hist.notice;
  if (profile.status.intact()) return "";
  // An imported perf.data's table is made from the records read: what is
  // before the damage. A .kprof's stored histogram is whole.
  if (profile.run.source_format == "perf.data") {
    const ReadStatus& st = profile.status;  // problem: "perf.data damaged: ..." (the importer's)
    return (st.problem.empty() ? std::string("perf.data not read whole") : st.problem) + "; read " +
           format_count(st.good_bytes) + " of " + format_count(st.file_bytes) +
           " bytes; the samples read are shown";
  }
  return "profile " + describe_status(profile.status) +
         "; its histogram was read whole and is used";
}

std::string format_utc(uint64_t realtime_ns) {
  if (realtime_ns == 0) return "unknown";
  std::time_t t = static_cast<std::time_t>(realtime_ns / 1000000000u);
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return "unknown";
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace kprof
