// `kprof info`: everything a profile knows about its run, one "key: value"
// line each: format version, event, machine, workload, /proc/stat rates,
// summary, kallsyms snapshot, chunk status and counts, scores, notices.
#pragma once

#include <ostream>

#include "core/profile.h"
#include "core/profile_reader.h"
#include "report/summary.h"

namespace kprof {

// `chunks`: optional per-type chunk counts line ("meta 1, records 12, ...");
// empty to leave it out.
void write_info(std::ostream& out, const Profile& profile, const ProfileHistogram& hist,
                const std::string& chunks = "");

// The good chunks the walk met, by type (counted as the file was read once):
// "meta 1, kallsyms 1, records 12, summary 1, histogram 1, end 1"; "" for
// a profile that is not a kprof file (an import).
std::string chunk_counts(const ReadStatus& status);

}  // namespace kprof
