#include "unwind/unwinder.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/fd.h"
#include "perfabi/perf_record.h"
#include "perfabi/spool.h"
#include "symbolizer/elf_file.h"
#include "unwind/replay.h"

namespace kprof::unwind {

namespace {

struct DwflEnd {
  void operator()(Dwfl* d) const { dwfl_end(d); }
};
using DwflPtr = std::unique_ptr<Dwfl, DwflEnd>;

// DWARF register numbers of x86-64 (0-15; 16 is the return address) and the
// perf register each is read from.
constexpr unsigned kDwarfRegs = 16;
constexpr unsigned kPerfOfDwarf[kDwarfRegs] = {
    perfabi::kPerfRegAx,
    perfabi::kPerfRegDx,
    perfabi::kPerfRegCx,
    perfabi::kPerfRegBx,
    perfabi::kPerfRegSi,
    perfabi::kPerfRegDi,
    perfabi::kPerfRegBp,
    perfabi::kPerfRegSp,
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    perfabi::kPerfRegR15,
};

constexpr uint32_t kProtExec = 4;  // PROT_EXEC

// Whether `elf` has a section `name` with bytes in the file.
bool has_section(Elf* elf, const char* name) {
  size_t strndx = 0;
  if (elf_getshdrstrndx(elf, &strndx) != 0) return false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS || shdr.sh_size == 0) {
      continue;
    }
    const char* n = elf_strptr(elf, strndx, shdr.sh_name);
    if (n != nullptr && std::strcmp(n, name) == 0) return true;
  }
  return false;
}

struct Mapping {
  uint64_t end = 0, pgoff = 0;
  std::string filename, build_id;
};

bool is_file(const std::string& name) {
  return !name.empty() && name[0] == '/';
}

// What a mapping's file gives the unwinder: an fd libdwfl may own (a dup),
// the load bias, or why it cannot be used.
struct FileFacts {
  bool usable = false;
  bool has_eh_frame = false;  // a non-empty .eh_frame section
  std::string build_id;
  std::vector<symbolizer::LoadSegment> segments;
};

struct Process {
  std::map<uint64_t, Mapping> maps;  // by start
  DwflPtr dwfl;
  bool attached = false;
  std::set<uint64_t> reported;  // starts of the maps offered to `dwfl` (reported or refused)
  std::set<uint64_t> refused;   // of those, the ones whose file could not be used
  std::unordered_map<uint64_t, bool> cfi_at;  // pc looked up -> whether CFI covers it
  size_t opened = 0;                          // files `dwfl` holds open (one fd each)
  uint64_t last_use = 0;                      // when it last unwound (Impl::clock)
  void reset_session() {
    opened = 0;
    dwfl.reset();
    attached = false;
    reported.clear();
    refused.clear();
    cfi_at.clear();
  }
};

// One sample being unwound: what the libdwfl callbacks read.
struct Current {
  const Sample* sample = nullptr;
  uint64_t sp = 0, ip = 0;
  // A read past the end of the copied stack. libdwfl ends a stack
  // "normally" (return code 0, as at a thread's entry) when the registers it
  // needs cannot be read, so this, not its return code, tells the copy's end.
  bool beyond_copy = false;
  // A read failed in the current step (from the last frame to the next):
  // every later read of that step fails too. When CFI cannot be followed
  // for want of memory, libdwfl tries its frame-pointer guess next, and that
  // must not succeed on whatever the copy holds where rbp points.
  bool step_failed = false;
  bool stopped = false;
  UnwindStop stop = UnwindStop::Other;
  std::vector<uint64_t> frames;
  // Whether each frame's pc is where it was interrupted (the first, and the
  // one below a signal frame) rather than a return address: CFI is looked up
  // at a return address minus one, inside the call.
  std::vector<bool> activation;
};

}  // namespace

struct Unwinder::Impl {
  Impl(uint32_t stack_bytes, size_t max_open_files) : file_budget(max_open_files) {
    stats.stack_bytes = stack_bytes;
    if (file_budget == 0) {
      rlimit lim{};
      const rlim_t soft = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur : 1024;
      file_budget = std::max<size_t>(64, soft == RLIM_INFINITY ? 1u << 20 : soft / 2);
    }
  }

