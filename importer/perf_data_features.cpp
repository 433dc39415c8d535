// perf.data feature sections (a file's, after its data section, or a
// pipe-mode stream's HEADER_FEATURE records) and event names. A feature that
// does not decode is a notice, never an error: its fields stay empty.
#include <linux/perf_event.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "core/bytes.h"
#include "core/error.h"
#include "importer/perf_data.h"

namespace kprof::importer {

namespace {

// perf's feature bits (tools/perf/util/header.h), perf 6.1: HEADER_LAST_FEATURE
// is 32. Bit 0 is reserved.
constexpr uint64_t kLastFeature = 32;
const char* const kFeatureNames[kLastFeature] = {
    "RESERVED",        "TRACING_DATA", "BUILD_ID",     "HOSTNAME",     "OSRELEASE",
    "VERSION",         "ARCH",         "NRCPUS",       "CPUDESC",      "CPUID",
    "TOTAL_MEM",       "CMDLINE",      "EVENT_DESC",   "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
    "BRANCH_STACK",    "PMU_MAPPINGS", "GROUP_DESC",   "AUXTRACE",     "STAT",
    "CACHE",           "SAMPLE_TIME",  "MEM_TOPOLOGY", "CLOCKID",      "DIR_FORMAT",
    "BPF_PROG_INFO",   "BPF_BTF",      "COMPRESSED",   "CPU_PMU_CAPS", "CLOCK_DATA",
    "HYBRID_TOPOLOGY", "PMU_CAPS"};
enum : uint64_t {
  kBuildId = 2,
  kHostname = 3,
  kOsRelease = 4,
  kVersion = 5,
  kArch = 6,
  kNrCpus = 7,
  kCpuDesc = 8,
  kCpuId = 9,
  kCmdline = 11,
  kEventDesc = 12,
};
// A build-id record's misc bit: the id area's byte 20 holds the id's size.
constexpr uint16_t kMiscBuildIdSize = 1 << 15;
constexpr size_t kBuildIdRecord = 8 + 4 + 24;  // header, pid, id area

std::string num(uint64_t v) {
  return std::to_string(v);
}

// perf_header_string: u32 length, then that many bytes, NUL-padded.
std::string header_string(ByteReader& r) {
  const uint32_t len = r.u32();
  const auto bytes = r.raw(len);
  const void* nul = std::memchr(bytes.data(), 0, bytes.size());
  const size_t n = nul ? static_cast<const uint8_t*>(nul) - bytes.data() : bytes.size();
  return std::string(reinterpret_cast<const char*>(bytes.data()), n);
}

// BUILD_ID: build_id records (header, pid, 20 id bytes padded to 24,
// filename NUL-padded to the record's size), back to back.
std::vector<PerfBuildId> build_ids(std::span<const uint8_t> bytes) {
  std::vector<PerfBuildId> out;
  ByteReader r(bytes, "build id");
  while (!r.done()) {
    r.u32();  // type
    const uint16_t misc = r.u16();
    const uint16_t size = r.u16();
    if (size < kBuildIdRecord || size - 8u > r.left())
      r.fail("build id record of " + num(size) + " bytes");
    r.u32();  // pid
    const auto id = r.raw(24);
    const auto name = r.raw(size - kBuildIdRecord);
    PerfBuildId b;
    const size_t id_size = (misc & kMiscBuildIdSize) ? std::min<size_t>(id[20], 20) : 20;
    b.build_id = hex_bytes(id.first(id_size));
    const void* nul = std::memchr(name.data(), 0, name.size());
    b.filename.assign(reinterpret_cast<const char*>(name.data()),
                      nul ? static_cast<const uint8_t*>(nul) - name.data() : name.size());
    const uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
    b.kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

// The feature table: one (offset, size) per set bit, in bit order, at
// `table` (the end of the data section as the header says).
void PerfDataReader::read_features(const uint64_t (&bits)[4], uint64_t table) {
  const uint64_t file = bytes_.size();
  uint64_t nr = 0;
  for (uint64_t b : bits) nr += static_cast<uint64_t>(__builtin_popcountll(b));
  if (nr == 0) return;
  if (table > file || nr * 16 > file - table) {
    header_.notices.push_back("feature table at offset " + num(table) + " (" + num(nr) +
                              " sections) runs past the end of the file (" + num(file) +
                              " bytes); features not read");
    return;
  }
  uint64_t slot = 0;
  for (uint64_t feat = 0; feat < 256; ++feat) {
    if (!(bits[feat / 64] & (1ULL << (feat % 64)))) continue;
    uint64_t off, size;
    std::memcpy(&off, bytes_.data() + table + 16 * slot, 8);
    std::memcpy(&size, bytes_.data() + table + 16 * slot + 8, 8);
    ++slot;
    if (feat == 0 || feat >= kLastFeature) {
      read_feature(feat, {}, off);  // the notice
      continue;
    }
    if (off > file || size > file - off) {
      header_.notices.push_back(
          "feature " + std::string(kFeatureNames[feat]) + " (" + num(feat) + ") at " + num(off) +
          "+" + num(size) + " runs past the end of the file (" + num(file) + " bytes); skipped");
      continue;
    }
    read_feature(feat, bytes_.subspan(off, size), off);
  }
}

// One feature's payload at file offset `offset`. Known features kprof does
// not use are skipped silently.
void PerfDataReader::read_feature(uint64_t feat, std::span<const uint8_t> payload,
                                  uint64_t offset) {
  if (feat == 0 || feat >= kLastFeature) {
    header_.notices.push_back("unknown feature bit " + num(feat) + " skipped");
    return;
  }
  try {
    ByteReader r(payload, "feature");
    switch (feat) {
      case kBuildId: {
        auto ids = build_ids(payload);
        header_.build_ids.insert(header_.build_ids.end(), ids.begin(), ids.end());
        break;
      }
      case kHostname:
        header_.hostname = header_string(r);
        break;
      case kOsRelease:
        header_.os_release = header_string(r);
        break;
      case kVersion:
        header_.perf_version = header_string(r);
        break;
      case kArch:
        header_.arch = header_string(r);
        break;
      case kCpuDesc:
        header_.cpu_desc = header_string(r);
        break;
      case kCpuId:
        header_.cpuid = header_string(r);
        break;
      case kNrCpus: {
        const uint32_t available = r.u32();  // perf: cpu__max_present_cpu()
        header_.nr_cpus_online = r.u32();
        header_.nr_cpus_available = available;
        break;
      }
      case kCmdline: {
        const uint32_t nr = r.u32();
        if (nr > r.left() / 4) r.fail("command line of " + num(nr) + " strings");
        std::vector<std::string> argv;
        for (uint32_t i = 0; i < nr; ++i) argv.push_back(header_string(r));
        header_.cmdline = std::move(argv);
        break;
      }
      case kEventDesc: {
        // u32 events, u32 attr size; per event: attr, u32 ids, name, ids.
        const uint32_t nr = r.u32();
        const uint32_t attr_size = r.u32();
        if (nr > r.left() / (uint64_t{attr_size} + 8)) r.fail("event list of " + num(nr));
        std::vector<PendingName> names;
        for (uint32_t i = 0; i < nr; ++i) {
          r.raw(attr_size);
          const uint32_t nr_ids = r.u32();
          PendingName n;
          n.name = header_string(r);
          n.index = i;
          if (nr_ids > r.left() / 8) r.fail("id list of " + num(nr_ids));
          for (uint32_t k = 0; k < nr_ids; ++k) n.ids.push_back(r.u64());
          names.push_back(std::move(n));
        }
        pending_names_.insert(pending_names_.end(), names.begin(), names.end());
        break;
      }
      default:  // known, not used here
        break;
    }
  } catch (const Error& e) {
    header_.notices.push_back("feature " + std::string(kFeatureNames[feat]) + " (" + num(feat) +
                              ") at offset " + num(offset) + " does not decode (" + e.what() +
                              "); skipped");
  }
}

// Names from EVENT_DESC and EVENT_UPDATE, matched to the events by id (by
// position when no id matches and the counts agree); then perf's names for
// the rest, from type and config.
void PerfDataReader::name_events() {
  auto& events = header_.events;
  size_t descs = 0;
  for (const auto& n : pending_names_) descs += n.index != SIZE_MAX ? 1 : 0;
  for (const auto& n : pending_names_) {
    if (n.name.empty()) continue;
    size_t target = SIZE_MAX;
    for (uint64_t id : n.ids) {
      auto it = std::lower_bound(event_by_id_.begin(), event_by_id_.end(), id,
                                 [](const auto& e, uint64_t v) { return e.first < v; });
      if (it != event_by_id_.end() && it->first == id) {
        target = it->second;
        break;
      }
    }
    if (target == SIZE_MAX && n.index < events.size() && descs == events.size()) target = n.index;
    if (target != SIZE_MAX) events[target].name = n.name;
  }
  pending_names_.clear();
  static const char* const kHardware[] = {"cycles",
                                          "instructions",
                                          "cache-references",
                                          "cache-misses",
                                          "branches",
                                          "branch-misses",
                                          "bus-cycles",
                                          "stalled-cycles-frontend",
                                          "stalled-cycles-backend",
                                          "ref-cycles"};
  static const char* const kSoftware[] = {
      "cpu-clock",        "task-clock",   "page-faults",  "context-switches",
      "cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
      "emulation-faults", "dummy",        "bpf-output",   "cgroup-switches"};
  for (auto& e : events) {
    if (!e.name.empty()) continue;
    char buf[64];
    if (e.type == PERF_TYPE_HARDWARE && e.config < std::size(kHardware)) {
      e.name = kHardware[e.config];
    } else if (e.type == PERF_TYPE_SOFTWARE && e.config < std::size(kSoftware)) {
      e.name = kSoftware[e.config];
    } else if (e.type == PERF_TYPE_RAW) {
      std::snprintf(buf, sizeof buf, "raw 0x%llx", static_cast<unsigned long long>(e.config));
      e.name = buf;
    } else {
      e.name = "type " + num(e.type) + " config " + num(e.config);
    }
  }
}

}  // namespace kprof::importer
