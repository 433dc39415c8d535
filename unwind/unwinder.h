// DWARF unwinding of the user stacks a --call-graph dwarf recording copied
// with each sample (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER), with
// elfutils' libdwfl, once the events are off: never in the drain loop.
//
// Contract:
//  - An Unwinder is a RecordSink placed in front of the profile's real sink
//    (kprof record's aggregator, kprof symbolize's counter): every record
//    passes through in order. It keeps each process's mappings (MMAP2,
//    FORK copies the parent's, an exec's COMM clears them); a sample with
//    user registers and a stack copy leaves with the user part of its
//    callchain (what follows its kernel frames) replaced by the frames
//    unwound from the copy (the first being the user IP, callers as return
//    addresses, as frame-pointer chains hold them), and without the copy.
//  - One libdwfl session per process, its modules reported from the
//    process's executable file mappings (base: mapping start - file
//    offset), "[vdso]" from this process's own vDSO (same kernel); memory
//    reads are served from the copied stack only. CFI comes from
//    .eh_frame, and from .debug_frame in the file or its separate debug
//    file, as libdwfl's standard debuginfo lookup finds it.
//  - Never a wrong caller: a step that libdwfl could only make without CFI
//    (its frame-pointer fallback) is not taken; a file whose build-id
//    differs from the mapping's recorded one is not read. Each stack ends
//    with one UnwindStop (core/unwind_stats.h), counted per image of the
//    frame it stopped in (stats()).
//  - replay() serves the compaction pass (symbolizer/finish.h) that decodes
//    the same PerfRecords chunks again: it gives each of their samples the
//    stack this pass unwound, in order, without unwinding twice.
//  - The copied stacks and registers are untrusted bytes: every read is
//    checked against the copy (fuzz/unwinder_fuzzer.cpp). Nothing throws
//    for bad input; a stack that cannot be unwound keeps its user IP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/model.h"
#include "core/profile.h"
#include "core/unwind_stats.h"

namespace kprof::unwind {

// Frames a user stack may have (perf's kernel.perf_event_max_stack default).
inline constexpr size_t kUnwindMaxFrames = 127;

class Unwinder : public ForwardingSink {
 public:
  // `stack_bytes`: the copy size the recording asked for (UnwindStats).
  // `max_open_files`: the files the sessions may hold open together (the
  // least recently used sessions are closed to stay within it); 0: half of
  // RLIMIT_NOFILE, at least 64.
  Unwinder(RecordSink& next, uint32_t stack_bytes, size_t max_open_files = 0);
  ~Unwinder() override;
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;

  void on_sample(const Sample& s) override;
  void on_mmap(const Mmap& m) override;
  void on_comm(const Comm& c) override;
  void on_fork(const Fork& f) override;
  void on_exit(const Fork& f) override;

  const UnwindStats& stats() const;
  // PerfRecords decoded as spool.h does, each sample with a stack copy given
  // the user frames this pass unwound for it. Valid while the Unwinder lives.
  const PerfRecordsDecoder& replay() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kprof::unwind