  UnwindStats stats;
  std::unordered_map<uint32_t, Process> procs;
  std::unordered_map<std::string, FileFacts> files;  // by path
  Fd vdso;                                           // a memfd holding this process's vDSO
  std::vector<symbolizer::LoadSegment> vdso_segments;
  bool vdso_tried = false;
  char* debuginfo_path = nullptr;  // libdwfl's default search path
  Dwfl_Callbacks callbacks{};
  Dwfl_Thread_Callbacks thread_callbacks{};
  Current cur;
  // Each session keeps an fd per file it reported: with -a, tens of
  // processes of tens of libraries each would pass RLIMIT_NOFILE, so the
  // least recently used sessions are closed (and made again when needed)
  // to stay within this many.
  size_t file_budget = 0;
  uint64_t clock = 0;
  void make_room(Process& p);
  std::deque<UnwoundStack> unwound;  // in the order of the samples, for replay()
  Replay replay{unwound};

  void init_callbacks();
  const FileFacts& facts(const std::string& path);
  bool load_vdso();
  void report(Process& p);
  bool has_cfi(Process& p, uint64_t pc);
  UnwindStop classify_error(Process& p, uint64_t pc);
  std::string image_at(const Process& p, uint64_t pc) const;
  std::vector<uint64_t> unwind(const Sample& s);
};

// ------------------------------------------------------------ libdwfl hooks

namespace {

pid_t next_thread(Dwfl*, void* arg, void** thread_arg) {
  if (*thread_arg != nullptr) return 0;
  *thread_arg = arg;
  return static_cast<pid_t>(static_cast<Current*>(arg)->sample->tid);
}

bool get_thread(Dwfl*, pid_t, void* arg, void** thread_arg) {
  *thread_arg = arg;
  return true;
}

// Only the copied stack is memory here: [sp, sp + copy size).
bool memory_read(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
  auto* c = static_cast<Current*>(arg);
  if (c->step_failed) return false;
  const std::vector<uint8_t>& stack = c->sample->user_stack;
  if (addr >= c->sp) {
    const uint64_t off = addr - c->sp;
    if (off <= stack.size() && stack.size() - off >= sizeof *result) {
      std::memcpy(result, stack.data() + off, sizeof *result);
      return true;
    }
    c->beyond_copy = true;
  }
  c->step_failed = true;
  return false;
}

// Separate debug files are looked for only for files without .eh_frame
// (marked through the module's userdata when reported): for the others
// .eh_frame is the CFI, and opening a debug file (libc6-dbg's, compressed)
// in every process's session cost more than all the unwinding.
int find_debuginfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                   const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                   char** debuginfo_file_name) {
  if (userdata == nullptr || *userdata == nullptr) return -1;
  return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                      debuglink_crc, debuginfo_file_name);
}

bool set_initial_registers(Dwfl_Thread* thread, void* arg) {
  auto* c = static_cast<Current*>(arg);
  for (unsigned reg = 0; reg < kDwarfRegs; ++reg) {
    const auto v = perfabi::user_reg(*c->sample, kPerfOfDwarf[reg]);
    if (!v) continue;  // not recorded: undefined to the unwinder
    const Dwarf_Word word = *v;
    if (!dwfl_thread_state_registers(thread, static_cast<int>(reg), 1, &word)) return false;
  }
  dwfl_thread_state_register_pc(thread, c->ip);
  return true;
}

int on_frame(Dwfl_Frame* state, void* arg);

}  // namespace

void Unwinder::Impl::init_callbacks() {
  callbacks.find_elf = dwfl_linux_proc_find_elf;  // not reached: files are reported by path
  callbacks.find_debuginfo = find_debuginfo;
  callbacks.debuginfo_path = &debuginfo_path;
  thread_callbacks.next_thread = next_thread;
  thread_callbacks.get_thread = get_thread;
  thread_callbacks.memory_read = memory_read;
  thread_callbacks.set_initial_registers = set_initial_registers;
}

// ------------------------------------------------------------ modules

