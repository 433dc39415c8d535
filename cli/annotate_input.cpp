#include "cli/annotate_input.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "collector/kallsyms_cache.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/kernel_symbols.h"
#include "core/thread_names.h"
#include "perfabi/load.h"
#include "report/table.h"
#include "symbolizer/elf_file.h"
#include "symbolizer/function_code.h"
#include "symbolizer/kcore.h"

namespace kprof::cli {

namespace {

// Passes on the samples of the processes --comm and --pid keep.
class ProcessFilterSink final : public ForwardingSink {
 public:
  ProcessFilterSink(RecordSink& next, const SampleFilter& filter)
      : ForwardingSink(next), filter_(filter) {}
  void on_sample(const Sample& s) override {
    if (keeps_process(filter_, s.pid, threads_.of(s.tid))) next_.on_sample(s);
  }
  void on_comm(const Comm& c) override {
    threads_.on_comm(c);
    next_.on_comm(c);
  }
  void on_fork(const Fork& f) override {
    threads_.on_fork(f);
    next_.on_fork(f);
  }

 private:
  const SampleFilter& filter_;
  ThreadNames threads_;
};

// One image's share of the function: its samples by offset, and where to
// read its code (the first address seen there).
struct ImageSamples {
  FunctionSamples samples;
  AddressCounts::Key first{};
  std::optional<ElfResolver::CodeLocation> location;  // user code
};

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The profile's function names nearest `function`: those containing it,
// then the fewest edits away; the most sampled first among equals.
std::string close_names(const std::map<std::string, uint64_t>& functions,
                        const std::string& function) {
  std::vector<std::tuple<size_t, uint64_t, std::string>> ranked;
  for (const auto& [name, samples] : functions) {
    const size_t d = name.find(function) != std::string::npos ? 0 : edit_distance(name, function);
    if (d <= std::max<size_t>(2, function.size() / 3)) ranked.emplace_back(d, samples, name);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) < std::get<0>(y);
    return std::get<1>(x) > std::get<1>(y);
  });
  std::string out;
  for (size_t i = 0; i < ranked.size() && i < 5; ++i) {
    out += (i ? ", " : "") + std::get<2>(ranked[i]);
  }
  return out;
}

std::string source_of(const symbolizer::SourceLines& lines, uint64_t vaddr) {
  const auto at = lines.at(vaddr);
  return at ? at->file + ":" + std::to_string(at->line) : "";
}

// A jump or call to a place inside the function gets "<+0x2d>" after its
// target, as perf annotate marks it.
void mark_local_target(std::string& text, uint64_t address, uint64_t size) {
  if (text.empty() || (text[0] != 'j' && !text.starts_with("call"))) return;
  const size_t at = text.rfind(" 0x");
  if (at == std::string::npos) return;
  char* end = nullptr;
  const uint64_t target = std::strtoull(text.c_str() + at + 3, &end, 16);
  if (*end != '\0' || target < address || target - address >= size) return;
  char mark[32];
  std::snprintf(mark, sizeof mark, " <+0x%llx>", static_cast<unsigned long long>(target - address));
  text += mark;
}

// The instructions of `bytes` at `address` (lines from `lines` at
// vaddr_base + offset) as the report's code lines.
void fill_code(FunctionCode& code, const std::vector<uint8_t>& bytes, uint64_t address,
               const symbolizer::SourceLines& lines, uint64_t vaddr_base) {
  std::string why;
  code.address = address;
  for (symbolizer::Instruction& i : symbolizer::disassemble_x86_64(bytes, address, &why)) {
    const uint64_t offset = i.address - address;
    mark_local_target(i.text, address, bytes.size());
    code.lines.push_back(
        {offset, i.size, std::move(i.text), source_of(lines, vaddr_base + offset)});
  }
  if (!why.empty()) code.notes.push_back(why);
}

symbolizer::SourceLines open_lines(const std::string& debug_file, const std::string& file,
                                   FunctionCode& code) {
  std::string why;
  if (!debug_file.empty()) {
    if (auto lines = symbolizer::SourceLines::open(debug_file, &why)) return lines;
  }
  auto lines = symbolizer::SourceLines::open(file, &why);
  if (!lines) {
    code.notes.push_back("no source lines: " + why +
                         " (build with -g, or install the package's -dbgsym/-dbg debug files)");
  }
  return lines;
}

FunctionCode user_code(const ElfResolver::CodeLocation& at) {
  FunctionCode code{.address = at.start, .size = at.end - at.start, .lines = {}, .notes = {}};
  std::string why;
  const auto bytes = symbolizer::read_code(at.file, at.start, at.end, &why);
  if (!bytes) {
    code.notes.push_back("no code bytes: " + why);
    return code;
  }
  const symbolizer::SourceLines lines = open_lines(at.debug_file, at.file, code);
  fill_code(code, *bytes, at.start, lines, at.start);
  return code;
}

