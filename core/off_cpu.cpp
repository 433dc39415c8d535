#include "core/off_cpu.h"

#include "core/bytes.h"
#include "core/chunk_codecs.h"

namespace kprof {

namespace {
template <typename F>
uint64_t sum(const std::vector<OffCpuThread>& threads, F f) {
  uint64_t n = 0;
  for (const OffCpuThread& t : threads) n += f(t);
  return n;
}
}  // namespace

uint64_t OffCpu::on_ns() const {
  return sum(threads, [](const OffCpuThread& t) { return t.on_ns; });
}
uint64_t OffCpu::blocked_ns() const {
  return sum(threads, [](const OffCpuThread& t) { return t.blocked_ns; });
}
uint64_t OffCpu::runq_ns() const {
  return sum(threads, [](const OffCpuThread& t) { return t.runq_ns; });
}
uint64_t OffCpu::wall_ns() const {
  return sum(threads, [](const OffCpuThread& t) { return t.wall_ns(); });
}

std::vector<uint8_t> encode_off_cpu(const OffCpu& o) {
  FieldWriter f;
  f.varint(o.tick_ns);
  f.blob(encode_stacks(o.stacks));
  ByteWriter& threads = f.field();
  threads.varint(o.threads.size());
  for (const OffCpuThread& t : o.threads) {
    threads.varint(t.pid);
    threads.varint(t.tid);
    threads.str(t.comm);
    threads.varint(t.start_ns);
    threads.varint(t.end_ns);
    threads.varint(t.on_ns);
    threads.varint(t.blocked_ns);
    threads.varint(t.runq_ns);
    threads.varint(t.switches);
    threads.varint(t.sampled);
  }
  f.varint(o.switches);
  f.varint(o.wakeups);
  f.varint(o.lost);
  f.str(o.source);
  f.u8(o.sampled_is_ns ? 1 : 0);
  f.varint(o.stack_samples);
  f.u8(o.wakeups_sampled ? 1 : 0);
  return f.take();
}

OffCpu decode_off_cpu(std::span<const uint8_t> data) {
  OffCpu o;
  FieldReader f(data, "profile chunk 'off-cpu'");
  if (f.next()) o.tick_ns = f.r.varint();
  if (o.tick_ns == 0) f.r.fail("a tick of 0 ns");
  if (f.next()) o.stacks = decode_stacks(f.blob());
  if (f.next()) {
    const size_t n = f.r.count(11);  // eleven fields of a byte at least
    o.threads.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      OffCpuThread t;
      auto u32 = [&f](const char* what) {
        const uint64_t v = f.r.varint();
        if (v > UINT32_MAX) f.r.fail(std::string(what) + " out of range");
        return static_cast<uint32_t>(v);
      };
      t.pid = u32("pid");
      t.tid = u32("tid");
      t.comm = std::string(f.r.str());
      t.start_ns = f.r.varint();
      t.end_ns = f.r.varint();
      t.on_ns = f.r.varint();
      t.blocked_ns = f.r.varint();
      t.runq_ns = f.r.varint();
      t.switches = f.r.varint();
      t.sampled = f.r.varint();
      if (t.end_ns < t.start_ns) f.r.fail("a thread that ends before it starts");
      o.threads.push_back(std::move(t));
    }
  }
  if (f.next()) o.switches = f.r.varint();
  if (f.next()) o.wakeups = f.r.varint();
  if (f.next()) o.lost = f.r.varint();
  if (f.next()) o.source = std::string(f.r.str());
  if (f.next()) o.sampled_is_ns = f.r.u8() != 0;
  if (f.next()) o.stack_samples = f.r.varint();
  if (f.next()) o.wakeups_sampled = f.r.u8() != 0;
  return o;
}

}  // namespace kprof