const FileFacts& Unwinder::Impl::facts(const std::string& path) {
  auto [it, fresh] = files.try_emplace(path);
  if (!fresh) return it->second;
  std::string error;
  const symbolizer::ElfFile file = symbolizer::ElfFile::open(path, &error);
  if (file) {
    const symbolizer::ElfInfo info = symbolizer::read_elf_info(file.elf());
    it->second.usable = !info.segments.empty();
    it->second.build_id = info.build_id;
    it->second.segments = info.segments;
    it->second.has_eh_frame = has_section(file.elf(), ".eh_frame");
  }
  return it->second;
}

// This process's vDSO (the recording's, when unwinding on the boot that
// recorded), copied into a memfd libdwfl can read as a file.
bool Unwinder::Impl::load_vdso() {
  if (vdso_tried) return vdso.valid();
  vdso_tried = true;
  const auto base = static_cast<uintptr_t>(::getauxval(AT_SYSINFO_EHDR));
  if (base == 0) return false;
  // Its size: the end of its section headers (the image is mapped whole).
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  const auto* ehdr = reinterpret_cast<const Elf64_Ehdr*>(base);
  if (std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0) return false;
  const uint64_t size = ehdr->e_shoff + uint64_t{ehdr->e_shnum} * ehdr->e_shentsize;
  if (size == 0 || size > (1u << 20)) return false;
  Fd fd(::memfd_create("kprof-vdso", MFD_CLOEXEC));
  if (!fd.valid()) return false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(ehdr);
  if (::write(fd.get(), bytes, size) != static_cast<ssize_t>(size)) return false;
  std::string error;
  const symbolizer::ElfFile file = symbolizer::ElfFile::from_memory({bytes, size}, &error);
  if (!file) return false;
  vdso_segments = symbolizer::read_elf_info(file.elf()).segments;
  if (vdso_segments.empty()) return false;
  vdso = std::move(fd);
  return true;
}

// Reports the process's executable file mappings not yet offered to its
// session: each at its load bias, unless its file is gone or changed.
void Unwinder::Impl::report(Process& p) {
  if (!p.dwfl) {
    p.dwfl.reset(dwfl_begin(&callbacks));
    if (!p.dwfl) return;
  }
  bool any = false;
  for (const auto& [start, m] : p.maps) {
    if (p.reported.contains(start)) continue;
    if (!any) dwfl_report_begin_add(p.dwfl.get());
    any = true;
    p.reported.insert(start);
    int fd = -1;
    bool wants_debug_frame = false;
    const std::vector<symbolizer::LoadSegment>* segments = nullptr;
    if (m.filename == "[vdso]" && load_vdso()) {
      fd = ::dup(vdso.get());
      segments = &vdso_segments;
    } else if (is_file(m.filename)) {
      const FileFacts& f = facts(m.filename);
      wants_debug_frame = !f.has_eh_frame;
      if (f.usable && (m.build_id.empty() || f.build_id.empty() || m.build_id == f.build_id)) {
        segments = &f.segments;
      }
    } else {
      continue;  // anonymous memory: no file to read CFI from
    }
    const auto vaddr =
        segments ? symbolizer::file_offset_to_vaddr(*segments, m.pgoff) : std::optional<uint64_t>();
    if (!vaddr) {
      if (fd >= 0) ::close(fd);
      p.refused.insert(start);
      continue;
    }
    const uint64_t bias = start - *vaddr;
    const std::string name =
        m.filename == "[vdso]" ? "[vdso]" : std::filesystem::path(m.filename).filename().string();
    Dwfl_Module* mod =
        dwfl_report_elf(p.dwfl.get(), name.c_str(), m.filename.c_str(), fd, bias, true);
    if (mod == nullptr) {
      if (fd >= 0) ::close(fd);  // libdwfl owns it only once reported
      p.refused.insert(start);
      continue;
    }
    ++p.opened;
    if (wants_debug_frame) {
      void** userdata = nullptr;
      dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
      if (userdata != nullptr) *userdata = mod;  // non-null: find_debuginfo may look
    }
  }
  if (any) dwfl_report_end(p.dwfl.get(), nullptr, nullptr);
}

