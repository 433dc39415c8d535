#include "collector/procfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <fstream>
#include <sstream>

#include "collector/perf_event.h"
#include "core/bytes.h"
#include "core/error.h"

namespace kprof::collector {

namespace {

// Splits off the next space-separated token of `line`.
std::string_view next_token(std::string_view& line) {
  size_t b = line.find_first_not_of(' ');
  if (b == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(b);
  size_t e = line.find(' ');
  std::string_view tok = line.substr(0, e);
  line.remove_prefix(e == std::string_view::npos ? line.size() : e);
  return tok;
}

bool parse_hex(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool parse_dec(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

template <typename Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

}  // namespace

std::vector<Mmap> parse_proc_maps(std::string_view text, uint32_t pid, uint64_t time) {
  std::vector<Mmap> out;
  for_each_line(text, [&](std::string_view line) {
    std::string_view range = next_token(line), perms = next_token(line), offset = next_token(line),
                     dev = next_token(line), inode = next_token(line);
    size_t dash = range.find('-');
    uint64_t start, end, pgoff, ino;
    if (dash == std::string_view::npos || perms.size() < 4 || dev.empty() ||
        !parse_hex(range.substr(0, dash), start) || !parse_hex(range.substr(dash + 1), end) ||
        end < start || !parse_hex(offset, pgoff) || !parse_dec(inode, ino)) {
      return;
    }
    size_t name_at = line.find_first_not_of(' ');
    std::string_view name = name_at == std::string_view::npos ? "" : line.substr(name_at);
    Mmap m;
    m.time = time;
    m.pid = m.tid = pid;
    m.start = start;
    m.len = end - start;
    m.pgoff = pgoff;
    m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
             (perms[2] == 'x' ? PROT_EXEC : 0);
    m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
    m.filename = name.empty() ? "//anon" : std::string(name);
    out.push_back(std::move(m));
  });
  return out;
}

ProcStat parse_proc_stat(std::string_view text, uint64_t time_ns) {
  ProcStat s;
  s.time_ns = time_ns;
  for_each_line(text, [&](std::string_view line) {
    std::string_view key = next_token(line);
    uint64_t v[8] = {};
    for (uint64_t& x : v) {
      std::string_view tok = next_token(line);
      if (tok.empty() || !parse_dec(tok, x)) break;
    }
    if (key == "cpu") {
      s.user = v[0], s.nice = v[1], s.system = v[2], s.idle = v[3], s.iowait = v[4];
      s.irq = v[5], s.softirq = v[6], s.steal = v[7];
    } else if (key == "intr") {
      s.intr = v[0];
    } else if (key == "ctxt") {
      s.ctxt = v[0];
    }
  });
  return s;
}

std::string build_id_from_notes(std::span<const uint8_t> notes) {
  ByteReader r(notes, "kernel notes");
  auto pad4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
  try {
    while (r.left() >= 12) {
      uint64_t namesz = r.u32(), descsz = r.u32();
      uint32_t type = r.u32();
      if (pad4(namesz) > r.left()) break;
      auto name = r.raw(pad4(namesz));
      if (pad4(descsz) > r.left()) break;
      auto desc = r.raw(pad4(descsz)).first(descsz);
      bool gnu = namesz == 4 && std::equal(name.begin(), name.begin() + 4, "GNU");
      if (type == 3 && gnu) {
        return hex_bytes(desc);
      }
    }
  } catch (const Error&) {
  }
  return "";
}

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> out;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    size_t dash = part.find('-');
    uint64_t a, b;
    if (!parse_dec(part.substr(0, dash), a)) continue;
    b = a;
    if (dash != std::string_view::npos && !parse_dec(part.substr(dash + 1), b)) continue;
    if (b < a || b >= 65536) continue;
    for (uint64_t c = a; c <= b; ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

std::string cpu_model_from_cpuinfo(std::string_view text) {
  std::string model;
  for_each_line(text, [&](std::string_view line) {
    if (!model.empty() || !line.starts_with("model name")) return;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view v = line.substr(colon + 1);
    size_t b = v.find_first_not_of(" \t");
    if (b != std::string_view::npos) model = std::string(v.substr(b));
  });
  return model;
}

// ---------------------------------------------------------------- readers

std::string read_text_file(const std::string& path, size_t max_bytes) {
  // Large reads: /proc files are generated per read() call, and kallsyms is
  // megabytes, so small stream-buffer reads cost system time. They grow from
  // 16 KiB: a small file (/sys/kernel/notes, read by every reading command)
  // does not pay for zeroing 256 KiB of fresh pages (~64 page faults).
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return "";
  std::string out;
  constexpr size_t kMaxStep = 256 << 10;
  size_t next = 16 << 10;
  while (out.size() < max_bytes) {
    const size_t old = out.size();
    const size_t step = std::min(next, max_bytes - old);
    next = std::min(2 * next, kMaxStep);
    out.resize(old + step);
    const ssize_t n = ::read(fd.get(), out.data() + old, step);
    if (n <= 0) {
      out.resize(old);
      if (n < 0 && errno == EINTR) continue;
      break;
    }
    out.resize(old + static_cast<size_t>(n));
  }
  return out;
}

static uint64_t clock_ns(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t monotonic_ns() {
  return clock_ns(CLOCK_MONOTONIC);
}
uint64_t realtime_ns() {
  return clock_ns(CLOCK_REALTIME);
}

ProcStat read_proc_stat() {
  return parse_proc_stat(read_text_file("/proc/stat"), monotonic_ns());
}
std::string read_kallsyms() {
  return read_text_file("/proc/kallsyms");
}
std::string read_modules() {
  return read_text_file("/proc/modules");
}

std::string kernel_build_id() {
  std::string notes = read_text_file("/sys/kernel/notes");
  return build_id_from_notes(bytes_of(notes));
}

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? u.release : "";
}

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

std::string cpu_model() {
  return cpu_model_from_cpuinfo(read_text_file("/proc/cpuinfo"));
}

uint32_t online_cpus() {
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<uint32_t>(n) : 1;
}

std::vector<int> online_cpu_list() {
  std::vector<int> cpus = parse_cpu_list(read_text_file("/sys/devices/system/cpu/online"));
  if (cpus.empty()) {
    for (uint32_t c = 0; c < online_cpus(); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

static int read_int(const std::string& path, int fallback) {
  std::string s = read_text_file(path);
  int v = fallback;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  (void)p;
  return ec == std::errc() ? v : fallback;
}

int perf_event_paranoid() {
  return read_int("/proc/sys/kernel/perf_event_paranoid", 2);
}
int kptr_restrict() {
  return read_int("/proc/sys/kernel/kptr_restrict", 0);
}
int perf_event_max_sample_rate() {
  return read_int("/proc/sys/kernel/perf_event_max_sample_rate", 0);
}

static std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    uint64_t v;
    std::string_view name(e->d_name);
    if (parse_dec(name, v) && v <= INT32_MAX) out.push_back(static_cast<pid_t>(v));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<pid_t> list_pids() {
  return numeric_entries("/proc");
}
std::vector<pid_t> list_threads(pid_t pid) {
  return numeric_entries("/proc/" + std::to_string(pid) + "/task");
}

std::string process_comm(pid_t pid) {
  std::string s = read_text_file("/proc/" + std::to_string(pid) + "/comm");
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace kprof::collector
