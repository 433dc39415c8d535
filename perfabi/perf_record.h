// The perf ABI, decoded: perf_event records (linux/perf_event.h) as kprof
// records (core/model.h). Pure functions over bytes, shared by kprof record
// (read_ring over its ring buffers; its records decoded from the spool once
// recording ends, spool.h) and the perf.data importer (records read from a
// file); no system calls, no libpfm4.
//
// Ring buffer protocol: the kernel writes records into a power-of-two data
// area and publishes data_head; a reader reads up to data_head, then
// publishes data_tail so the kernel may reuse the space. A record may wrap
// the end of the data area; ring_records() gives the bytes as two spans
// then, and the spool that keeps them makes them contiguous. ring_records() is that logic on a
// plain buffer, so tests and fuzzers drive it without a kernel.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/model.h"

namespace kprof::perfabi {

// One opened event's id and what its samples are; `event` is
// Sample::event for SampleKind::Event (1 + the index into RunInfo::more_events).
struct EventId {
  uint64_t id = 0;
  SampleKind kind = SampleKind::Cpu;
  uint32_t event = 0;
};

// Which optional fields a PERF_RECORD_SAMPLE carries and whether the other
// records carry the sample_id trailer: exactly the attr fields that decide
// the record layout.
struct SampleLayout {
  uint64_t sample_type = 0;  // PERF_SAMPLE_* bits
  bool sample_id_all = false;
  uint64_t read_format = 0;  // PERF_FORMAT_* bits; only read with PERF_SAMPLE_READ
  // --off-cpu and -e A,B: the events whose samples are not the first
  // sampling event's, by the id PERF_SAMPLE_IDENTIFIER carries (an
  // inherited event reports its parent's); a sample of any other id is
  // SampleKind::Cpu.
  std::vector<EventId> kinds;
  // Where the woken task's pid lies in a Wakeup sample's PERF_SAMPLE_RAW
  // data (sched:sched_wakeup's `pid` field, from its tracefs format).
  uint32_t wakee_offset = 0;
  // --call-graph dwarf: the attr's sample_regs_user (which registers a
  // PERF_SAMPLE_REGS_USER field holds, one u64 each, lowest bit first).
  uint64_t regs_user = 0;
};

// perf's x86-64 register numbers (asm/perf_regs.h): the bits of
// sample_regs_user. kDwarfUserRegs are the ones DWARF unwinding reads: the
// sixteen general registers and the IP.
enum PerfReg : unsigned {
  kPerfRegAx = 0,
  kPerfRegBx = 1,
  kPerfRegCx = 2,
  kPerfRegDx = 3,
  kPerfRegSi = 4,
  kPerfRegDi = 5,
  kPerfRegBp = 6,
  kPerfRegSp = 7,
  kPerfRegIp = 8,
  kPerfRegR8 = 16,
  kPerfRegR15 = 23,
};
inline constexpr uint64_t kDwarfUserRegs = 0x1ffu | (0xffull << kPerfRegR8);
// Register `reg` of a sample's user registers; nullopt when not recorded.
std::optional<uint64_t> user_reg(const Sample& s, unsigned reg);

// Decodes one complete perf record (header included) and calls the matching
// `sink` method. Record types kprof does not use (KSYMBOL, perf's own
// user records, ...) are skipped; returns true when a record was delivered.
// Of the sample fields after the callchain PERF_SAMPLE_RAW (a Wakeup
// sample's woken task), PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER
// (Sample::user_regs and user_stack; the user IP then becomes the user part
// of the callchain when the kernel left it out) are read; a branch stack
// throws, as its layout is not decoded, and later fields are not read. Throws kprof::Error on a
// record whose size does not fit its fields. Never reads outside `rec`.
bool decode_perf_record(std::span<const uint8_t> rec, const SampleLayout& layout, RecordSink& sink);
// The same with the caller's `scratch` to decode samples into (what it held
// is lost): a walk over many records passes one, so no sample is zeroed
// whole or allocates its callchain again.
bool decode_perf_record(std::span<const uint8_t> rec, const SampleLayout& layout, RecordSink& sink,
                        Sample& scratch);

// The event id a record carries (PERF_SAMPLE_IDENTIFIER, else PERF_SAMPLE_ID;
// for records other than samples, in the sample_id trailer), as perf finds
// it to tell which event of several a record belongs to. nullopt when the
// layout carries no id or the record is too short to hold it.
std::optional<uint64_t> record_event_id(std::span<const uint8_t> rec, const SampleLayout& layout);

// The timestamp a record carries (PERF_SAMPLE_TIME: in a sample after
// IDENTIFIER, IP and TID; in other records, in the sample_id trailer when
// sample_id_all is set), as perf reads it to order records. nullopt when the
// layout carries no time, for perf's own user records (types 64 and up) and
// when the record is too short to hold it. Perf's synthesized records carry
// time 0.
std::optional<uint64_t> record_time(std::span<const uint8_t> rec, const SampleLayout& layout);
// Where a layout's records carry their time, worked out once for a reader
// that asks for every record's (a perf.data's scan), and the same answer
// as record_time(rec, layout) from it (record_time_at).
struct TimePosition {
  bool has = false;            // PERF_SAMPLE_TIME
  bool in_trailer = false;     // sample_id_all: other records carry it at their end
  uint32_t sample_off = 0;     // in a sample's body
  uint32_t trailer_bytes = 0;  // the sample_id trailer's length
  uint32_t trailer_off = 0;    // the time's offset within it
};
TimePosition time_position(const SampleLayout& layout);
std::optional<uint64_t> record_time_at(std::span<const uint8_t> rec, const TimePosition& at);

// Result of one pass over a ring buffer.
struct RingRead {
  uint64_t tail = 0;     // new tail to publish
  size_t records = 0;    // records delivered
  bool damaged = false;  // a header with an impossible size: the rest was skipped
};

// Every complete record in ring[tail, head) (positions are free running
// counters, taken modulo ring.size(), which must be a power of two), as
// bytes: `first` and, where the records wrap past the ring's end, `second`;
// concatenated, they are the records in order (one may straddle the two).
// Walks the headers only, so a reader that keeps the bytes (kprof record's
// spool) copies them in two memcpys, not a call per record. Stops at a
// header with an impossible size (damaged: the rest is skipped).
struct RingBytes {
  std::span<const uint8_t> first, second;
};
RingRead ring_records(std::span<const uint8_t> ring, uint64_t tail, uint64_t head, RingBytes& out);

}  // namespace kprof::perfabi
