// Kernel text at a sampled address, read from /proc/kcore, and whether the
// bytes before that address re-enable interrupts (issue 12). The kernel's
// code, read as the symbolizer reads ELF files: finish.h marks a profile's
// skid peaks with it when recording ends (and in kprof symbolize on the
// boot the profile was recorded on).
//
// Without a hardware PMU kprof samples cpu-clock, an hrtimer whose interrupt
// cannot fire while interrupts are off: that time is charged to the first
// instruction at which the pending interrupt is taken once they are enabled
// again. To tell such an address from real work there, kprof (as root, while
// the addresses are this boot's) reads the kernel's text before the sampled ip.
//
// /proc/kcore is an ELF64 core image (ET_CORE) of kernel memory: each PT_LOAD
// program header maps p_filesz bytes of kernel virtual memory at p_vaddr to
// the file offset p_offset. KernelMemory reads only its header (the ELF header
// and the program headers, with pread, bounds-checked; kcore is never
// mmap'ed) and then pread()s the bytes of one segment. Opening it needs
// CAP_SYS_RAWIO and a kernel with CONFIG_PROC_KCORE, not locked down to
// "confidentiality"; container runtimes often mask it with /dev/null.
//
// The byte rule (follows_irq_enable), x86-64 only. bytes_before.back() is the
// byte at ip-1. It says yes when the bytes end with one of:
//   9D              popf/popfq (any prefix: 66 9D, 48 9D end in 9D too), as in
//                   `push %rdi; popf` (57 9D) of older arch_local_irq_restore.
//                   popf has no interrupt shadow: a pending interrupt is taken
//                   right after it.
//   FB              sti itself. With the shadow (below) a pending interrupt
//                   is normally taken one instruction later, not here; the
//                   address is accepted anyway, since not every hypervisor or
//                   emulator models the shadow and an ip right after sti is an
//                   enable point either way.
//   FB F4           sti; hlt         (native_safe_halt: the idle loop)
//   FB 0F 01 C9     sti; mwait       (__sti_mwait: the idle loop)
//   FB NOP          sti and one of the kernel's NOPs (asm/nops.h, 1 to 8
//                   bytes: 90, 66 90, 0F 1F 00, 0F 1F 40 00, 0F 1F 44 00 00,
//                   66 0F 1F 44 00 00, 0F 1F 80 00 00 00 00,
//                   3E 0F 1F 80 00 00 00 00, and Intel's 8-byte
//                   0F 1F 84 00 00 00 00 00): a paravirt
//                   `call *pv_ops.irq.irq_enable` site patched to `sti` at
//                   boot and padded with a NOP, which is how
//                   arch_local_irq_enable/_restore look on PARAVIRT_XXL
//                   kernels (Debian's, Fedora's).
// sti has an interrupt shadow: a pending interrupt is taken after the
// instruction FOLLOWING sti, hence the 2-byte to 9-byte forms.
//
// What it does not claim: x86 instruction boundaries cannot be found walking
// backward, so this only looks at fixed byte patterns ending at ip-1. It can
// say yes wrongly when those bytes are the tail of a longer instruction (a
// displacement or immediate ending in 9D or FB), and it says no for enable
// points it cannot see: `sti` followed by an instruction of any other kind
// (an inlined native_irq_enable before, say, `decl %gs:__preempt_count`),
// `sti; ret` (the interrupt lands in the caller), and paravirt enables that
// stay calls (Xen PV).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/fd.h"
#include "core/model.h"

