#include "symbolizer/profile_symbols.h"
#include "core/chunk_codecs.h"

#include <map>
#include <set>
#include <utility>

#include "symbolizer/elf_resolver.h"

namespace kprof {
namespace {

// Remembers the images whose file the ELF resolver could not trust: it adds a
// warning the first time it meets such a file, and returns no names for it.
class CheckingResolver : public UserSymbolResolver {
 public:
  explicit CheckingResolver(ElfResolver& elf) : elf(elf) {}
  std::vector<std::string> resolve(const Mmap& mapping, std::span<const uint64_t> ips,
                                   std::string* build_id) override {
    const size_t before = elf.warnings().size();
    std::vector<std::string> names = elf.resolve(mapping, ips, build_id);
    if (elf.warnings().size() > before) untrusted.insert(image_name_for(mapping));
    return names;
  }

  ElfResolver& elf;
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

ProfileSymbols symbolize_profile(const AddressCounts& counts, const KernelSymbols& kernel,
                                 const Histogram* previous, const std::string& buildid_cache) {
  ElfResolverOptions options;
  options.buildid_cache = buildid_cache;
  ElfResolver elf(std::move(options));
  return symbolize_profile(counts, kernel, previous, elf);
}

ProfileSymbols symbolize_profile(const AddressCounts& counts, const KernelSymbols& kernel,
                                 const Histogram* previous, ElfResolver& elf) {
  CheckingResolver resolver(elf);
  SymbolizedCounts named = symbolize_counts(counts, kernel, resolver);
  ProfileSymbols out;
  out.histogram = std::move(named.histogram);
  out.stacks = std::move(named.stacks);
  out.threads = std::move(named.threads);
  out.warnings = resolver.elf.warnings();
  // Names are kept for the flat histogram only: a -g profile's stacks (and
  // the histogram they make) keep "[unknown]" for an image that changed.
  if (previous && !out.stacks) {
    out.kept_images = keep_old_names(out.histogram, *previous, resolver.untrusted);
    if (!out.kept_images.empty()) out.threads.reset();  // its leaves index the rows replaced
  }
  return out;
}

void write_profile_symbols(ProfileWriter& writer, const ProfileSymbols& symbols) {
  // A -g profile's flat table is its stacks' leaves: stored once, as Stacks.
  if (symbols.stacks) {
    writer.write_chunk(ChunkType::Stacks, encode_stacks(*symbols.stacks));
  } else {
    writer.write_chunk(ChunkType::HistogramColumns, encode_histogram_columns(symbols.histogram),
                       true, kZstdSmall);
  }
  if (symbols.threads) {
    writer.write_chunk(ChunkType::ThreadCounts, encode_thread_counts(*symbols.threads), true,
                       kZstdSmall);
  }
  writer.write_end();
}

}  // namespace kprof
