#include "report/environment_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

#include "report/table.h"

namespace kprof {
namespace {

// Facts known to move costs, in the order they are shown: a key or a key
// prefix (ending in '.'), and why.
struct CostlyFact {
  std::string_view key;
  std::string_view cost;
};
constexpr CostlyFact kCostlyFacts[] = {
    {"cpu.vulnerabilities.", "speculative-execution mitigation: work on kernel entry and exit"},
    {"kernel.cmdline", "boot options (mitigations=, preempt=, nohz_full=, isolcpus=, ...)"},
    {"clocksource", "the cost of every clock read (gettimeofday, timers, scheduler)"},
    {"kernel.preempt", "preemption model: preemption points, context switches, lock behaviour"},
    {"kernel.hz", "timer tick rate: tick work per second"},
    {"kernel.nohz", "tickless idle or full: tick work and wakeup latency"},
    {"cpufreq.governor", "CPU frequency policy: cycles per second of work"},
    {"cpufreq.driver", "CPU frequency driver"},
    {"cpu.smt", "SMT siblings share a core's execution units"},
    {"thp.", "transparent huge pages: TLB misses against compaction work"},
    {"cpu.hypervisor", "virtualization: exits, timers, steal time"},
    {"cpu.microcode", "microcode: mitigations and errata fixes in the CPU"},
    {"cpu.model", "a different CPU"},
    {"cpu.family_model_stepping", "a different CPU"},
    {"cpu.flags", "CPU features the kernel uses (PCID, ERMS, AVX-512, ...)"},
    {"cpuidle.", "idle states: wakeup latency"},
    {"sysctl.", "a scheduler or VM tunable"},
};

// Options known to move costs: an option, or a prefix ending in '*'.
struct CostlyOption {
  std::string_view pattern;
  std::string_view cost;
};
constexpr CostlyOption kCostlyOptions[] = {
    {"PREEMPT_RT", "fully preemptible: every spinlock a sleeping rt_mutex, interrupts in threads"},
    {"PREEMPT", "preemptible kernel: preemption points everywhere, more context switches"},
    {"PREEMPT_VOLUNTARY", "voluntary preemption points (might_sleep)"},
    {"PREEMPT_NONE", "no preemption: throughput over latency"},
    {"PREEMPT_DYNAMIC", "preemption model chosen at boot (preempt=)"},
    {"PREEMPT_*", "preemption model"},
    {"HZ", "timer tick rate: tick work per second"},
    {"HZ_*", "timer tick rate: tick work per second"},
    {"NO_HZ_FULL", "tickless while running one task: context tracking on every kernel entry"},
    {"NO_HZ*", "tickless idle: tick work and wakeup latency"},
    {"KASAN*", "address sanitizer: every memory access checked (2-3x slower)"},
    {"LOCKDEP", "lock dependency tracking on every lock operation"},
    {"PROVE_LOCKING", "lock dependency tracking on every lock operation"},
    {"DEBUG_PAGEALLOC*", "freed pages unmapped: TLB flushes on allocation and free"},
    {"SLUB_DEBUG_ON", "slab debugging on every allocation"},
    {"INIT_ON_ALLOC_DEFAULT_ON", "every allocation zeroed"},
    {"INIT_ON_FREE_DEFAULT_ON", "every freed object zeroed"},
    {"PAGE_TABLE_ISOLATION", "separate user page tables: a CR3 switch on every kernel entry"},
    {"MITIGATION_PAGE_TABLE_ISOLATION",
     "separate user page tables: a CR3 switch on every kernel entry"},
    {"RETPOLINE", "indirect calls through retpolines"},
    {"MITIGATION_RETPOLINE", "indirect calls through retpolines"},
    {"MITIGATION_*", "a speculative-execution mitigation on kernel entry/exit or branches"},
    {"HARDENED_USERCOPY", "bounds checks on every copy to and from user space"},
    {"AUDITSYSCALL", "audit hooks on every system call's entry and exit"},
    {"SECURITY_SELINUX", "SELinux hooks on file, task and network operations"},
    {"SECURITY_APPARMOR", "AppArmor hooks on file and task operations"},
    {"SECURITY_TOMOYO", "TOMOYO hooks on file operations (tomoyo_* functions)"},
    {"SECURITY_*", "a security module's hooks"},
    {"CONTEXT_TRACKING*", "user/kernel transitions tracked on every entry and exit"},
    {"RCU_*", "RCU flavour: grace-period and callback work"},
    {"TRANSPARENT_HUGEPAGE*", "transparent huge pages: TLB misses against compaction work"},
    {"SCHED_*", "scheduler features"},
    {"DEBUG_INFO*", ""},  // debug information costs nothing at run time
    {"DEBUG_*", "debug checks on kernel paths"},
};

// Kernel functions that are one option's own code, certainly: the code
// exists only when the option is set (a pattern ending in '*' is a prefix).
struct OwnedCode {
  std::string_view function;
  std::string_view option;
};
constexpr OwnedCode kOwnedCode[] = {
    // kernel/locking/spinlock_rt.c, rwbase_rt.c, and rtmutex.c's rtlock_*
    {"rt_spin_*", "PREEMPT_RT"},
    {"rt_read_*", "PREEMPT_RT"},
    {"rt_write_*", "PREEMPT_RT"},
    {"rtlock_*", "PREEMPT_RT"},
    {"rwbase_*", "PREEMPT_RT"},
    {"tomoyo_*", "SECURITY_TOMOYO"},
    {"selinux_*", "SECURITY_SELINUX"},
    {"apparmor_*", "SECURITY_APPARMOR"},
    {"smack_*", "SECURITY_SMACK"},
    {"__asan_*", "KASAN"},
    {"kasan_*", "KASAN"},
    {"__kasan_*", "KASAN"},
    {"__tsan_*", "KCSAN"},
    {"kcsan_*", "KCSAN"},
    {"__msan_*", "KMSAN"},
    {"kmsan_*", "KMSAN"},
    {"lockdep_*", "LOCKDEP"},
    {"__lock_acquire", "LOCKDEP"},
    {"__audit_syscall_*", "AUDITSYSCALL"},
    {"__sanitizer_cov_*", "KCOV"},
    {"__gcov_*", "GCOV_KERNEL"},
};

bool matches(std::string_view pattern, std::string_view option) {
  if (pattern.ends_with('*')) return option.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == option;
}

std::string fact_cost(const std::string& key, size_t* rank) {
  for (size_t i = 0; i < std::size(kCostlyFacts); ++i) {
    const CostlyFact& c = kCostlyFacts[i];
    if (c.key.ends_with('.') ? std::string_view(key).starts_with(c.key) : key == c.key) {
      *rank = i;
      return std::string(c.cost);
    }
  }
  *rank = std::size(kCostlyFacts);
  return "";
}

// Sizes that move by a little between boots of one machine (memory.total:
// the kernel's own reservations): within 1% they are alike.
bool close_sizes(const std::set<std::string>& known) {
  double lo = 0, hi = 0;
  bool first = true;
  for (const std::string& v : known) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || x <= 0) return false;
    lo = first ? x : std::min(lo, x);
    hi = first ? x : std::max(hi, x);
    first = false;
  }
  return !first && hi <= lo * 1.01;
}

