#include "collector/tracefs.h"

#include <sys/mount.h>
#include <unistd.h>

#include <fstream>

namespace kprof::collector {
namespace {

constexpr const char* kTracefs = "/sys/kernel/tracing";

bool mounted_as(const std::string& dir, const std::string& fstype) {
  std::ifstream mounts("/proc/mounts");
  std::string dev, point, type;
  std::string rest;
  while (mounts >> dev >> point >> type && std::getline(mounts, rest)) {
    if (point == dir && type == fstype) return true;
  }
  return false;
}

}  // namespace

std::string find_tracefs(bool* mounted) {
  *mounted = false;
  if (mounted_as(kTracefs, "tracefs")) return kTracefs;
  if (mounted_as("/sys/kernel/debug/tracing", "tracefs")) return "/sys/kernel/debug/tracing";
  if (::geteuid() == 0 && ::mount("nodev", kTracefs, "tracefs", 0, nullptr) == 0) {
    *mounted = true;
    return kTracefs;
  }
  return "";
}

std::optional<uint64_t> tracepoint_id(const std::string& tracefs, const std::string& subsystem,
                                      const std::string& event) {
  std::ifstream in(tracefs + "/events/" + subsystem + "/" + event + "/id");
  uint64_t id = 0;
  if (!(in >> id)) return std::nullopt;
  return id;
}

}  // namespace kprof::collector
