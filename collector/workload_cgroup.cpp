#include "collector/workload_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <sstream>

#include "collector/procfs.h"
#include "core/error.h"

namespace kprof::collector {

namespace {

// Writes `text` to an existing file; "" or strerror.
std::string write_file(const std::string& path, const std::string& text) {
  const Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return std::strerror(errno);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return std::strerror(errno);
  }
  return "";
}

// Removes kprof-PID cgroups in `parent` whose kprof is gone (killed before
// it could remove its own): they hold no task by then, or rmdir refuses.
void remove_stale(const std::string& parent) {
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(parent.c_str()), ::closedir);
  if (!dir) return;
  while (const dirent* e = ::readdir(dir.get())) {
    const std::string name = e->d_name;
    if (!name.starts_with("kprof-") || name.size() == 6 ||
        name.find_first_not_of("0123456789", 6) != std::string::npos) {
      continue;
    }
    const std::string pid = name.substr(6);
    if (::access(("/proc/" + pid).c_str(), F_OK) != 0) ::rmdir((parent + "/" + name).c_str());
  }
}

}  // namespace

std::string cgroup2_mount(const std::string& mounts) {
  std::istringstream in(mounts);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string dev, dir, type;
    if (f >> dev >> dir >> type && type == "cgroup2" && dir.find('\\') == std::string::npos) {
      return dir;
    }
  }
  return "";
}

std::string own_cgroup2(const std::string& proc_self_cgroup) {
  std::istringstream in(proc_self_cgroup);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("0::/")) return line.size() == 4 ? "" : line.substr(3);
  }
  return "";
}

std::optional<WorkloadCgroup> WorkloadCgroup::create(std::string* why) {
  const std::string mount = cgroup2_mount(read_text_file("/proc/self/mounts"));
  if (mount.empty()) {
    *why = "no cgroup2 hierarchy is mounted";
    return std::nullopt;
  }
  const std::string parent = mount + own_cgroup2(read_text_file("/proc/self/cgroup"));
  remove_stale(parent);
  const std::string path = parent + "/kprof-" + std::to_string(::getpid());
  if (::mkdir(path.c_str(), 0755) != 0) {
    *why = errno_message("cannot make cgroup " + path, errno);
    return std::nullopt;
  }
  Fd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    *why = errno_message("cannot open cgroup " + path, errno);
    ::rmdir(path.c_str());
    return std::nullopt;
  }
  return WorkloadCgroup(path, parent, std::move(dir));
}

WorkloadCgroup::WorkloadCgroup(WorkloadCgroup&& o) noexcept
    : path_(std::exchange(o.path_, {})), parent_(std::move(o.parent_)), dir_(std::move(o.dir_)) {}

WorkloadCgroup::~WorkloadCgroup() {
  if (path_.empty()) return;
  // Tasks the workload left running go back where kprof is; then it is empty.
  for (int round = 0; round < 3; ++round) {
    bool any = false;
    for (pid_t pid : pids()) {
      any = write_file(parent_ + "/cgroup.procs", std::to_string(pid) + "\n").empty() || any;
    }
    if (!any) break;
  }
  ::rmdir(path_.c_str());
}

std::vector<pid_t> parse_cgroup_procs(const std::string& text) {
  std::vector<pid_t> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), pid);
    if (ec == std::errc() && end == line.data() + line.size() && pid > 0) out.push_back(pid);
  }
  return out;
}

std::vector<pid_t> WorkloadCgroup::pids() const {
  return parse_cgroup_procs(read_text_file(path_ + "/cgroup.procs"));
}

std::string WorkloadCgroup::add(pid_t pid) const {
  const std::string err = write_file(path_ + "/cgroup.procs", std::to_string(pid) + "\n");
  return err.empty() ? "" : "cannot move the workload into cgroup " + path_ + ": " + err;
}

}  // namespace kprof::collector