std::string shown_value(const EnvFact* f) {
  if (f == nullptr) return "(not recorded)";
  return f->available ? f->value : "(not available)";
}

}  // namespace

std::string config_option_cost(const std::string& option, size_t* rank) {
  for (size_t i = 0; i < std::size(kCostlyOptions); ++i) {
    if (matches(kCostlyOptions[i].pattern, option)) {
      if (rank) *rank = kCostlyOptions[i].cost.empty() ? std::size(kCostlyOptions) : i;
      return std::string(kCostlyOptions[i].cost);
    }
  }
  if (rank) *rank = std::size(kCostlyOptions);
  return "";
}

std::string owning_option(const EnvironmentDiff& d, const std::string& function) {
  for (const OwnedCode& c : kOwnedCode) {
    if (!matches(c.function, function)) continue;
    for (const ConfigDifference& diff : d.config) {
      if (diff.option == c.option) return diff.option;
    }
    return "";
  }
  return "";
}

EnvironmentDiff diff_environments(const std::vector<std::optional<Environment>>& sides) {
  EnvironmentDiff d;
  for (const auto& e : sides) {
    d.recorded.push_back(e.has_value());
    d.config_recorded.push_back(e && !e->config.empty());
  }
  // Facts, by key, in first-seen order.
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& e : sides) {
    if (!e) continue;
    for (const EnvFact& f : e->facts) {
      if (seen.insert(f.key).second) keys.push_back(f.key);
    }
  }
  std::vector<std::pair<size_t, EnvDifference>> facts;
  for (size_t k = 0; k < keys.size(); ++k) {
    EnvDifference diff{keys[k], {}, ""};
    // Among the values known: "not available" or not recorded says nothing.
    std::set<std::string> known;
    for (const auto& e : sides) {
      diff.values.push_back(e ? shown_value(e->find(keys[k])) : "(not recorded)");
      if (!diff.values.back().starts_with("(not ")) known.insert(diff.values.back());
    }
    if (known.size() <= 1 || (keys[k] == "memory.total" && close_sizes(known))) {
      ++d.same_facts;
      // Known on one side, not on another (not where no side knows it).
      d.unknown_facts += !known.empty() &&
                         std::any_of(diff.values.begin(), diff.values.end(),
                                     [](const std::string& v) { return v.starts_with("(not "); });
      continue;
    }
    size_t rank = 0;
    diff.cost = fact_cost(keys[k], &rank);
    facts.emplace_back(rank * 100000 + k, std::move(diff));
  }
  std::stable_sort(facts.begin(), facts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& f : facts) d.facts.push_back(std::move(f.second));
  // Options: the union of the sides that recorded a configuration.
  std::set<std::string> options;
  for (const auto& e : sides) {
    if (!e) continue;
    for (const auto& [name, value] : e->config) options.insert(name);
  }
  d.config_options = options.size();
  std::vector<std::pair<size_t, ConfigDifference>> config;
  for (const std::string& o : options) {
    ConfigDifference diff{o, {}, ""};
    for (const auto& e : sides) {
      if (!e || e->config.empty()) {
        diff.values.push_back("?");
        continue;
      }
      auto it = e->config.find(o);
      diff.values.push_back(it == e->config.end() ? "-" : it->second);
    }
    // A side without a configuration says nothing either way.
    std::set<std::string> known;
    for (const std::string& v : diff.values) {
      if (v != "?") known.insert(v);
    }
    if (known.size() <= 1) continue;
    size_t rank = 0;
    diff.cost = config_option_cost(o, &rank);
    config.emplace_back(rank, std::move(diff));
  }
  std::stable_sort(config.begin(), config.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& c : config) d.config.push_back(std::move(c.second));
  auto all = [](const std::vector<bool>& v) {
    return std::all_of(v.begin(), v.end(), [](bool b) { return b; });
  };
  d.same = all(d.recorded) && all(d.config_recorded) && d.facts.empty() && d.config.empty() &&
           d.unknown_facts == 0;
  return d;
}

