// From records to a symbolized histogram, in two steps:
//
// 1. AddressAggregator (a RecordSink) replays side-band records to know each
//    process's mappings at each sample's time (FORK copies the parent's maps,
//    COMM with exec clears them, EXIT drops them) and counts samples per
//    unique address in context: kernel ips, and user ips per mapping.
//    Memory grows with distinct addresses, not with samples.
// 2. build_histogram() names each unique address once: kernel ips through
//    KernelSymbols, user ips through a UserSymbolResolver (the symbolizer's
//    ELF resolver while recording; NullUserResolver for a cut-short file read
//    elsewhere, which keeps user samples by image as "[unknown]").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/kernel_symbols.h"
#include "core/model.h"

namespace kprof {

struct Counts {
  uint64_t samples = 0;
  uint64_t period = 0;
};

struct AddressCounts {
  static constexpr uint32_t kNoMapping = UINT32_MAX;
  struct Key {
    uint32_t mapping;  // index into mappings, or kNoMapping (kernel / unmapped)
    Mode mode;
    uint64_t ip;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };
  std::vector<Mmap> mappings;  // each distinct mapping that user samples fell in
  std::unordered_map<Key, Counts, KeyHash> counts;
  uint64_t samples = 0, lost = 0;
};

class AddressAggregator : public RecordSink {
 public:
  void on_sample(const Sample&) override;
  void on_mmap(const Mmap&) override;
  void on_comm(const Comm&) override;
  void on_fork(const Fork&) override;
  void on_exit(const Fork&) override;
  void on_lost(const Lost&) override;

  const AddressCounts& counts() const { return counts_; }

 private:
  struct Map {
    uint64_t start, end;
    uint32_t mapping;  // index into counts_.mappings, assigned lazily
    Mmap mmap;
  };
  uint32_t mapping_index(Map& m);
  std::unordered_map<uint32_t, std::vector<Map>> maps_;  // pid -> maps sorted by start
  AddressCounts counts_;
};

// Whether every kernel address in `counts` lies in text whose names cannot
// change within a boot (KernelSymbols::in_boot_static_text).
bool kernel_ips_in_boot_static_text(const AddressCounts& counts, const KernelSymbols& kernel);

// Names user addresses inside one mapping.
class UserSymbolResolver {
 public:
  virtual ~UserSymbolResolver() = default;
  // One name per ip ("" when unknown). May set *build_id (hex) for the image.
  virtual std::vector<std::string> resolve(const Mmap& mapping, std::span<const uint64_t> ips,
                                           std::string* build_id) = 0;
};

class NullUserResolver : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap&, std::span<const uint64_t> ips,
                                   std::string*) override {
    return std::vector<std::string>(ips.size());
  }
};

// "[anon]", "[heap]", "[stack]", "[vdso]", "[jit]" or the path itself.
std::string image_name_for(const Mmap& m);

Histogram build_histogram(const AddressCounts& counts, const KernelSymbols& kernel,
                          UserSymbolResolver& user);

}  // namespace kprof