FunctionCode kernel_code(const Profile& p, const std::string& function, uint64_t start,
                         uint64_t end, const AnnotateSource& source) {
  FunctionCode code{.address = start, .size = end - start, .lines = {}, .notes = {}};
  const symbolizer::SourceLines none;
  if (!source.vmlinux.empty()) {
    std::string why;
    symbolizer::ElfFile file = symbolizer::ElfFile::open(source.vmlinux, &why);
    if (!file)
      throw Error(source.vmlinux + ": " + why + " (--vmlinux wants the kernel's ELF image)");
    symbolizer::SymbolTable symbols;
    symbolizer::add_function_symbols(file.elf(), SHT_SYMTAB, symbols);
    symbols.finish();
    const auto x = symbols.find(function);
    if (!x) {
      code.notes.push_back("no code bytes: " + source.vmlinux + " has no function " + function +
                           " (a module's function, or another kernel's image?)");
      return code;
    }
    if (x->end - x->addr != end - start) {
      code.notes.push_back(source.vmlinux + "'s " + function + " is " +
                           std::to_string(x->end - x->addr) + " bytes, the recorded kernel's " +
                           std::to_string(end - start) +
                           " (to the next symbol): is it that kernel's image?");
    }
    const auto bytes = symbolizer::read_code(source.vmlinux, x->addr, x->end, &why);
    if (!bytes) {
      code.notes.push_back("no code bytes: " + why);
      return code;
    }
    const symbolizer::SourceLines lines = open_lines("", source.vmlinux, code);
    // Listed at the recorded kernel's addresses (KASLR moves the image).
    fill_code(code, *bytes, start, lines, x->addr);
    return code;
  }
  const std::string boot = collector::current_boot_id();
  if (boot.empty() || p.run.boot_id != boot) {
    code.notes.push_back(
        "no code bytes for kernel functions here: the profile was recorded on another boot "
        "(give --vmlinux FILE, that kernel's unstripped image, as in linux-image-*-dbg)");
    return code;
  }
  std::string why;
  const auto memory = symbolizer::KernelMemory::open(&why);
  const auto bytes = memory ? memory->read(start, end - start) : std::nullopt;
  if (!bytes) {
    code.notes.push_back("no code bytes for kernel functions here: /proc/kcore: " +
                         (why.empty() ? "cannot read the function" : why) +
                         " (as root where the kernel has it, or give --vmlinux FILE)");
    return code;
  }
  fill_code(code, *bytes, start, none, 0);
  code.notes.push_back("kernel code read from /proc/kcore; no source lines without --vmlinux");
  return code;
}

}  // namespace

Annotation annotate_profile(const std::string& path, const std::string& function,
                            const SampleFilter& filter, const AnnotateSource& source) {
  Profile p = path != "-" && importer::file_format(path) == importer::InputFormat::Kprof
                  ? perfabi::load_profile(path, {.tables = false})
                  : load_input(path, {});
  pick_event(p, path, source.event);
  AddressAggregator agg;
  agg.leave_out(p.run.recorder_pid);
  ProcessFilterSink processes(agg, filter);
  read_records(path, p, filter, processes, "annotating a function", true);
  const AddressCounts& counts = agg.counts();
  const KernelSymbols kernel = KernelSymbols::parse(p.kallsyms, p.modules);
  ElfResolver resolver(resolver_options({}));
  const AddressNames names(counts, kernel, resolver);

  std::map<std::string, ImageSamples> images;
  std::map<std::string, uint64_t> functions;  // every sampled function, for suggestions
  for (const auto& [key, c] : counts.counts) {
    const AddressNames::Name name = names(key);
    if (name.function != function) {
      functions[std::string(name.function)] += c.samples;
      continue;
    }
    const std::string image(name.image);
    if (!filter.dsos.empty() &&
        std::none_of(filter.dsos.begin(), filter.dsos.end(),
                     [&](const std::string& d) { return names_image(image, d); })) {
      continue;
    }
    ImageSamples& is = images[image];
    uint64_t start = 0;
    if (key.mapping == AddressCounts::kNoMapping) {
      const auto x = kernel.extent(key.ip);
      if (!x) continue;
      start = x->start;
    } else {
      // A function whose code is not in a file here ([vdso], a missing
      // binary) keeps its samples, by address, without code.
      const auto at = resolver.locate(counts.mappings[key.mapping], key.ip);
      if (at) start = at->start + at->bias;
      if (at && !is.location) is.location = at;
    }
    if (is.samples.samples == 0) is.first = key;
    is.samples.by_offset[key.ip - start] += c.samples;
    is.samples.samples += c.samples;
  }
  for (const std::string& w : resolver.warnings()) {
    std::fprintf(stderr, "kprof annotate: warning: %s\n", w.c_str());
  }
  std::erase_if(images, [](const auto& i) { return i.second.samples.samples == 0; });
  if (images.empty()) {
    const std::string close = close_names(functions, function);
    throw Error(path + ": no sample in a function named " + function +
                    (filter.empty() ? "" : " (with " + filter.describe() + ")") + " among its " +
                    format_count(counts.samples) + " samples" +
                    (close.empty() ? "" : "; close names: " + close),
                1);
  }
  auto best = std::max_element(images.begin(), images.end(), [](const auto& x, const auto& y) {
    return x.second.samples.samples < y.second.samples.samples;
  });
  ImageSamples& chosen = best->second;
  chosen.samples.function = function;
  chosen.samples.image = best->first;
  chosen.samples.profile_samples = counts.samples;
  FunctionCode code;
  if (chosen.first.mapping == AddressCounts::kNoMapping) {
    const auto x = kernel.extent(chosen.first.ip);
    code = kernel_code(p, function, x->start, x->end, source);
  } else if (chosen.location) {
    code = user_code(*chosen.location);
  } else {
    code.notes.push_back("no code bytes: " + chosen.samples.image +
                         "'s code is not in a file this machine can read; its sampled addresses "
                         "are listed");
  }
  for (const auto& [image, is] : images) {
    if (&is == &chosen) continue;
    code.notes.push_back("also in " + image + " (" + format_count(is.samples.samples) +
                         " samples): --dso " + image + " shows that one");
  }
  return annotate(chosen.samples, code);
}

}  // namespace kprof::cli