void Unwinder::Impl::make_room(Process& p) {
  size_t open = 0;
  for (const auto& [pid, q] : procs) open += q.opened;
  while (open + p.maps.size() > file_budget) {
    Process* oldest = nullptr;
    for (auto& [pid, q] : procs) {
      if (&q != &p && q.dwfl && (oldest == nullptr || q.last_use < oldest->last_use)) oldest = &q;
    }
    if (oldest == nullptr) return;
    open -= oldest->opened;
    oldest->reset_session();
  }
}

// Whether CFI (.eh_frame, else .debug_frame) covers `pc` in a reported
// module: a step from a frame without it is libdwfl's frame-pointer guess.
bool Unwinder::Impl::has_cfi(Process& p, uint64_t pc) {
  auto [it, fresh] = p.cfi_at.try_emplace(pc, false);
  if (!fresh) return it->second;
  Dwfl_Module* mod = dwfl_addrmodule(p.dwfl.get(), pc);
  if (mod == nullptr) return false;
  for (int debug = 0; debug < 2 && !it->second; ++debug) {
    Dwarf_Addr bias = 0;
    Dwarf_CFI* cfi = debug ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
    Dwarf_Frame* frame = nullptr;
    if (cfi != nullptr && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
      std::free(frame);
      it->second = true;
    }
  }
  return it->second;
}

// Why unwinding could not go on from the frame at `pc`.
UnwindStop Unwinder::Impl::classify_error(Process& p, uint64_t pc) {
  auto m = p.maps.upper_bound(pc);
  if (m == p.maps.begin() || pc >= std::prev(m)->second.end) return UnwindStop::NoImage;
  --m;
  if (!is_file(m->second.filename) && m->second.filename != "[vdso]") return UnwindStop::NoImage;
  if (p.refused.contains(m->first)) return UnwindStop::ImageChanged;
  if (!has_cfi(p, pc)) return UnwindStop::NoCfi;
  return UnwindStop::Other;
}

std::string Unwinder::Impl::image_at(const Process& p, uint64_t pc) const {
  auto m = p.maps.upper_bound(pc);
  if (m == p.maps.begin() || pc >= std::prev(m)->second.end) return "[anon]";
  const std::string& name = std::prev(m)->second.filename;
  return is_file(name) || name == "[vdso]" ? name : "[anon]";
}

namespace {

int on_frame(Dwfl_Frame* state, void* arg) {
  auto* c = static_cast<Current*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(state, &pc, &activation)) {
    c->stopped = true;
    c->stop = UnwindStop::Other;
    return DWARF_CB_ABORT;
  }
  if (c->frames.size() >= kUnwindMaxFrames) {
    c->stopped = true;
    c->stop = UnwindStop::Depth;
    return DWARF_CB_ABORT;
  }
  c->frames.push_back(pc);
  c->activation.push_back(activation);
  c->step_failed = false;  // the step to the next frame starts
  return DWARF_CB_OK;
}

}  // namespace

