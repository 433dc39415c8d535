// What differs besides the workload (issue 24): the sides' environment
// fingerprints (core/environment.h) compared fact by fact, and their kernel
// configurations option by option, the ones known to move costs first, each
// with a line saying what it costs. Pure functions; the diff calls them
// (DiffResult::environment) and the text, JSON and page show the result.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/environment.h"

namespace kprof {

struct EnvDifference {
  std::string key;                  // a fact key, "cpu.vulnerabilities.mds"
  std::vector<std::string> values;  // per side; "(not available)", "(not recorded)"
  std::string cost;                 // why it moves costs; "" for the rest
};

struct ConfigDifference {
  std::string option;               // without CONFIG_: "PREEMPT_RT"
  std::vector<std::string> values;  // per side: "y", "m", "-" (not set), "?" (none recorded), "250"
  std::string cost;                 // what it costs, from the curated table; "" when not in it
};

struct EnvironmentDiff {
  std::vector<bool> recorded;  // per side: the profile has an environment
  bool same = false;           // every side recorded, and all alike
  // The facts whose known values differ (a value not available, or a fact a
  // side did not record, is unknown: no difference), cost-moving first.
  std::vector<EnvDifference> facts;
  size_t same_facts = 0;                 // facts alike wherever known
  size_t unknown_facts = 0;              // of those, the ones some side does not know
  std::vector<ConfigDifference> config;  // the differing options, curated first, then by name
  size_t config_options = 0;             // options compared (the union of the sides')
  std::vector<bool> config_recorded;     // per side: a configuration was recorded
};

// The curated cost of a configuration option, or "" when it is not known to
// move costs ("PREEMPT_RT": "every spinlock a sleeping rt_mutex, ...").
// `rank` (when not null): its place in the table, lower first.
std::string config_option_cost(const std::string& option, size_t* rank = nullptr);

// The configuration option whose own code kernel function `function` is,
// where that is certain (PREEMPT_RT's lock functions rt_spin_lock and
// rtlock_*, an LSM's tomoyo_*/selinux_*/apparmor_* hooks, a sanitizer's
// __asan_*/__tsan_*/__msan_*, lockdep, syscall audit, kcov, gcov), when that
// option differs between the sides (is in d.config); "" otherwise. Names
// another option's code could share (migrate_disable, rt_mutex_*: both
// exist without PREEMPT_RT) are never guessed.
std::string owning_option(const EnvironmentDiff& d, const std::string& function);

// Compares the first run's environment of each side (nullopt: not recorded).
EnvironmentDiff diff_environments(const std::vector<std::optional<Environment>>& sides);

// "What differs besides the workload" and "Kernel configuration: N of M
// options differ", with `labels` as column heads: the curated options all,
// the rest as a count unless `all_options`. One line when the environments
// are alike, one when none was recorded.
void write_environment_diff(std::ostream& out, const EnvironmentDiff& d,
                            const std::vector<std::string>& labels, bool all_options = false);

}  // namespace kprof
