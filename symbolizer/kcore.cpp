#include "symbolizer/kcore.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kprof::symbolizer {
namespace {

constexpr size_t kEhdrSize = sizeof(Elf64_Ehdr);  // 64
constexpr size_t kPhdrSize = sizeof(Elf64_Phdr);  // 56
static_assert(kEhdrSize == 64 && kPhdrSize == 56);
static_assert(kMaxKcoreHeaderBytes >= kEhdrSize + kMaxKcoreProgramHeaders * kPhdrSize);

// Little-endian loads at `at` inside `b`; callers have checked the bounds.
uint64_t le(std::span<const uint8_t> b, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = width; i-- > 0;) v = (v << 8) | b[at + i];
  return v;
}
uint16_t le16(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint16_t>(le(b, at, 2));
}
uint32_t le32(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint32_t>(le(b, at, 4));
}
uint64_t le64(std::span<const uint8_t> b, size_t at) {
  return le(b, at, 8);
}

bool fail(std::string* why, std::string msg) {
  if (why != nullptr) *why = std::move(msg);
  return false;
}

// All of `n` bytes at file offset `off`, or false (errno kept) on error or EOF.
bool pread_all(int fd, uint8_t* out, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, out + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

// The kernel's NOPs (arch/x86/include/asm/nops.h) and Intel's 8-byte one:
// what pads a paravirt call site patched to a 1-byte `sti`.
constexpr std::array<std::array<uint8_t, 9>, 9> kNops = {{
    {1, 0x90},
    {2, 0x66, 0x90},
    {3, 0x0f, 0x1f, 0x00},
    {4, 0x0f, 0x1f, 0x40, 0x00},
    {5, 0x0f, 0x1f, 0x44, 0x00, 0x00},
    {6, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
    {7, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
    {8, 0x3e, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
    {8, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
}};
constexpr uint8_t kPopf = 0x9d;
constexpr uint8_t kSti = 0xfb;
constexpr uint8_t kHlt = 0xf4;
constexpr std::array<uint8_t, 3> kMwait = {0x0f, 0x01, 0xc9};

// Whether `b` ends with `sti` followed by exactly the instruction `insn`.
bool ends_with_sti_then(std::span<const uint8_t> b, std::span<const uint8_t> insn) {
  if (b.size() < insn.size() + 1) return false;
  const size_t at = b.size() - insn.size();
  return b[at - 1] == kSti && std::equal(insn.begin(), insn.end(), b.begin() + at);
}

}  // namespace

std::optional<size_t> kcore_header_size(std::span<const uint8_t> h, std::string* why) {
  if (h.size() < kEhdrSize) {
    fail(why, "truncated ELF header (" + std::to_string(h.size()) + " of " +
                  std::to_string(kEhdrSize) + " bytes)");
    return std::nullopt;
  }
  if (std::memcmp(h.data(), ELFMAG, SELFMAG) != 0) {
    fail(why, "not an ELF file (bad magic)");
    return std::nullopt;
  }
  if (h[EI_CLASS] != ELFCLASS64) {
    fail(why, "not ELFCLASS64 (EI_CLASS " + std::to_string(h[EI_CLASS]) + ")");
    return std::nullopt;
  }
  if (h[EI_DATA] != ELFDATA2LSB) {
    fail(why, "not little-endian (EI_DATA " + std::to_string(h[EI_DATA]) + ")");
    return std::nullopt;
  }
  const uint16_t type = le16(h, offsetof(Elf64_Ehdr, e_type));
  if (type != ET_CORE) {
    fail(why, "not a core image (e_type " + std::to_string(type) + ")");
    return std::nullopt;
  }
  const uint64_t phoff = le64(h, offsetof(Elf64_Ehdr, e_phoff));
  const uint16_t phentsize = le16(h, offsetof(Elf64_Ehdr, e_phentsize));
  const uint16_t phnum = le16(h, offsetof(Elf64_Ehdr, e_phnum));
  if (phentsize != kPhdrSize) {
    fail(why, "e_phentsize " + std::to_string(phentsize) + ", want " + std::to_string(kPhdrSize));
    return std::nullopt;
  }
  if (phnum == 0 || phnum == PN_XNUM) {
    fail(why, phnum == 0 ? "no program headers" : "extended program header numbering (PN_XNUM)");
    return std::nullopt;
  }
  if (phnum > kMaxKcoreProgramHeaders) {
    fail(why, "e_phnum " + std::to_string(phnum) + " exceeds " +
                  std::to_string(kMaxKcoreProgramHeaders));
    return std::nullopt;
  }
  // phnum * kPhdrSize <= 4096 * 56: comparing before adding cannot overflow.
  const uint64_t table = uint64_t{phnum} * kPhdrSize;
  if (phoff > kMaxKcoreHeaderBytes || table > kMaxKcoreHeaderBytes - phoff) {
    fail(why, "program headers at e_phoff " + std::to_string(phoff) + " end beyond " +
                  std::to_string(kMaxKcoreHeaderBytes) + " bytes");
    return std::nullopt;
  }
  return static_cast<size_t>(phoff + table);
}

std::vector<KcoreSegment> parse_kcore_segments(std::span<const uint8_t> h, std::string* why) {
  const std::optional<size_t> end = kcore_header_size(h, why);
  if (!end) return {};
  if (*end > h.size()) {
    fail(why, "program headers end at byte " + std::to_string(*end) + ", beyond the " +
                  std::to_string(h.size()) + " bytes given");
    return {};
  }
  const uint64_t phoff = le64(h, offsetof(Elf64_Ehdr, e_phoff));
  const size_t phnum = le16(h, offsetof(Elf64_Ehdr, e_phnum));
  std::vector<KcoreSegment> segments;
  for (size_t i = 0; i < phnum; ++i) {
    const size_t p = static_cast<size_t>(phoff) + i * kPhdrSize;  // < *end <= h.size()
    if (le32(h, p + offsetof(Elf64_Phdr, p_type)) != PT_LOAD) continue;
    KcoreSegment s;
    s.vaddr = le64(h, p + offsetof(Elf64_Phdr, p_vaddr));
    s.offset = le64(h, p + offsetof(Elf64_Phdr, p_offset));
    s.size = le64(h, p + offsetof(Elf64_Phdr, p_filesz));
    if (s.vaddr + s.size < s.vaddr) {
      fail(why, "program header " + std::to_string(i) + ": p_vaddr + p_filesz overflows");
      return {};
    }
    if (s.offset + s.size < s.offset) {
      fail(why, "program header " + std::to_string(i) + ": p_offset + p_filesz overflows");
      return {};
    }
    if (s.size > 0) segments.push_back(s);
  }
  if (segments.empty()) fail(why, "no PT_LOAD segment with data");
  return segments;
}

std::optional<KernelMemory> KernelMemory::open(std::string* why, const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    fail(why, "cannot open " + path + ": " + std::strerror(err) +
                  (err == ENOENT   ? " (kernel without CONFIG_PROC_KCORE?)"
                   : err == EPERM  ? " (needs root/CAP_SYS_RAWIO; or kernel lockdown)"
                   : err == EACCES ? " (needs root)"
                                   : ""));
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    fail(why, path + " is not a regular file (masked, e.g. by a container runtime)");
    return std::nullopt;
  }
  std::vector<uint8_t> header(kEhdrSize);
  errno = 0;
  if (!pread_all(fd.get(), header.data(), header.size(), 0)) {
    fail(why, "cannot read the ELF header of " + path +
                  (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
    return std::nullopt;
  }
  std::string reason;
  const std::optional<size_t> size = kcore_header_size(header, &reason);
  if (!size) {
    fail(why, path + ": " + reason);
    return std::nullopt;
  }
  if (*size > header.size()) {
    const size_t have = header.size();
    header.resize(*size);
    errno = 0;
    if (!pread_all(fd.get(), header.data() + have, *size - have, have)) {
      fail(why, path + ": program headers cut short" +
                    (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
      return std::nullopt;
    }
  }
  std::vector<KcoreSegment> segments = parse_kcore_segments(header, &reason);
  if (segments.empty()) {
    fail(why, path + ": " + reason);
    return std::nullopt;
  }
  return KernelMemory(std::move(fd), std::move(segments));
}

std::optional<std::vector<uint8_t>> KernelMemory::read(uint64_t vaddr, size_t n) const {
  if (n == 0 || n > kMaxKernelMemoryRead) return std::nullopt;
  for (const KcoreSegment& s : segments_) {
    // vaddr in [s.vaddr, s.vaddr + s.size - n], written without overflow.
    if (vaddr < s.vaddr || n > s.size || vaddr - s.vaddr > s.size - n) continue;
    const uint64_t off = s.offset + (vaddr - s.vaddr);  // <= offset + size: no overflow
    if (off > static_cast<uint64_t>(INT64_MAX) - n) return std::nullopt;  // off_t range
    std::vector<uint8_t> bytes(n);
    if (!pread_all(fd_.get(), bytes.data(), n, off)) return std::nullopt;
    return bytes;
  }
  return std::nullopt;
}

bool follows_irq_enable(std::span<const uint8_t> b) {
  if (b.empty()) return false;
  if (b.back() == kPopf || b.back() == kSti) return true;
  const uint8_t hlt[] = {kHlt};
  if (ends_with_sti_then(b, hlt) || ends_with_sti_then(b, kMwait)) return true;
  for (const auto& nop : kNops) {
    if (ends_with_sti_then(b, std::span<const uint8_t>(nop.data() + 1, nop[0]))) return true;
  }
  return false;
}

size_t mark_irq_enable_peaks(Histogram& h, const KernelMemory& mem) {
  size_t marked = 0;
  for (FunctionCount& row : h.rows) {
    if (row.mode != Mode::Kernel || row.peak_ip < kIrqEnableLookbehind) continue;
    const auto bytes = mem.read(row.peak_ip - kIrqEnableLookbehind, kIrqEnableLookbehind);
    if (!bytes || !follows_irq_enable(*bytes)) continue;
    const std::vector<uint8_t>& b = *bytes;
    const bool halt = b.back() == 0xF4 ||
                      (b[b.size() - 3] == 0x0F && b[b.size() - 2] == 0x01 && b.back() == 0xC9);
    if (halt) continue;
    row.peak_after_irq_enable = true;
    ++marked;
  }
  return marked;
}

}  // namespace kprof::symbolizer
