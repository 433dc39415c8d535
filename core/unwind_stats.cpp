#include "core/unwind_stats.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "core/bytes.h"

namespace kprof {

const char* unwind_stop_name(UnwindStop stop) {
  switch (stop) {
    case UnwindStop::Entry:
      return "entry";
    case UnwindStop::StackCopy:
      return "stack copy";
    case UnwindStop::NoCfi:
      return "no CFI";
    case UnwindStop::NoImage:
      return "no image";
    case UnwindStop::ImageChanged:
      return "image changed";
    case UnwindStop::Depth:
      return "depth";
    case UnwindStop::Other:
      return "other";
  }
  return "other";
}

void UnwindStats::add(const std::string& image, UnwindStop stop, uint64_t samples) {
  auto it = std::lower_bound(images.begin(), images.end(), image,
                             [](const Image& a, const std::string& b) { return a.name < b; });
  if (it == images.end() || it->name != image) it = images.insert(it, Image{image, {}});
  it->samples[static_cast<size_t>(stop)] += samples;
}

uint64_t UnwindStats::total() const {
  uint64_t n = 0;
  for (const Image& i : images) {
    for (uint64_t v : i.samples) n += v;
  }
  return n;
}

uint64_t UnwindStats::of(UnwindStop stop) const {
  uint64_t n = 0;
  for (const Image& i : images) n += i.samples[static_cast<size_t>(stop)];
  return n;
}

namespace {

std::string percent(uint64_t part, uint64_t whole) {
  char buf[32];
  const double p = whole == 0 ? 0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  if (p > 0 && p < 0.05) return "<0.1%";
  std::snprintf(buf, sizeof buf, "%.1f%%", p);
  return buf;
}

}  // namespace

std::string unwind_notice(const UnwindStats& s) {
  const uint64_t total = s.total();
  if (total == 0) return "";
  static const std::pair<UnwindStop, const char*> kWhy[] = {
      {UnwindStop::StackCopy, "at the copy size"},
      {UnwindStop::NoCfi, "in code without CFI"},
      {UnwindStop::NoImage, "in code outside any file (JIT, anonymous)"},
      {UnwindStop::ImageChanged, "in files changed or gone since the recording"},
      {UnwindStop::Depth, "at the frame limit"},
      {UnwindStop::Other, "on a frame the CFI could not recover"},
  };
  std::string out = "DWARF unwinding (" + std::to_string(s.stack_bytes) +
                    "-byte stack copies): " + percent(s.of(UnwindStop::Entry), total) +
                    " of user stacks reached a thread's entry";
  const char* sep = "; ";
  for (const auto& [stop, why] : kWhy) {
    const uint64_t n = s.of(stop);
    if (n == 0) continue;
    out += sep + percent(n, total) + " stopped " + why;
    sep = ", ";
    // The image that stopped most of these, when it is most of them.
    const auto at = static_cast<size_t>(stop);
    const auto top =
        std::max_element(s.images.begin(), s.images.end(),
                         [at](const UnwindStats::Image& a, const UnwindStats::Image& b) {
                           return a.samples[at] < b.samples[at];
                         });
    if (stop != UnwindStop::StackCopy && 2 * top->samples[at] > n) {
      out += " (" + std::filesystem::path(top->name).filename().string() + " " +
             percent(top->samples[at], total) + ")";
    }
  }
  return out;
}

std::vector<uint8_t> encode_unwind_stats(const UnwindStats& s) {
  FieldWriter f;
  f.varint(s.stack_bytes);
  ByteWriter& images = f.field();
  images.varint(s.images.size());
  for (const UnwindStats::Image& i : s.images) {
    images.str(i.name);
    images.varint(kUnwindStops);
    for (uint64_t v : i.samples) images.varint(v);
  }
  return f.take();
}

UnwindStats decode_unwind_stats(std::span<const uint8_t> data) {
  UnwindStats s;
  FieldReader f(data, "profile chunk 'unwind'");
  if (f.next()) s.stack_bytes = static_cast<uint32_t>(f.r.varint());
  if (f.next()) {
    const uint64_t n = f.r.count(2);
    for (uint64_t i = 0; i < n; ++i) {
      UnwindStats::Image image;
      image.name = f.r.str();
      // A newer kprof may know more reasons: those count as Other here.
      const uint64_t stops = f.r.count(1);
      for (uint64_t k = 0; k < stops; ++k) {
        const uint64_t v = f.r.varint();
        image.samples[std::min<uint64_t>(k, kUnwindStops - 1)] += v;
      }
      if (!s.images.empty() && !(s.images.back().name < image.name)) {
        f.r.fail("images out of order");
      }
      s.images.push_back(std::move(image));
    }
  }
  return s;
}

}  // namespace kprof