std::vector<uint64_t> Unwinder::Impl::unwind(const Sample& s) {
  const auto ip = perfabi::user_reg(s, perfabi::kPerfRegIp);
  const auto sp = perfabi::user_reg(s, perfabi::kPerfRegSp);
  Process& p = procs[s.pid];
  if (!ip || !sp) {
    stats.add("[unknown]", UnwindStop::Other);
    return ip ? std::vector<uint64_t>{*ip} : std::vector<uint64_t>{};
  }
  p.last_use = ++clock;
  if (!p.dwfl) make_room(p);
  report(p);
  cur = Current{};
  cur.sample = &s;
  cur.ip = *ip;
  cur.sp = *sp;
  if (p.dwfl && !p.attached) {
    p.attached = dwfl_attach_state(p.dwfl.get(), nullptr, static_cast<pid_t>(s.pid),
                                   &thread_callbacks, &cur);
  }
  if (!p.attached) {
    stats.add(image_at(p, *ip), classify_error(p, *ip));
    return {*ip};
  }
  // Frames are taken one at a time (on_frame) and checked here: a frame is
  // kept only when the frame below it had CFI, so libdwfl's frame-pointer
  // fallback never makes a caller up.
  const int rc = dwfl_getthread_frames(p.dwfl.get(), static_cast<pid_t>(s.tid), on_frame, &cur);
  std::vector<uint64_t>& frames = cur.frames;
  if (frames.empty()) {
    frames.push_back(*ip);
    cur.activation.push_back(true);
  }
  auto lookup_pc = [&](size_t i) { return cur.activation[i] ? frames[i] : frames[i] - 1; };
  size_t keep = 1;
  while (keep < frames.size() && has_cfi(p, lookup_pc(keep - 1))) ++keep;
  UnwindStop stop;
  const uint64_t stop_pc = frames[keep - 1];
  if (keep < frames.size()) {
    stop = classify_error(p, lookup_pc(keep - 1));
    if (stop == UnwindStop::Other) stop = UnwindStop::NoCfi;
    frames.resize(keep);
  } else {
    const uint64_t lookup = lookup_pc(keep - 1);
    // The frame's own standing first: with no file or no CFI for it, a
    // failed read was libdwfl's frame-pointer guess, not the copy's end.
    const UnwindStop here = classify_error(p, lookup);
    if (cur.stopped) {
      stop = cur.stop;
    } else if (here != UnwindStop::Other) {
      stop = here;
    } else if (cur.beyond_copy) {
      stop = UnwindStop::StackCopy;
    } else {
      stop = rc == 0 ? UnwindStop::Entry : UnwindStop::Other;
    }
  }
  stats.add(image_at(p, stop_pc), stop);
  return std::move(frames);
}

// ------------------------------------------------------------ the sink

Unwinder::Unwinder(RecordSink& next, uint32_t stack_bytes, size_t max_open_files)
    : ForwardingSink(next), impl_(std::make_unique<Impl>(stack_bytes, max_open_files)) {
  impl_->init_callbacks();
}

Unwinder::~Unwinder() = default;

void Unwinder::on_sample(const Sample& s) {
  if (s.user_regs.empty() && s.user_stack.empty()) {
    next_.on_sample(s);
    return;
  }
  Sample out = without_copy(s);
  std::vector<uint64_t> frames = impl_->unwind(s);
  set_user_frames(out, frames);
  impl_->unwound.push_back({s.time, s.tid, std::move(frames)});
  next_.on_sample(out);
}

void Unwinder::on_mmap(const Mmap& m) {
  if ((m.prot & kProtExec) != 0 && m.len != 0) {
    Process& p = impl_->procs[m.pid];
    const uint64_t end = m.start + m.len;
    // A new mapping replaces what it overlaps; a session that read a
    // replaced file starts again.
    auto it = p.maps.lower_bound(m.start);
    if (it != p.maps.begin() && std::prev(it)->second.end > m.start) --it;
    bool stale = false;
    while (it != p.maps.end() && it->first < end) {
      stale = stale || p.reported.contains(it->first);
      it = p.maps.erase(it);
    }
    if (stale) p.reset_session();
    p.maps[m.start] = Mapping{end, m.pgoff, m.filename, m.build_id};
  }
  next_.on_mmap(m);
}

void Unwinder::on_comm(const Comm& c) {
  if (c.exec) {
    // The new image's mappings follow the exec's COMM.
    Process& p = impl_->procs[c.pid];
    p.maps.clear();
    p.reset_session();
  }
  next_.on_comm(c);
}

void Unwinder::on_fork(const Fork& f) {
  if (f.pid != f.ppid) {
    auto parent = impl_->procs.find(f.ppid);
    Process& child = impl_->procs[f.pid];
    child.reset_session();
    child.maps = parent != impl_->procs.end() ? parent->second.maps : std::map<uint64_t, Mapping>{};
  }
  next_.on_fork(f);
}

void Unwinder::on_exit(const Fork& f) {
  if (f.pid == f.tid) impl_->procs.erase(f.pid);  // its session's files close
  next_.on_exit(f);
}

const UnwindStats& Unwinder::stats() const {
  return impl_->stats;
}

const PerfRecordsDecoder& Unwinder::replay() const {
  return impl_->replay;
}

}  // namespace kprof::unwind
