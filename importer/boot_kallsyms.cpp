// importer/import.h: with_boot_kallsyms, match_boot_kallsyms: a kprof
// profile cut short before its kernel symbols were written, named from this
// boot's cached kallsyms snapshot (collector/kallsyms_cache.h, reached through
// RunningKernel so the importer does not link the collector).
#include "core/kallsyms_subset.h"
#include "importer/import.h"

namespace kprof::importer {

BootKallsymsMatch match_boot_kallsyms(const RunInfo& run, const RunningKernel& running) {
  BootKallsymsMatch m;
  const bool this_boot = !run.boot_id.empty() && run.boot_id == running.boot_id;
  if (!this_boot) {
    m.why_not = "it was recorded on another boot (boot id " +
                (run.boot_id.empty() ? std::string("unknown") : run.boot_id) + ")";
    return m;
  }
  RunningKernel::BootKallsyms cached;
  if (running.boot_kallsyms) cached = running.boot_kallsyms();
  m.path = cached.path;
  if (cached.text.empty()) {
    m.why_not = "this boot's kallsyms cache" +
                (cached.path.empty() ? "" : " (" + cached.path + ")") +
                " no longer holds its snapshot";
  } else if (kallsyms_digest(cached.text) != run.kallsyms_digest) {
    m.why_not = "this boot's kallsyms cache (" + cached.path +
                ") holds a newer snapshot than the one it was recorded with";
  } else {
    m.text = std::move(cached.text);
  }
  return m;
}

Profile with_boot_kallsyms(Profile p, const RunningKernel& running) {
  if (!p.kallsyms.empty() || p.run.kallsyms_digest.empty() || !p.run.source_format.empty()) {
    return p;
  }
  const std::string cut = "the profile was cut short before its kernel symbols were written";
  BootKallsymsMatch m = match_boot_kallsyms(p.run, running);
  if (!m.text.empty()) {
    p.kallsyms = std::move(m.text);
    p.run.notices.push_back(std::string(kBootCacheKallsymsNotice) + " (" + m.path + "): " + cut);
  } else if (!p.run.event.exclude_kernel) {
    p.run.notices.push_back("kernel functions stay unnamed: " + cut + ", and " + m.why_not);
  }
  return p;
}

}  // namespace kprof::importer
