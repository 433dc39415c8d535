// What the collector learns from /proc and /sys: pure parsers (text or bytes
// in, structs out; tested and fuzzed) and thin readers of this machine.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace kprof::collector {

// /proc/PID/maps text -> one Mmap per line (pid/tid = `pid`, time = `time`).
// prot from "rwx" (PROT_READ/WRITE/EXEC bits), flags MAP_SHARED/MAP_PRIVATE
// from 's'/'p'; a nameless mapping gets "//anon" (perf's spelling); names
// keep their spaces and a " (deleted)" suffix. Malformed lines are skipped.
std::vector<Mmap> parse_proc_maps(std::string_view text, uint32_t pid, uint64_t time);

// /proc/stat text -> totals. Missing lines leave zeros; never throws.
ProcStat parse_proc_stat(std::string_view text, uint64_t time_ns);

// The GNU build-id (hex) in a sequence of ELF notes, as in /sys/kernel/notes;
// "" when there is none. Bounds-checked: damaged notes end the walk.
std::string build_id_from_notes(std::span<const uint8_t> notes);

// "0-3,6,8-9" (as in /sys/devices/system/cpu/online) -> {0,1,2,3,6,8,9}.
// Malformed parts are skipped.
std::vector<int> parse_cpu_list(std::string_view text);

// "model name" of the first processor in /proc/cpuinfo text ("" if absent).
std::string cpu_model_from_cpuinfo(std::string_view text);

// ---------------------------------------------------------------- readers

// Whole file (or its first max_bytes) as text; "" when it does not exist or
// cannot be read.
std::string read_text_file(const std::string& path, size_t max_bytes = SIZE_MAX);

uint64_t monotonic_ns();
uint64_t realtime_ns();
ProcStat read_proc_stat();
std::string read_kallsyms();    // /proc/kallsyms
std::string read_modules();     // /proc/modules, "" when absent
std::string kernel_build_id();  // from /sys/kernel/notes
std::string kernel_release();   // uname -r
std::string host_name();
std::string cpu_model();
uint32_t online_cpus();
std::vector<int> online_cpu_list();          // 0..online_cpus()-1 when sysfs is unreadable
int perf_event_paranoid();                   // 2 when unreadable (the usual default)
int kptr_restrict();                         // 0 when unreadable
int perf_event_max_sample_rate();            // 0 when unreadable
std::vector<pid_t> list_pids();              // every numeric entry of /proc
std::vector<pid_t> list_threads(pid_t pid);  // /proc/PID/task; empty if gone
std::string process_comm(pid_t pid);         // /proc/PID/comm without newline

}  // namespace kprof::collector