void write_environment_diff(std::ostream& out, const EnvironmentDiff& d,
                            const std::vector<std::string>& labels, bool all_options) {
  const size_t recorded =
      static_cast<size_t>(std::count(d.recorded.begin(), d.recorded.end(), true));
  if (recorded < 2) {
    out << "What differs besides the workload: not known (";
    if (recorded == 0) {
      out << "no profile recorded its environment";
    } else {
      out << "only "
          << labels[static_cast<size_t>(std::find(d.recorded.begin(), d.recorded.end(), true) -
                                        d.recorded.begin())]
          << " recorded its environment";
    }
    out << "; kprof record keeps it, older kprof files and imports lack it)\n";
    return;
  }
  if (d.same) {
    out << "What differs besides the workload: nothing: same environment (" << d.same_facts
        << " facts and " << d.config_options << " kernel options alike)\n";
    return;
  }
  out << "What differs besides the workload (" << d.facts.size() << " facts differ, "
      << d.same_facts - d.unknown_facts << " alike";
  if (d.unknown_facts > 0) out << ", " << d.unknown_facts << " known on one side only";
  const size_t sides = d.recorded.size();
  if (recorded < sides) {
    out << "; not recorded by";
    for (size_t s = 0; s < sides; ++s) {
      if (!d.recorded[s]) out << " " << labels[s];
    }
  }
  out << ")\n";
  if (!d.facts.empty()) {
    std::vector<Column> cols = {{"fact", Align::Left, 40}};
    for (const std::string& l : labels) cols.push_back({l, Align::Left, 40});
    cols.push_back({"what it moves"});
    TextTable t(std::move(cols));
    for (const EnvDifference& f : d.facts) {
      std::vector<std::string> row = {f.key};
      row.insert(row.end(), f.values.begin(), f.values.end());
      row.push_back(f.cost);
      t.add_row(std::move(row));
    }
    t.write(out);
  }
  const size_t with_config =
      static_cast<size_t>(std::count(d.config_recorded.begin(), d.config_recorded.end(), true));
  out << "\n";
  if (with_config < 2) {
    out << "Kernel configuration: not compared (" << with_config << " of " << d.recorded.size()
        << " profiles recorded one)\n";
    return;
  }
  size_t curated = 0;
  for (const ConfigDifference& c : d.config) curated += !c.cost.empty();
  out << "Kernel configuration: " << d.config.size() << " of " << d.config_options
      << " options differ";
  if (!d.config.empty()) out << " (" << curated << " known to move costs, shown first)";
  out << "; y: built in, m: module, -: not set, ?: not recorded\n";
  if (d.config.empty()) return;
  std::vector<Column> cols = {{"option", Align::Left, 40}};
  for (const std::string& l : labels) cols.push_back({l, Align::Left, 24});
  cols.push_back({"what it costs"});
  TextTable t(std::move(cols));
  size_t shown = 0;
  for (const ConfigDifference& c : d.config) {
    if (c.cost.empty() && !all_options) break;
    std::vector<std::string> row = {c.option};
    row.insert(row.end(), c.values.begin(), c.values.end());
    row.push_back(c.cost);
    t.add_row(std::move(row));
    ++shown;
  }
  if (shown > 0) t.write(out);
  if (shown < d.config.size()) {
    out << "… and " << d.config.size() - shown
        << " more options differ (every one in --json and on the --html page)\n";
  }
}

}  // namespace kprof
