#include "collector/environment.h"

#include <dirent.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "collector/procfs.h"
#include "core/error.h"

namespace kprof::collector {
namespace {

// A kernel configuration is ~250 KB; beyond this a file is not one.
constexpr size_t kMaxConfigBytes = 8u << 20;
constexpr size_t kMaxFactBytes = 4096;

// The sysctls that move scheduler and VM costs, each with why it is here.
struct Sysctl {
  const char* name;  // under /proc/sys, dots for slashes
  const char* why;
};
constexpr Sysctl kSysctls[] = {
    {"kernel.sched_autogroup_enabled", "groups tasks by session: changes who runs when"},
    {"kernel.sched_rt_runtime_us", "RT throttling: how long RT tasks may run per period"},
    {"kernel.numa_balancing", "page migration and hinting faults on NUMA machines"},
    {"kernel.randomize_va_space", "ASLR: address layout, cache and TLB behaviour"},
    {"kernel.timer_migration", "where timers fire: wakeups of idle CPUs"},
    {"kernel.perf_event_paranoid", "what sampling may see (kernel frames, other users)"},
    {"kernel.watchdog", "the NMI/soft lockup watchdog's periodic work"},
    {"vm.swappiness", "reclaim: anonymous against file pages"},
    {"vm.overcommit_memory", "allocation policy"},
    {"vm.dirty_ratio", "when writers are throttled to write back"},
    {"vm.dirty_background_ratio", "when background writeback starts"},
    {"vm.zone_reclaim_mode", "reclaim on the local node before allocating remotely"},
    {"vm.compaction_proactiveness", "background compaction work"},
};

// CPU flags that change what cycles buy, or what the kernel does per entry.
constexpr const char* kCpuFlags[] = {
    "constant_tsc", "nonstop_tsc", "tsc_known_freq", "pcid",          "invpcid", "smep",
    "smap",         "pti",         "ibrs",           "ibrs_enhanced", "ibpb",    "stibp",
    "ssbd",         "md_clear",    "flush_l1d",      "erms",          "fsrm",    "avx2",
    "avx512f",      "la57",        "hypervisor",     "x2apic",        "pdpe1gb",
};

std::string trim(std::string s) {
  auto blank = [](char c) { return c == '\n' || c == ' ' || c == '\t' || c == '\0' || c == '\r'; };
  while (!s.empty() && blank(s.back())) s.pop_back();
  size_t start = 0;
  while (start < s.size() && blank(s[start])) ++start;
  return s.substr(start);
}

// Printable, one line: what a fact's value may hold.
std::string printable(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return s;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// "always [madvise] never" -> "madvise"
std::string bracketed(const std::string& s) {
  const size_t open = s.find('['), close = s.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return s;
  return s.substr(open + 1, close - open - 1);
}

class Reader {
 public:
  explicit Reader(std::string root) : root_(std::move(root)) {}

  void fact(std::string key, std::string value, std::string source) {
    env.facts.push_back({std::move(key), printable(std::move(value)), std::move(source), true});
  }
  void missing(std::string key, std::string why) {
    env.facts.push_back({std::move(key), "", std::move(why), false});
  }
  // A one-line file: its trimmed text as the fact, or "not available".
  void file_fact(const std::string& key, const std::string& path,
                 std::string (*shape)(const std::string&) = nullptr) {
    const std::string text = trim(read(path, kMaxFactBytes));
    if (text.empty()) {
      missing(key, path + ": not available");
      return;
    }
    fact(key, shape ? shape(text) : text, path);
  }
  std::string read(const std::string& path, size_t max = kMaxFactBytes) const {
    return read_text_file(root_ + path, max);
  }
  const std::string& root() const { return root_; }

  Environment env;

 private:
  std::string root_;
};

// Whole gzip file, at most `max` bytes of text; throws kprof::Error.
std::string gunzip_file(const std::string& path, size_t max) {
  gzFile f = ::gzopen(path.c_str(), "rb");
  if (f == nullptr) throw Error("cannot open");
  std::string out;
  char buf[64 << 10];
  for (;;) {
    const int n = ::gzread(f, buf, sizeof buf);
    if (n < 0) {
      ::gzclose(f);
      throw Error("not a readable gzip file");
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max) {
      ::gzclose(f);
      throw Error("larger than " + std::to_string(max >> 20) + " MB: not a kernel configuration");
    }
  }
  int err = Z_OK;
  ::gzerror(f, &err);
  const bool truncated = err != Z_OK && err != Z_STREAM_END;
  ::gzclose(f);
  if (truncated) throw Error("a truncated or damaged gzip file");
  return out;
}

void read_config(Reader& r, const EnvironmentOptions& o, const std::string& release) {
  std::vector<std::string> tried;
  // A --kernel-config file that did not do is said beside what was recorded instead.
  const bool asked = !o.kernel_config.empty();
  auto try_text = [&](const std::string& shown, const std::string& text) {
    try {
      r.env.config = parse_kernel_config(text);
      r.env.config_source = shown;
      if (asked && shown != o.kernel_config) r.env.config_source += " (not " + tried.front() + ")";
      return true;
    } catch (const Error& e) {
      tried.push_back(shown + ": " + e.what());
      return false;
    }
  };
  auto try_plain = [&](const std::string& path, const std::string& shown) {
    const std::string text = read_text_file(path, kMaxConfigBytes + 1);
    if (text.empty()) {
      tried.push_back(shown + ": not readable");
      return false;
    }
    if (text.size() > kMaxConfigBytes) {
      tried.push_back(shown + ": larger than 8 MB, not a kernel configuration");
      return false;
    }
    // A gzip file given by name (config.gz copied elsewhere).
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
        static_cast<unsigned char>(text[1]) == 0x8b) {
      try {
        return try_text(shown, gunzip_file(path, kMaxConfigBytes));
      } catch (const Error& e) {
        tried.push_back(shown + ": " + e.what());
        return false;
      }
    }
    return try_text(shown, text);
  };
  if (asked && try_plain(o.kernel_config, o.kernel_config)) return;
  const std::string proc = r.root() + "/proc/config.gz";
  if (::access(proc.c_str(), R_OK) == 0) {
    try {
      if (try_text("/proc/config.gz", gunzip_file(proc, kMaxConfigBytes))) return;
    } catch (const Error& e) {
      tried.push_back("/proc/config.gz: " + std::string(e.what()));
    }
  } else {
    tried.push_back("/proc/config.gz: absent");
  }
  const std::string boot = "/boot/config-" + release;
  if (try_plain(r.root() + boot, boot)) return;
  std::string why;
  for (const std::string& t : tried) why += (why.empty() ? "" : "; ") + t;
  r.env.config_source = "not available (" + why + ")";
}

// The preemption model: from the configuration, and for a dynamic one the
// model in use (debugfs, where readable).
void read_preemption(Reader& r) {
  const auto& c = r.env.config;
  auto on = [&](const char* name) {
    auto it = c.find(name);
    return it != c.end() && it->second == "y";
  };
  if (c.empty()) {
    r.missing("kernel.preempt", "no kernel configuration");
  } else {
    std::string model = on("PREEMPT_RT")          ? "rt"
                        : on("PREEMPT")           ? "full"
                        : on("PREEMPT_VOLUNTARY") ? "voluntary"
                        : on("PREEMPT_NONE")      ? "none"
                                                  : "unknown";
    if (on("PREEMPT_DYNAMIC")) {
      const std::string now = trim(r.read("/sys/kernel/debug/sched/preempt"));
      model += now.empty() ? " (dynamic; the model in use not readable)"
                           : " (dynamic, in use: " + bracketed(now) + ")";
    }
    r.fact("kernel.preempt", model, "kernel configuration");
  }
  if (auto hz = c.find("HZ"); hz != c.end()) {
    r.fact("kernel.hz", hz->second, "kernel configuration");
  } else {
    r.missing("kernel.hz", "no CONFIG_HZ in the configuration");
  }
  if (!c.empty()) {
    r.fact("kernel.nohz",
           on("NO_HZ_FULL")    ? "full"
           : on("NO_HZ_IDLE")  ? "idle"
           : on("HZ_PERIODIC") ? "periodic"
                               : "unknown",
           "kernel configuration");
  }
}

void read_cpu(Reader& r) {
  const std::string info = r.read("/proc/cpuinfo", 1u << 20);
  std::map<std::string, std::string> first;  // the first processor's fields
  for (size_t pos = 0; pos < info.size();) {
    size_t nl = info.find('\n', pos);
    if (nl == std::string::npos) nl = info.size();
    const std::string_view line(info.data() + pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) break;  // the end of the first processor
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    first[trim(std::string(line.substr(0, colon)))] = trim(std::string(line.substr(colon + 1)));
  }
  auto field = [&](const char* name) {
    auto it = first.find(name);
    return it == first.end() ? std::string() : it->second;
  };
  if (first.empty()) {
    r.missing("cpu.model", "/proc/cpuinfo: not available");
  } else {
    r.fact("cpu.model", field("model name"), "/proc/cpuinfo");
    r.fact("cpu.family_model_stepping",
           field("cpu family") + "/" + field("model") + "/" + field("stepping"), "/proc/cpuinfo");
    if (std::string mc = field("microcode"); !mc.empty()) {
      r.fact("cpu.microcode", mc, "/proc/cpuinfo");
    } else {
      r.missing("cpu.microcode", "/proc/cpuinfo: no microcode field");
    }
    std::set<std::string> flags;
    const std::string all = field("flags");
    for (size_t p = 0; p < all.size();) {
      size_t sp = all.find(' ', p);
      if (sp == std::string::npos) sp = all.size();
      if (sp > p) flags.insert(all.substr(p, sp - p));
      p = sp + 1;
    }
    std::string shown;
    for (const char* f : kCpuFlags) {
      if (flags.contains(f)) shown += (shown.empty() ? "" : " ") + std::string(f);
    }
    r.fact("cpu.flags", shown, "/proc/cpuinfo (flags that matter for cycles)");
    std::string rest;
    for (const std::string& f : flags) rest += f + " ";
    r.fact("cpu.flags_digest", hex64(fnv1a(rest)) + " (" + std::to_string(flags.size()) + " flags)",
           "/proc/cpuinfo");
    if (flags.contains("hypervisor")) {
      std::string vendor = trim(r.read("/sys/class/dmi/id/sys_vendor"));
      const std::string product = trim(r.read("/sys/class/dmi/id/product_name"));
      if (!product.empty()) vendor += (vendor.empty() ? "" : " ") + product;
      r.fact("cpu.hypervisor", vendor.empty() ? "yes" : vendor, "cpuinfo flags, DMI");
    } else {
      r.fact("cpu.hypervisor", "none", "cpuinfo flags");
    }
  }
  const std::string vdir = "/sys/devices/system/cpu/vulnerabilities";
  std::vector<std::string> names;
  if (DIR* d = ::opendir((r.root() + vdir).c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) r.missing("cpu.vulnerabilities", vdir + ": not available");
  for (const std::string& n : names) r.file_fact("cpu.vulnerabilities." + n, vdir + "/" + n);
  r.file_fact("cpu.smt", "/sys/devices/system/cpu/smt/active");
  r.file_fact("cpu.online", "/sys/devices/system/cpu/online");
  r.file_fact("numa.nodes", "/sys/devices/system/node/online");
}

// cpufreq per CPU: the distinct values ("schedutil x2, performance x2").
void read_cpufreq(Reader& r, const char* what) {
  std::map<std::string, int> seen;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    if (::access((r.root() + dir).c_str(), F_OK) != 0) break;
    const std::string v = trim(r.read(dir + "/cpufreq/scaling_" + what));
    ++seen[v.empty() ? "none" : v];
  }
  std::string value;
  for (const auto& [v, n] : seen) {
    value += (value.empty() ? "" : ", ") + v + (seen.size() > 1 ? " x" + std::to_string(n) : "");
  }
  if (value.empty()) {
    r.missing(std::string("cpufreq.") + what, "/sys/devices/system/cpu: not available");
  } else {
    r.fact(std::string("cpufreq.") + what, value, "/sys/devices/system/cpu/cpu*/cpufreq");
  }
}

void read_system(Reader& r) {
  r.file_fact("clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
  read_cpufreq(r, "driver");
  read_cpufreq(r, "governor");
  r.file_fact("cpuidle.driver", "/sys/devices/system/cpu/cpuidle/current_driver");
  r.file_fact("cpuidle.governor", "/sys/devices/system/cpu/cpuidle/current_governor_ro");
  r.file_fact("thp.enabled", "/sys/kernel/mm/transparent_hugepage/enabled",
              [](const std::string& s) { return bracketed(s); });
  r.file_fact("thp.defrag", "/sys/kernel/mm/transparent_hugepage/defrag",
              [](const std::string& s) { return bracketed(s); });
  const std::string meminfo = r.read("/proc/meminfo", 64 << 10);
  if (const size_t at = meminfo.find("MemTotal:"); at != std::string::npos) {
    r.fact("memory.total", trim(meminfo.substr(at + 9, meminfo.find('\n', at) - at - 9)),
           "/proc/meminfo");
  } else {
    r.missing("memory.total", "/proc/meminfo: not available");
  }
  for (const Sysctl& s : kSysctls) {
    std::string path = "/proc/sys/" + std::string(s.name);
    std::replace(path.begin() + 10, path.end(), '.', '/');
    r.file_fact(std::string("sysctl.") + s.name, path);
  }
  // The loaded modules: their names, sorted, as a digest and a count.
  const std::string modules = r.read("/proc/modules", 4u << 20);
  std::vector<std::string> names;
  for (size_t p = 0; p < modules.size();) {
    size_t nl = modules.find('\n', p);
    if (nl == std::string::npos) nl = modules.size();
    const size_t sp = modules.find(' ', p);
    if (sp > p && sp < nl) names.push_back(modules.substr(p, sp - p));
    p = nl + 1;
  }
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const std::string& n : names) joined += n + "\n";
  if (modules.empty()) {
    r.missing("modules", "/proc/modules: not available (a kernel without modules?)");
  } else {
    r.fact("modules", std::to_string(names.size()) + " loaded, digest " + hex64(fnv1a(joined)),
           "/proc/modules");
  }
}

}  // namespace

Environment read_environment(const EnvironmentOptions& options) {
  Reader r(options.root);
  std::string release;
  if (options.root.empty()) {
    release = kernel_release();
  } else {
    release = trim(r.read("/proc/sys/kernel/osrelease"));
  }
  read_config(r, options, release);
  r.file_fact("kernel.version", "/proc/version");
  r.file_fact("kernel.cmdline", "/proc/cmdline");
  read_preemption(r);
  read_cpu(r);
  read_system(r);
  return std::move(r.env);
}

std::string config_notice(const Environment& env) {
  if (!env.config.empty()) {
    if (const size_t at = env.config_source.find(" (not "); at != std::string::npos) {
      return "kernel configuration from " + env.config_source.substr(0, at) + ", " +
             env.config_source.substr(at + 2, env.config_source.size() - at - 3);
    }
    return "";
  }
  return "kernel configuration not recorded: " + env.config_source +
         "; kprof record --kernel-config FILE records it";
}

}  // namespace kprof::collector