namespace kprof::symbolizer {

// One PT_LOAD program header: `size` (p_filesz) bytes of kernel memory at
// virtual address `vaddr`, stored at file offset `offset`. Neither
// vaddr + size nor offset + size overflows (parse_kcore_segments checks).
struct KcoreSegment {
  uint64_t vaddr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Bounds on what kprof accepts of a kcore header: a real one has a PT_LOAD per
// RAM range plus a few (text, modules, vmalloc, vmemmap): tens, not thousands.
constexpr size_t kMaxKcoreProgramHeaders = 4096;
constexpr size_t kMaxKcoreHeaderBytes = 1 << 20;
// The most bytes KernelMemory::read returns at once.
constexpr size_t kMaxKernelMemoryRead = 1 << 20;

// The byte offset where the program headers of the ELF header at the start of
// `header_bytes` end (e_phoff + e_phnum * e_phentsize): how much of the file
// parse_kcore_segments needs. Needs only the 64-byte ELF header; checks it as
// parse_kcore_segments does. nullopt with *why (when why is not null) if the
// header is not an ELF64 little-endian ET_CORE with sane program headers, or
// they would end beyond kMaxKcoreHeaderBytes.
std::optional<size_t> kcore_header_size(std::span<const uint8_t> header_bytes, std::string* why);

// The PT_LOAD segments (with p_filesz > 0, in file order) of an ELF64
// little-endian ET_CORE image, given its first bytes: at least the ELF header
// and all program headers (kcore_header_size bytes). Checked: e_ident (magic,
// ELFCLASS64, ELFDATA2LSB), e_type, e_phentsize == sizeof(Elf64_Phdr),
// 1 <= e_phnum <= kMaxKcoreProgramHeaders (PN_XNUM is refused), the program
// headers inside header_bytes, and each PT_LOAD's vaddr + filesz and
// offset + filesz without overflow. Any failure, or no PT_LOAD at all, gives
// an empty vector and sets *why (when why is not null); a non-empty result
// leaves *why alone. Never reads outside header_bytes.
std::vector<KcoreSegment> parse_kcore_segments(std::span<const uint8_t> header_bytes,
                                               std::string* why);

// Kernel memory by virtual address, through /proc/kcore (or any file laid out
// like it). Owns the file descriptor. read() is const and uses pread only, so
// one KernelMemory may be read from several threads.
class KernelMemory {
 public:
  // nullopt with *why (when not null) when the file cannot be opened (ENOENT:
  // no CONFIG_PROC_KCORE; EPERM: not root / no CAP_SYS_RAWIO, or lockdown),
  // is not a regular file (masked), or its header is malformed.
  static std::optional<KernelMemory> open(std::string* why,
                                          const std::string& path = "/proc/kcore");

  // The n bytes at vaddr, or nullopt when n is 0 or above
  // kMaxKernelMemoryRead, no single PT_LOAD segment holds all of them, or the
  // read fails or comes up short. (kcore reads as zeros what it cannot copy,
  // e.g. unmapped vmalloc pages; that is not detected here.)
  std::optional<std::vector<uint8_t>> read(uint64_t vaddr, size_t n) const;

  const std::vector<KcoreSegment>& segments() const { return segments_; }

 private:
  KernelMemory(Fd fd, std::vector<KcoreSegment> segments)
      : fd_(std::move(fd)), segments_(std::move(segments)) {}

  Fd fd_;
  std::vector<KcoreSegment> segments_;
};

// Whether the bytes just before a sampled ip (bytes_before.back() is the byte
// at ip-1; earlier bytes are further back, any number of them, possibly none)
// end with an interrupt enable by the rule at the top of this file.
bool follows_irq_enable(std::span<const uint8_t> bytes_before);

// The most bytes before ip that follows_irq_enable looks at (sti + an 8-byte
// NOP): callers need to read no more than this.
constexpr size_t kIrqEnableLookbehind = 9;

// Sets FunctionCount::peak_after_irq_enable on each kernel row of `h` whose
// peak address (peak_ip) follows an interrupt enable in `mem`'s text — but
// not an idle halt (sti; hlt / sti; mwait: that is where an idle CPU really
// is). Rows whose bytes cannot be read are left as they are. Returns the
// number of rows marked. Only for addresses of this boot (finish.h).
size_t mark_irq_enable_peaks(Histogram& h, const KernelMemory& mem);

}  // namespace kprof::symbolizer
