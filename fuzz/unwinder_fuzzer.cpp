// Fuzzes the DWARF unwinder (unwind/unwinder.h) with untrusted registers and
// stack copies, as a --call-graph dwarf file's samples carry them, over this
// process's own mappings (real CFI to follow). Input: one flags byte, 17
// registers (perf's kDwarfUserRegs order, 8 bytes each, missing ones 0), then
// the stack copy. Flag bit 0 moves the IP into this program's text (offset
// modulo its size); stack words whose top 16 bits are 0xaaaa become
// addresses in that text (their low 32 bits as the offset), so the fuzzer
// reaches real frames and their CFI rather than only unmapped garbage.
// Checks: the IP always leads the chain, which never passes the frame limit,
// and every sample leaves without its copy.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "collector/procfs.h"
#include "perfabi/perf_record.h"
#include "unwind/unwinder.h"

namespace {

struct Keep : kprof::RecordSink {
  void on_sample(const kprof::Sample& s) override { last = s; }
  kprof::Sample last;
};

struct Self {
  std::vector<kprof::Mmap> maps;
  uint64_t text_start = 0, text_len = 1;
  Self() {
    std::ifstream f("/proc/self/maps");
    std::stringstream text;
    text << f.rdbuf();
    maps = kprof::collector::parse_proc_maps(text.str(), static_cast<uint32_t>(::getpid()), 0);
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    const std::string path = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "";
    for (const kprof::Mmap& m : maps) {
      if (m.filename == path && (m.prot & 4) && m.len > text_len) {
        text_start = m.start;
        text_len = m.len;
      }
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Self self;
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  ++data, --size;
  kprof::Sample s;
  s.pid = static_cast<uint32_t>(::getpid());
  s.tid = s.pid;
  s.user_regs_mask = kprof::perfabi::kDwarfUserRegs;
  s.user_regs.assign(17, 0);
  const size_t reg_bytes = std::min<size_t>(size, 17 * 8);
  std::memcpy(s.user_regs.data(), data, reg_bytes);
  if (flags & 1) s.user_regs[8] = self.text_start + s.user_regs[8] % self.text_len;
  s.user_stack.assign(data + reg_bytes, data + size);
  for (size_t k = 0; k + 8 <= s.user_stack.size(); k += 8) {
    uint64_t w;
    std::memcpy(&w, s.user_stack.data() + k, 8);
    if ((w >> 48) == 0xaaaa) {
      w = self.text_start + (w & 0xffffffffu) % self.text_len;
      std::memcpy(s.user_stack.data() + k, &w, 8);
    }
  }
  s.ip = s.user_regs[8];
  s.callchain = {s.ip};
  Keep out;
  kprof::unwind::Unwinder u(out, 65536);
  for (const kprof::Mmap& m : self.maps) u.on_mmap(m);
  u.on_sample(s);
  const kprof::Sample& r = out.last;
  if (r.callchain.empty() || r.callchain[0] != s.user_regs[8]) __builtin_trap();
  if (r.callchain.size() > kprof::unwind::kUnwindMaxFrames) __builtin_trap();
  if (!r.user_stack.empty() || u.stats().total() != 1) __builtin_trap();
  return 0;
}
