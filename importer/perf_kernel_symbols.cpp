// perf_kernel_symbols.h: finding the kernel symbols of a perf.data, and
// moving them to the recording's boot. Lines are read with core's one
// kallsyms parser (core/kernel_symbols.h).
#include "importer/perf_kernel_symbols.h"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "core/error.h"
#include "core/input.h"
#include "core/kallsyms_subset.h"
#include "core/kernel_symbols.h"

namespace kprof::importer {

namespace {

std::optional<std::string> read_optional(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  try {
    std::vector<uint8_t> b = read_file_bytes(path);
    return std::string(b.begin(), b.end());
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The first source that has symbols, in import.h's order, before indexing.
FoundKernelSymbols find_source(const PerfDataHeader& h, const std::string& kernel_build_id,
                               const ImportOptions& o) {
  FoundKernelSymbols f;
  PerfKernelSymbols& k = f.symbols;
  if (!o.kallsyms_file.empty()) {
    std::vector<uint8_t> b;
    try {
      b = read_file_bytes(o.kallsyms_file);
    } catch (const Error& e) {
      throw Error(std::string("--kallsyms: ") + e.what());
    }
    k.kallsyms.assign(b.begin(), b.end());
    k.source = "--kallsyms " + o.kallsyms_file;
    return f;
  }
  const RunningKernel& run = o.running;
  const bool release_matches = !run.release.empty() && run.release == h.os_release;
  const bool id_matches =
      kernel_build_id.empty() || run.build_id.empty() || kernel_build_id == run.build_id;
  if (release_matches && id_matches && run.kallsyms) {
    k.kallsyms = run.kallsyms();
    if (run.modules) k.modules = run.modules();
    f.running = true;
    k.source = "this machine's /proc/kallsyms (same kernel: " + run.release +
               (kernel_build_id.empty() ? ", the recording has no kernel build-id"
                                        : ", build-id " + kernel_build_id.substr(0, 12)) +
               ")";
    return f;
  }
  if (!o.buildid_dir.empty() && !kernel_build_id.empty()) {
    const std::string path = o.buildid_dir + "/[kernel.kallsyms]/" + kernel_build_id + "/kallsyms";
    if (auto text = read_optional(path)) {
      k.kallsyms = std::move(*text);
      k.source = "perf's build-id cache (" + path + ")";
      return f;
    }
  }
  if (h.os_release.empty()) {
    k.why_none = "the recording does not say which kernel it ran";
  } else if (!release_matches) {
    k.why_none = "it ran kernel " + h.os_release + ", this machine runs " +
                 (run.release.empty() ? std::string("another") : run.release);
  } else {
    k.why_none = "this machine runs " + run.release + " with another build-id";
  }
  if (!kernel_build_id.empty()) {
    k.why_none += ", and perf's build-id cache has no kallsyms for build-id " + kernel_build_id;
  }
  return f;
}

}  // namespace

std::unique_ptr<const FoundKernelSymbols> find_kernel_symbols(const PerfDataHeader& h,
                                                              const std::string& kernel_build_id,
                                                              const ImportOptions& options) {
  auto found = std::make_unique<FoundKernelSymbols>(find_source(h, kernel_build_id, options));
  // Made here, where the text it views stays put.
  found->index = std::make_unique<KallsymsIndex>(found->symbols.kallsyms, found->symbols.modules);
  return found;
}

namespace {

// Calls fn(line) for each line of `text`, without its '\n'; a last line
// without one too. Returns early when fn returns false.
template <typename Fn>
void for_each_line(std::string_view text, Fn fn) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (!fn(text.substr(pos, end - pos))) return;
    pos = end + 1;
  }
}

}  // namespace

uint64_t kallsyms_text_address(std::string_view kallsyms) {
  uint64_t text = 0;
  for_each_line(kallsyms, [&](std::string_view line) {
    kallsyms::Line l;
    if (!kallsyms::parse_line(line, &l) || l.name != "_text" || !l.module.empty()) return true;
    text = l.addr;
    return false;
  });
  return text;
}

std::string relocate_kallsyms(std::string_view kallsyms, uint64_t delta) {
  std::string out;
  out.reserve(kallsyms.size());
  char addr[17];
  for_each_line(kallsyms, [&](std::string_view line) {
    kallsyms::Line l;
    if (kallsyms::parse_line(line, &l) && l.addr != 0) {
      // "%px %c %s", then "\t[%s]" for a module: as /proc/kallsyms prints it.
      const uint64_t moved = l.addr + delta;
      std::snprintf(addr, sizeof addr, "%016llx", static_cast<unsigned long long>(moved));
      out += addr;
      out += ' ';
      out += l.type;
      out += ' ';
      out += l.name;
      if (!l.module.empty()) {
        out += '\t';
        out += l.module;
      }
    } else {
      out += line;
    }
    out += '\n';
    return true;
  });
  return out;
}

PerfKernelSymbols perf_kernel_symbols(const FoundKernelSymbols& found, const ImportOptions& options,
                                      const AddressCounts& counts,
                                      std::optional<uint64_t> recorded_text) {
  const PerfKernelSymbols& f = found.symbols;
  PerfKernelSymbols k;
  k.modules = f.modules;
  k.source = f.source;
  k.why_none = f.why_none;
  // Only the functions the samples fall in and their neighbours, as kprof
  // record keeps them: a whole kallsyms is ~10 MB to copy and parse again
  // by every reader of the profile.
  std::string subset = found.index->subset(kernel_ips(counts));
  std::string_view kallsyms = f.kallsyms;
  std::string changed;  // the text when it is not found's own
  // An earlier snapshot of this boot may not know text that came later.
  if (found.running && options.running.kallsyms_now &&
      !kernel_ips_in_boot_static_text(counts, KernelSymbols::parse(subset, k.modules))) {
    changed = options.running.kallsyms_now();
    kallsyms = changed;
    subset.clear();
  }
  if (!k.source.empty() && recorded_text) {
    const uint64_t text = kallsyms_text_address(kallsyms);
    if (text != 0 && text != *recorded_text) {
      changed = relocate_kallsyms(kallsyms, *recorded_text - text);
      kallsyms = changed;
      k.modules.clear();  // module addresses of another boot say nothing
      k.source += "; moved by the KASLR offset of the recording's boot";
      subset.clear();
    }
  }
  k.kallsyms = subset.empty() ? kallsyms_subset(kallsyms, k.modules, counts) : std::move(subset);
  return k;
}

std::string kernel_symbols_notice(const PerfKernelSymbols& k, const AddressCounts& counts) {
  if (!k.source.empty()) return "kernel symbols from " + k.source;
  uint64_t kernel_samples = 0;
  for (const auto& [key, c] : counts.counts) {
    if (key.mode == Mode::Kernel) kernel_samples += c.samples;
  }
  if (kernel_samples == 0) return "";
  return std::to_string(kernel_samples) + " kernel samples not named: " + k.why_none +
         "; give the recording machine's /proc/kallsyms with --kallsyms FILE "
         "(or its perf archive, unpacked into ~/.debug)";
}

}  // namespace kprof::importer
