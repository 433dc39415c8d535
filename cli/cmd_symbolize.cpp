// `kprof symbolize FILE`: names a profile's samples again on this machine and
// appends the new Histogram (and End) to the file. Its main use: a recording
// cut short (kill -9, full disk) has its Records chunks but no Histogram, so
// its user functions were never named; this names them afterwards, from the
// binaries still on disk.
//
// Kernel addresses come from the profile's own kallsyms snapshot; user
// addresses from ELF files through ElfResolver, which checks each file's
// build-id against the recorded mapping's. An image whose file is gone,
// unreadable or changed (build-id differs) is not read: its samples stay
// "[unknown]" in that image, or, when the profile already holds a histogram
// that counted the same samples, keep that histogram's names for the image
// (those were resolved while recording, when the binary surely matched).
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/parse.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/format.h"
#include "core/kernel_symbols.h"
#include "symbolizer/elf_resolver.h"

namespace kprof::cli {

namespace {

// Remembers the images whose file the ELF resolver could not trust: it adds a
// warning the first time it meets such a file, and returns no names for it.
class CheckingResolver : public UserSymbolResolver {
 public:
  std::vector<std::string> resolve(const Mmap& mapping, std::span<const uint64_t> ips,
                                   std::string* build_id) override {
    const size_t before = elf.warnings().size();
    std::vector<std::string> names = elf.resolve(mapping, ips, build_id);
    const std::string image = image_name_for(mapping);
    if (elf.warnings().size() > before) untrusted.insert(image);
    return names;
  }

  ElfResolver elf;
  std::set<std::string> untrusted;  // image names as in the histogram
};

std::map<std::string, uint64_t> samples_per_image(const Histogram& h) {
  std::map<std::string, uint64_t> out;
  for (const FunctionCount& row : h.rows) {
    if (row.image < h.images.size()) out[h.images[row.image].name] += row.samples;
  }
  return out;
}

// For each untrusted image that `old` counted with the same number of
// samples, replaces `fresh`'s rows of that image by `old`'s. Returns the
// images kept from `old`.
std::vector<std::string> keep_old_names(Histogram& fresh, const Histogram& old,
                                        const std::set<std::string>& untrusted) {
  const auto fresh_n = samples_per_image(fresh), old_n = samples_per_image(old);
  std::set<std::string> keep;
  for (const std::string& image : untrusted) {
    auto f = fresh_n.find(image), o = old_n.find(image);
    if (f != fresh_n.end() && o != old_n.end() && f->second == o->second) keep.insert(image);
  }
  if (keep.empty()) return {};
  std::erase_if(fresh.rows, [&](const FunctionCount& row) {
    return row.image < fresh.images.size() && keep.contains(fresh.images[row.image].name);
  });
  for (const FunctionCount& row : old.rows) {
    if (row.image >= old.images.size() || !keep.contains(old.images[row.image].name)) continue;
    uint32_t index = 0;
    while (index < fresh.images.size() && fresh.images[index].name != old.images[row.image].name) {
      ++index;
    }
    if (index == fresh.images.size()) fresh.images.push_back(old.images[row.image]);
    FunctionCount copy = row;
    copy.image = index;
    fresh.rows.push_back(std::move(copy));
  }
  return {keep.begin(), keep.end()};
}

}  // namespace

int cmd_symbolize(int argc, char** argv) {
  CLI::App app{
      "Name a profile's samples again from the binaries on this machine (e.g. after kill -9) "
      "and append the new histogram to the file",
      "kprof symbolize"};
  std::string file = "kprof.data";
  app.add_option("FILE", file, "profile to symbolize in place")->capture_default_str();
  if (auto code = parse_args(app, argc, argv)) return *code;

  AddressAggregator agg;
  Profile profile = load_profile(file, &agg);
  if (!profile.status.complete) {
    std::fprintf(stderr, "kprof: %s is cut short (%s): symbolizing the %llu samples recovered\n",
                 file.c_str(), profile.status.problem.c_str(),
                 static_cast<unsigned long long>(agg.counts().samples));
  }
  KernelSymbols kernel = KernelSymbols::parse(profile.kallsyms, profile.modules);
  CheckingResolver resolver;
  Histogram h = build_histogram(agg.counts(), kernel, resolver);
  for (const std::string& warning : resolver.elf.warnings()) {
    std::fprintf(stderr, "kprof: %s\n", warning.c_str());
  }
  if (profile.histogram) {
    for (const std::string& image : keep_old_names(h, *profile.histogram, resolver.untrusted)) {
      std::fprintf(stderr, "kprof: %s: kept the names from the recording\n", image.c_str());
    }
  }
  if (kernel.addresses_hidden()) {
    std::fprintf(stderr,
                 "kprof: the profile's kernel symbols have hidden addresses (kptr_restrict): "
                 "kernel samples stay [unknown]\n");
  }

  // Appending truncates a damaged tail and a previous End; the last Histogram wins.
  ProfileWriter writer = ProfileWriter::append(file);
  std::vector<uint8_t> payload = encode_histogram(h);
  writer.write_chunk(ChunkType::Histogram, payload);
  writer.write_end();

  uint64_t named = 0;
  for (const FunctionCount& row : h.rows) {
    if (row.function != "[unknown]") named += row.samples;
  }
  std::fprintf(stderr,
               "[ kprof symbolize: %llu samples, %llu in named functions, written to %s ]\n",
               static_cast<unsigned long long>(h.total_samples()),
               static_cast<unsigned long long>(named), file.c_str());
  return 0;
}

}  // namespace kprof::cli
