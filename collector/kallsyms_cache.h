// This boot's /proc/kallsyms snapshot, kept between recordings.
//
// A kallsyms snapshot is 5 MB of text here, ~1 MB compressed. Having the
// kernel print it and compressing it was over half of kprof record's own CPU
// time on a short run, and it is the same text for every recording of one
// boot, like perf's ~/.debug copy of kallsyms. So the first recording of a
// boot stores the compressed chunk in DIR (default $XDG_CACHE_HOME/kprof,
// else $HOME/.cache/kprof), and later ones take it from there. A profile
// whose snapshot is here does not carry it: it gets the lines its samples
// need when recording ends (core/kallsyms_subset.h).
//
// A cached snapshot is used only when all of these hold, else load() returns
// nothing and the caller reads /proc/kallsyms:
//   - the file is DIR/kallsyms-<boot_id>.kprof (a new boot never sees an old
//     one), a regular file owned by this user and writable by no one else,
//     complete, with good checksums;
//   - /proc/modules reads the same as when it was stored;
//   - the first 64 KiB of /proc/kallsyms read now are the same bytes (so the
//     kernel still shows this user the same addresses: kptr_restrict,
//     perf_event_paranoid and CAP_SYSLOG decide that).
// What can still differ within a boot is kernel text outside the image and
// the modules (BPF programs, trampolines): a caller that finds a sample there
// (KernelSymbols::in_boot_static_text) reads /proc/kallsyms afresh.
//
// store() is best effort and never throws: a cache that cannot be written
// costs CPU on the next recording, nothing else. It writes a temporary file
// and renames it, and removes the snapshots of earlier boots. It says whether
// the snapshot is now in the cache: kprof record then leaves it out of the
// profile until recording ends (core/kallsyms_subset.h), and a profile cut
// short before that is named from this file on this boot (snapshot(), by
// RunInfo::kallsyms_digest).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/file_layout.h"

namespace kprof::collector {

struct KallsymsSnapshot {
  std::string text;   // /proc/kallsyms as read
  StoredChunk chunk;  // text packed as a Kallsyms chunk, ready to write
};

class KallsymsCache {
 public:
  // dir "" disables the cache: load() finds nothing, store() does nothing.
  explicit KallsymsCache(std::string dir) : dir_(std::move(dir)) {}

  // $XDG_CACHE_HOME/kprof, else $HOME/.cache/kprof; "" when neither is set.
  static std::string default_dir();

  std::optional<KallsymsSnapshot> load(std::string_view modules) const;
  bool store(const StoredChunk& kallsyms, std::string_view modules) const noexcept;
  // This boot's cached snapshot as stored, without comparing it with what
  // /proc reads now (the caller checks it by its digest): for reading a
  // profile whose snapshot was left here. Nothing when there is no usable file.
  std::optional<KallsymsSnapshot> snapshot() const;

  // The file for this boot ("" when disabled or the boot id is unreadable).
  std::string path() const;

 private:
  std::string dir_;
};

// Reads /proc/kallsyms now and packs it (no cache involved).
KallsymsSnapshot read_kallsyms_snapshot();

// /proc/sys/kernel/random/boot_id ("" when unreadable or odd).
std::string current_boot_id();

}  // namespace kprof::collector
