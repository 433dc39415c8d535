#include "core/syscall_counts.h"

#include "core/bytes.h"

namespace kprof {

uint64_t SyscallCounts::total() const {
  uint64_t n = 0;
  for (const auto& [name, count] : calls) n += count;
  return n;
}

std::vector<uint8_t> encode_syscall_counts(const SyscallCounts& c) {
  FieldWriter f;
  ByteWriter& calls = f.field();
  calls.varint(c.calls.size());
  for (const auto& [name, count] : c.calls) {
    calls.str(name);
    calls.varint(count);
  }
  f.str(c.source);
  return f.take();
}

SyscallCounts decode_syscall_counts(std::span<const uint8_t> data) {
  SyscallCounts c;
  FieldReader f(data, "profile chunk 'syscall counts'");
  if (f.next()) {
    const uint64_t n = f.r.count(2);  // at least a name length and a count each
    for (uint64_t i = 0; i < n; ++i) {
      std::string name(f.r.str());
      const uint64_t count = f.r.varint();
      if (!c.calls.emplace(std::move(name), count).second) f.r.fail("a system call twice");
    }
  }
  if (f.next()) c.source = f.r.str();
  return c;
}

}  // namespace kprof
