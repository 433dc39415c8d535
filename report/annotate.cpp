#include "report/annotate.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "report/table.h"

namespace kprof {

Annotation annotate(const FunctionSamples& samples, const FunctionCode& code) {
  Annotation a{.function = samples.function,
               .image = samples.image,
               .address = code.address,
               .size = code.size,
               .samples = samples.samples,
               .profile_samples = samples.profile_samples,
               .lines = {},
               .notes = code.notes};
  auto next = samples.by_offset.begin();
  auto uncovered_before = [&](uint64_t offset) {  // sampled offsets no instruction holds
    for (; next != samples.by_offset.end() && next->first < offset; ++next) {
      a.lines.push_back({next->first, next->second, "", ""});
    }
  };
  for (const CodeLine& c : code.lines) {
    uncovered_before(c.offset);
    AnnotatedLine line{c.offset, 0, c.text, c.source};
    for (; next != samples.by_offset.end() && next->first < c.offset + std::max(c.size, 1u);
         ++next) {
      line.samples += next->second;
    }
    a.lines.push_back(std::move(line));
  }
  uncovered_before(UINT64_MAX);
  if (!code.lines.empty() &&
      std::any_of(a.lines.begin(), a.lines.end(), [](const auto& l) { return l.text.empty(); })) {
    a.notes.push_back(
        "some samples lie outside the instructions read (the binary changed since the "
        "recording?): listed without an instruction");
  }
  return a;
}

Annotation merge_annotations(std::vector<Annotation> runs) {
  Annotation out = std::move(runs.at(0));
  for (size_t r = 1; r < runs.size(); ++r) {
    std::map<uint64_t, AnnotatedLine> by_offset;
    for (AnnotatedLine& l : out.lines) by_offset.emplace(l.offset, std::move(l));
    for (AnnotatedLine& l : runs[r].lines) {
      auto [it, added] = by_offset.try_emplace(l.offset, l);
      if (!added) it->second.samples += l.samples;
    }
    out.lines.clear();
    for (auto& [offset, l] : by_offset) out.lines.push_back(std::move(l));
    out.samples += runs[r].samples;
    out.profile_samples += runs[r].profile_samples;
  }
  return out;
}

namespace {

double share(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%" PRIx64, v);
  return buf;
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// "prog.c:22" from "/long/path/prog.c:22": the base name reads in a column.
std::string short_source(const std::string& source) {
  const size_t slash = source.rfind('/');
  return slash == std::string::npos ? source : source.substr(slash + 1);
}

}  // namespace

void write_annotation(std::ostream& out, const Annotation& a, AnnotateOrder order) {
  out << "kprof annotate: " << a.function << " in " << a.image << " ("
      << (a.size ? std::to_string(a.size) + " bytes at " + hex(a.address) : "code not read")
      << "): " << format_count(a.samples) << " samples, "
      << format_fixed(share(a.samples, a.profile_samples), 2) << "% of the profile's\n";
  for (const std::string& n : a.notes) out << "note: " << n << "\n";
  std::vector<const AnnotatedLine*> rows;
  for (const AnnotatedLine& l : a.lines) {
    if (order == AnnotateOrder::Address || l.samples > 0) rows.push_back(&l);
  }
  if (order == AnnotateOrder::Hot) {
    std::stable_sort(rows.begin(), rows.end(), [](const AnnotatedLine* x, const AnnotatedLine* y) {
      return x->samples > y->samples;
    });
  }
  size_t text_width = 14;  // "(no code read)"
  for (const AnnotatedLine* l : rows) text_width = std::max(text_width, l->text.size());
  text_width = std::min<size_t>(text_width, 48);
  out << "\n"
      << pad_left("Share", 8) << pad_left("Samples", 9) << "  " << pad_right("Address", 16) << "  "
      << pad_right("Instruction", text_width) << "  Source\n";
  for (const AnnotatedLine* l : rows) {
    const std::string pct = l->samples ? format_fixed(share(l->samples, a.samples), 2) + "%" : "";
    const std::string text = l->text.empty() ? "(no code read)" : l->text;
    out << pad_left(pct, 8) << pad_left(l->samples ? format_count(l->samples) : "", 9) << "  "
        << pad_right(hex(a.address + l->offset), 16) << "  " << pad_right(text, text_width) << "  "
        << short_source(l->source) << "\n";
  }
}

namespace {

// One row of the side-by-side table: a key (instruction, source line or
// rank) and each side's samples under it.
struct DiffRow {
  std::string key;
  std::vector<uint64_t> samples;
};

bool same_code(const std::vector<Annotation>& sides) {
  auto code_of = [](const Annotation& a) {
    std::vector<std::pair<uint64_t, const std::string*>> out;
    for (const AnnotatedLine& l : a.lines) {
      if (l.text.empty()) return std::vector<std::pair<uint64_t, const std::string*>>{};
      out.emplace_back(l.offset, &l.text);
    }
    return out;
  };
  const auto first = code_of(sides[0]);
  if (first.empty()) return false;
  for (size_t s = 1; s < sides.size(); ++s) {
    const auto other = code_of(sides[s]);
    if (other.size() != first.size()) return false;
    for (size_t i = 0; i < first.size(); ++i) {
      // Branch targets name absolute addresses, which move with the load
      // address of kernel code: compare the mnemonic and offset only there.
      const std::string& x = *first[i].second;
      const std::string& y = *other[i].second;
      if (first[i].first != other[i].first ||
          x.substr(0, x.find(' ')) != y.substr(0, y.find(' '))) {
        return false;
      }
    }
  }
  return true;
}

bool all_have_sources(const std::vector<Annotation>& sides) {
  return std::all_of(sides.begin(), sides.end(), [](const Annotation& a) {
    return std::any_of(a.lines.begin(), a.lines.end(),
                       [](const AnnotatedLine& l) { return l.samples > 0 && !l.source.empty(); });
  });
}

}  // namespace

void write_annotation_diff(std::ostream& out, const std::vector<Annotation>& sides,
                           const std::vector<std::string>& labels, size_t top) {
  if (sides.empty()) return;
  out << "kprof diff --annotate " << sides[0].function << ": each side's share of the "
      << "function's samples\n";
  for (size_t s = 0; s < sides.size(); ++s) {
    out << "  " << labels[s] << ": " << sides[s].image << ", " << format_count(sides[s].samples)
        << " samples (" << format_fixed(share(sides[s].samples, sides[s].profile_samples), 2)
        << "% of the profile's)\n";
    for (const std::string& n : sides[s].notes)
      out << "  note (" << labels[s] << "): " << n << "\n";
  }
  std::vector<DiffRow> rows;
  std::string key_title;
  bool by_rank = false;  // rows already in rank order
  if (same_code(sides)) {
    key_title = "Offset  Instruction (" + labels[0] + ")";
    for (size_t i = 0; i < sides[0].lines.size(); ++i) {
      const AnnotatedLine& l = sides[0].lines[i];
      DiffRow row{"+0x" + hex(l.offset) + "  " + l.text +
                      (l.source.empty() ? "" : "  " + short_source(l.source)),
                  {}};
      for (const Annotation& a : sides) row.samples.push_back(a.lines[i].samples);
      rows.push_back(std::move(row));
    }
    out << "the code is the same on every side: compared instruction by instruction\n";
  } else if (all_have_sources(sides)) {
    key_title = "Source line";
    std::unordered_map<std::string, size_t> at;
    for (size_t s = 0; s < sides.size(); ++s) {
      for (const AnnotatedLine& l : sides[s].lines) {
        if (l.samples == 0) continue;
        const std::string key = l.source.empty() ? "(no line)" : short_source(l.source);
        auto [it, added] = at.try_emplace(key, rows.size());
        if (added) rows.push_back({key, std::vector<uint64_t>(sides.size())});
        rows[it->second].samples[s] += l.samples;
      }
    }
    out << "the code differs between the sides: compared by source line\n";
  } else {
    key_title = "Rank  (each side's instruction at that rank)";
    by_rank = true;
    std::vector<std::vector<const AnnotatedLine*>> hot(sides.size());
    size_t n = 0;
    for (size_t s = 0; s < sides.size(); ++s) {
      for (const AnnotatedLine& l : sides[s].lines) {
        if (l.samples) hot[s].push_back(&l);
      }
      std::stable_sort(hot[s].begin(), hot[s].end(),
                       [](const auto* x, const auto* y) { return x->samples > y->samples; });
      n = std::max(n, hot[s].size());
    }
    for (size_t r = 0; r < n; ++r) {
      DiffRow row{std::to_string(r + 1), std::vector<uint64_t>(sides.size())};
      for (size_t s = 0; s < sides.size(); ++s) {
        if (r >= hot[s].size()) continue;
        row.samples[s] = hot[s][r]->samples;
        row.key += "  " + labels[s] + ": +0x" + hex(hot[s][r]->offset) + " " + hot[s][r]->text;
      }
      rows.push_back(std::move(row));
    }
    out << "the code differs between the sides and has no source lines: each side's hottest "
           "instructions by rank\n";
  }
  auto pct = [&](const DiffRow& r, size_t s) { return share(r.samples[s], sides[s].samples); };
  std::erase_if(rows, [](const DiffRow& r) {
    return std::all_of(r.samples.begin(), r.samples.end(), [](uint64_t v) { return v == 0; });
  });
  const size_t last = sides.size() - 1;
  if (!by_rank) {
    std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& x, const DiffRow& y) {
      return std::fabs(pct(x, last) - pct(x, 0)) > std::fabs(pct(y, last) - pct(y, 0));
    });
  }
  if (top != 0 && rows.size() > top) rows.resize(top);
  out << "\n";
  for (const std::string& l : labels) out << pad_left(l.substr(0, 10), 11);
  if (sides.size() == 2) out << pad_left("Delta", 9);
  out << "  " << key_title << "\n";
  for (const DiffRow& r : rows) {
    for (size_t s = 0; s < sides.size(); ++s) out << pad_left(format_fixed(pct(r, s), 2) + "%", 11);
    if (sides.size() == 2) {
      const double d = pct(r, 1) - pct(r, 0);
      out << pad_left((d >= 0 ? "+" : "") + format_fixed(d, 2), 9);
    }
    out << "  " << r.key << "\n";
  }
}

}  // namespace kprof
