// Payload codecs for the Meta, Summary, Histogram and Stacks chunks
// (encoding: chunk_codecs.h).
#include "core/chunk_codecs.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <string>
#include <tuple>

#include "core/bytes.h"
#include "core/error.h"
#include "core/model.h"

namespace kprof {
namespace {

std::vector<uint8_t> encode_proc_stat(const ProcStat& s) {
  FieldWriter f;
  for (uint64_t v : {s.time_ns, s.user, s.nice, s.system, s.idle, s.iowait, s.irq, s.softirq,
                     s.steal, s.intr, s.ctxt}) {
    f.varint(v);
  }
  return f.take();
}

ProcStat decode_proc_stat(std::span<const uint8_t> data) {
  ProcStat s;
  FieldReader f(data, "profile proc stat");
  for (uint64_t* v : {&s.time_ns, &s.user, &s.nice, &s.system, &s.idle, &s.iowait, &s.irq,
                      &s.softirq, &s.steal, &s.intr, &s.ctxt}) {
    if (!f.next()) break;
    *v = f.r.varint();
  }
  return s;
}

std::vector<uint8_t> encode_event(const EventInfo& e) {
  FieldWriter f;
  f.str(e.requested);
  f.str(e.name);
  f.varint(e.type);
  f.varint(e.config);
  f.u8(e.use_freq);
  f.varint(e.rate);
  f.u8(e.fell_back);
  f.str(e.fallback_reason);
  f.u8(e.exclude_kernel);
  f.u8(e.callchains);
  f.varint(e.user_stack_bytes);
  f.varint(e.dither_pct);
  return f.take();
}

EventInfo decode_event(std::span<const uint8_t> data) {
  EventInfo e;
  FieldReader f(data, "profile event info");
  if (f.next()) e.requested = f.r.str();
  if (f.next()) e.name = f.r.str();
  if (f.next()) e.type = static_cast<uint32_t>(f.r.varint());
  if (f.next()) e.config = f.r.varint();
  if (f.next()) e.use_freq = f.r.u8() != 0;
  if (f.next()) e.rate = f.r.varint();
  if (f.next()) e.fell_back = f.r.u8() != 0;
  if (f.next()) e.fallback_reason = f.r.str();
  if (f.next()) e.exclude_kernel = f.r.u8() != 0;
  if (f.next()) e.callchains = f.r.u8() != 0;
  if (f.next()) e.user_stack_bytes = static_cast<uint32_t>(f.r.varint());
  if (f.next()) e.dither_pct = static_cast<uint32_t>(f.r.varint());
  return e;
}

void write_strings(ByteWriter& w, const std::vector<std::string>& v) {
  w.varint(v.size());
  for (const auto& s : v) w.str(s);
}

std::vector<std::string> read_strings(ByteReader& r) {
  std::vector<std::string> v(r.count(1));
  for (auto& s : v) s = r.str();
  return v;
}

}  // namespace

std::vector<uint8_t> encode_run_info(const RunInfo& ri) {
  FieldWriter f;
  f.blob(encode_event(ri.event));
  f.str(ri.target);
  write_strings(f.field(), ri.command);
  f.str(ri.kernel_release);
  f.str(ri.kernel_build_id);
  f.str(ri.hostname);
  f.str(ri.cpu_model);
  f.varint(ri.ncpus);
  f.varint(ri.start_realtime_ns);
  f.varint(ri.start_monotonic_ns);
  f.blob(encode_proc_stat(ri.stat_before));
  write_strings(f.field(), ri.notices);
  ByteWriter& scores = f.field();
  scores.varint(ri.scores.size());
  for (const auto& [name, value] : ri.scores) {
    scores.str(name);
    scores.u64(std::bit_cast<uint64_t>(value));
  }
  f.str(ri.source_format);
  f.u8(ri.sample_counts ? 1 : 0);
  f.str(ri.boot_id);
  f.str(ri.kallsyms_digest);
  f.varint(ri.ring_pages);
  f.u8(ri.ring_pages_auto ? 1 : 0);
  f.varint(ri.recorder_pid);
  if (!ri.more_events.empty()) {  // the last field: a recording of one event is as before
    ByteWriter& more = f.field();
    more.varint(ri.more_events.size());
    for (const EventInfo& e : ri.more_events) {
      const std::vector<uint8_t> blob = encode_event(e);
      more.varint(blob.size());
      more.raw(blob);
    }
  }
  return f.take();
}

RunInfo decode_run_info(std::span<const uint8_t> data) {
  RunInfo ri;
  FieldReader f(data, "profile chunk 'meta'");
  if (f.next()) ri.event = decode_event(f.blob());
  if (f.next()) ri.target = f.r.str();
  if (f.next()) ri.command = read_strings(f.r);
  if (f.next()) ri.kernel_release = f.r.str();
  if (f.next()) ri.kernel_build_id = f.r.str();
  if (f.next()) ri.hostname = f.r.str();
  if (f.next()) ri.cpu_model = f.r.str();
  if (f.next()) ri.ncpus = static_cast<uint32_t>(f.r.varint());
  if (f.next()) ri.start_realtime_ns = f.r.varint();
  if (f.next()) ri.start_monotonic_ns = f.r.varint();
  if (f.next()) ri.stat_before = decode_proc_stat(f.blob());
  if (f.next()) ri.notices = read_strings(f.r);
  if (f.next()) {
    const size_t n = f.r.count(9);
    for (size_t i = 0; i < n; ++i) {
      std::string name(f.r.str());
      ri.scores[name] = f.f64();
    }
  }
  if (f.next()) ri.source_format = f.r.str();
  if (f.next()) ri.sample_counts = f.r.u8() != 0;
  if (f.next()) ri.boot_id = f.r.str();
  if (f.next()) ri.kallsyms_digest = f.r.str();
  if (f.next()) ri.ring_pages = f.r.varint();
  if (f.next()) ri.ring_pages_auto = f.r.u8() != 0;
  if (f.next()) ri.recorder_pid = static_cast<uint32_t>(f.r.varint());
  if (f.next()) {
    ri.more_events.resize(f.r.count(1));
    for (EventInfo& e : ri.more_events) e = decode_event(f.blob());
  }
  return ri;
}

std::vector<uint8_t> encode_summary(const Summary& s) {
  FieldWriter f;
  f.varint(s.duration_ns);
  f.varint(s.samples);
  f.varint(s.lost);
  f.u8(static_cast<uint8_t>(s.exit.kind));
  f.svarint(s.exit.value);
  f.f64(s.real_s);
  f.f64(s.user_s);
  f.f64(s.sys_s);
  f.f64(s.kprof_user_s);
  f.f64(s.kprof_sys_s);
  f.str(s.stop_reason);
  f.blob(encode_proc_stat(s.stat_after));
  f.varint(s.throttled);
  ByteWriter& scores = f.field();
  scores.varint(s.scores.size());
  for (const auto& [name, value] : s.scores) {
    scores.str(name);
    scores.u64(std::bit_cast<uint64_t>(value));
  }
  return f.take();
}

Summary decode_summary(std::span<const uint8_t> data) {
  Summary s;
  FieldReader f(data, "profile chunk 'summary'");
  if (f.next()) s.duration_ns = f.r.varint();
  if (f.next()) s.samples = f.r.varint();
  if (f.next()) s.lost = f.r.varint();
  if (f.next()) {
    const uint8_t kind = f.r.u8();
    if (kind > static_cast<uint8_t>(ExitStatus::Kind::Signaled)) f.r.fail("unknown exit kind");
    s.exit.kind = static_cast<ExitStatus::Kind>(kind);
  }
  if (f.next()) s.exit.value = static_cast<int>(f.r.svarint());
  if (f.next()) s.real_s = f.f64();
  if (f.next()) s.user_s = f.f64();
  if (f.next()) s.sys_s = f.f64();
  if (f.next()) s.kprof_user_s = f.f64();
  if (f.next()) s.kprof_sys_s = f.f64();
  if (f.next()) s.stop_reason = f.r.str();
  if (f.next()) s.stat_after = decode_proc_stat(f.blob());
  if (f.next()) s.throttled = f.r.varint();
  if (f.next()) {
    const size_t n = f.r.count(9);  // a name length and 8 bytes each
    for (size_t i = 0; i < n; ++i) {
      std::string name(f.r.str());
      s.scores[std::move(name)] = std::bit_cast<double>(f.r.u64());
    }
  }
  return s;
}

void encode_images(FieldWriter& f, const std::vector<Image>& images) {
  ByteWriter& w = f.field();
  w.varint(images.size());
  for (const auto& im : images) {
    FieldWriter e;
    e.str(im.name);
    e.str(im.build_id);
    FieldWriter::write_blob(w, e.take());
  }
}

namespace {

void decode_images(FieldReader& f, std::vector<Image>& images, std::string_view context) {
  images.resize(f.r.count(2));
  for (auto& im : images) {
    FieldReader e(f.blob(), context);
    if (e.next()) im.name = e.r.str();
    if (e.next()) im.build_id = e.r.str();
  }
}

Mode decode_mode(ByteReader& r) {
  const uint8_t mode = r.u8();
  if (mode > static_cast<uint8_t>(Mode::Unknown)) r.fail("unknown mode");
  return static_cast<Mode>(mode);
}

// An index read from the file, checked against the table it points into.
uint32_t decode_index(ByteReader& r, size_t size, const char* what) {
  const uint64_t i = r.varint();
  if (i >= size)
    r.fail(std::string(what) + " " + std::to_string(i) + " of " + std::to_string(size));
  return static_cast<uint32_t>(i);
}

}  // namespace

Histogram decode_histogram(std::span<const uint8_t> data) {
  Histogram h;
  FieldReader f(data, "profile chunk 'histogram'");
  if (f.next()) decode_images(f, h.images, "profile chunk 'histogram' image");
  if (f.next()) {
    h.rows.resize(f.r.count(2));
    for (auto& row : h.rows) {
      FieldReader e(f.blob(), "profile chunk 'histogram' row");
      if (e.next()) row.image = decode_index(e.r, h.images.size(), "row names image");
      if (e.next()) row.function = e.r.str();
      if (e.next()) row.mode = decode_mode(e.r);
      if (e.next()) row.samples = e.r.varint();
      if (e.next()) row.period = e.r.varint();
      if (e.next()) row.peak_samples = e.r.varint();
      if (e.next()) row.peak_ip = e.r.varint();
      if (e.next()) row.peak_after_irq_enable = e.r.u8() != 0;
      if (row.peak_samples > row.samples) e.r.fail("a row's peak exceeds its samples");
    }
  }
  if (!h.rows.empty() && h.images.empty()) f.r.fail("rows without images");
  return h;
}

// Histogram, column layout: struct fields 1 images, 2 the row count, 3 the
// period a sample typically stands for (P: total period / total samples),
// 4 the columns (a count, then each as varint length + bytes; a reader
// ignores columns it does not know). Rows are stored sorted by image and
// peak address, so neighbours in the binary sit together:
//   0 names          str per row
//   1 images         varint per row: minus the previous row's image
//   2 modes          u8 per row
//   3 samples        varint per row
//   4 periods        svarint per row: minus samples * P (0 for a timer)
//   5 peak misses    varint per row: samples minus peak_samples
//   6 peak ips       svarint per row: minus the previous row's peak ip
//   7 flags          u8 per row: bit 0 peak_after_irq_enable
//   8 slices         the slice count B (0: none), then per row when B > 0
//                    the count of slices with samples, and for each its
//                    index (minus the previous one's plus 1) and samples.
//                    Optional: files before it have 8 columns.
namespace {
constexpr const char* kHistogramColumns[] = {
    "profile chunk 'histogram' column 'names'",    "profile chunk 'histogram' column 'images'",
    "profile chunk 'histogram' column 'modes'",    "profile chunk 'histogram' column 'samples'",
    "profile chunk 'histogram' column 'periods'",  "profile chunk 'histogram' column 'peak misses'",
    "profile chunk 'histogram' column 'peak ips'", "profile chunk 'histogram' column 'flags'",
    "profile chunk 'histogram' column 'slices'"};
constexpr size_t kHistogramColumnCount = std::size(kHistogramColumns);
constexpr size_t kHistogramRequiredColumns = 8;  // 'slices' came later
constexpr uint64_t kMaxSlices = 1024;

// One row's (or stack's) samples over the slices, sparse: the count of
// slices with samples, then for each the gap from the last one and its count.
void encode_slices(ByteWriter& out, const std::vector<uint32_t>& slices) {
  out.varint(static_cast<uint64_t>(
      std::count_if(slices.begin(), slices.end(), [](uint32_t c) { return c > 0; })));
  size_t next = 0;
  for (size_t j = 0; j < slices.size(); ++j) {
    if (slices[j] == 0) continue;
    out.varint(j - next);
    out.varint(slices[j]);
    next = j + 1;
  }
}

// encode_slices' entry: `samples` over `count` slices, which must add up.
std::vector<uint32_t> decode_slices(ByteReader& c, uint64_t count, uint64_t samples) {
  std::vector<uint32_t> out(count, 0);
  const uint64_t m = c.varint();
  if (m > count) c.fail("a row with samples in more slices than there are");
  uint64_t next = 0, sum = 0;
  for (uint64_t i = 0; i < m; ++i) {
    const uint64_t at = next + c.varint();
    const uint64_t k = c.varint();
    if (at >= count || at < next) c.fail("a slice index beyond the slice count");
    if (k == 0 || k > UINT32_MAX) c.fail("a slice count of 0 or beyond 32 bits");
    out[at] = static_cast<uint32_t>(k);
    sum += k;
    next = at + 1;
  }
  if (sum != samples) c.fail("a row's slices do not add up to its samples");
  return out;
}

// Slices every row has, or 0 when some row has none or a different count.
size_t common_slices(const Histogram& h) {
  if (h.rows.empty()) return 0;
  const size_t b = h.rows[0].slices.size();
  for (const auto& row : h.rows) {
    if (row.slices.size() != b) return 0;
  }
  return b;
}

uint64_t typical_period(const Histogram& h) {
  uint64_t samples = 0, period = 0;
  for (const auto& row : h.rows) samples += row.samples, period += row.period;
  return samples == 0 ? 0 : period / samples;
}
}  // namespace

std::vector<uint8_t> encode_histogram_columns(const Histogram& h) {
  std::vector<const FunctionCount*> rows;
  rows.reserve(h.rows.size());
  for (const auto& row : h.rows) rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const FunctionCount* a, const FunctionCount* b) {
    return std::tie(a->image, a->peak_ip, a->function, a->mode) <
           std::tie(b->image, b->peak_ip, b->function, b->mode);
  });
  const uint64_t per_sample = typical_period(h);
  ByteWriter col[kHistogramColumnCount];
  const size_t slices = common_slices(h);
  col[8].varint(slices);
  uint32_t image = 0;
  uint64_t peak_ip = 0;
  for (const FunctionCount* row : rows) {
    col[0].str(row->function);
    col[1].varint(row->image - image);
    image = row->image;
    col[2].u8(static_cast<uint8_t>(row->mode));
    col[3].varint(row->samples);
    col[4].svarint(static_cast<int64_t>(row->period - row->samples * per_sample));
    col[5].varint(row->samples - row->peak_samples);
    col[6].svarint(static_cast<int64_t>(row->peak_ip - peak_ip));
    peak_ip = row->peak_ip;
    col[7].u8(row->peak_after_irq_enable ? 1 : 0);
    if (slices > 0) encode_slices(col[8], row->slices);
  }
  FieldWriter f;
  encode_images(f, h.images);
  f.varint(rows.size());
  f.varint(per_sample);
  ByteWriter& columns = f.field();
  columns.varint(kHistogramColumnCount);
  for (const ByteWriter& c : col) FieldWriter::write_blob(columns, c.bytes());
  return f.take();
}

Histogram decode_histogram_columns(std::span<const uint8_t> data) {
  Histogram h;
  FieldReader f(data, "profile chunk 'histogram'");
  if (!f.next()) return h;
  decode_images(f, h.images, "profile chunk 'histogram' image");
  if (!f.next()) return h;
  const size_t n = f.r.count(kHistogramColumnCount);
  if (!f.next() || !f.next()) f.r.fail("rows without their columns");
  const uint64_t per_sample = f.r.varint();
  std::vector<ByteReader> col = read_columns(f.r, kHistogramColumns, kHistogramRequiredColumns);
  if (n > 0 && h.images.empty()) f.r.fail("rows without images");
  const uint64_t slices = col.size() > 8 ? col[8].varint() : 0;
  if (slices > kMaxSlices) {
    col[8].fail(std::to_string(slices) + " time slices, more than " + std::to_string(kMaxSlices));
  }
  h.rows.resize(n);
  uint64_t image = 0, peak_ip = 0;
  for (auto& row : h.rows) {
    row.function = col[0].str();
    image += col[1].varint();
    if (image >= h.images.size()) {
      col[1].fail("row names image " + std::to_string(image) + " of " +
                  std::to_string(h.images.size()));
    }
    row.image = static_cast<uint32_t>(image);
    row.mode = decode_mode(col[2]);
    row.samples = col[3].varint();
    row.period = row.samples * per_sample + static_cast<uint64_t>(col[4].svarint());
    const uint64_t misses = col[5].varint();
    if (misses > row.samples) col[5].fail("a row's peak exceeds its samples");
    row.peak_samples = row.samples - misses;
    peak_ip += static_cast<uint64_t>(col[6].svarint());
    row.peak_ip = peak_ip;
    const uint8_t flags = col[7].u8();
    if (flags > 1) col[7].fail("unknown row flags " + std::to_string(flags));
    row.peak_after_irq_enable = flags & 1;
    if (slices > 0) row.slices = decode_slices(col[8], slices, row.samples);
  }
  expect_columns_done(col);
  return h;
}

// Stacks: images and frames as small structs (field counts, so fields can be
// added); the stack table, which holds nearly all the bytes, as plain varints:
// process, frame count, frame ids (leaf first), samples, period; then (a later
// field, absent from older files) the time slices: their count (0: none),
// and per frame its samples as a leaf in them, sparse as the histogram's
// column (checked against the stacks: they must add up).
std::vector<uint8_t> encode_stacks(const Stacks& st) {
  FieldWriter f;
  encode_images(f, st.images);
  ByteWriter& frames = f.field();
  frames.varint(st.frames.size());
  for (const Frame& fr : st.frames) {
    FieldWriter e;
    e.varint(fr.image);
    e.str(fr.function);
    e.u8(static_cast<uint8_t>(fr.mode));
    FieldWriter::write_blob(frames, e.take());
  }
  ByteWriter& processes = f.field();
  processes.varint(st.processes.size());
  for (const StackProcess& p : st.processes) {
    FieldWriter e;
    e.varint(p.pid);
    e.str(p.name);
    FieldWriter::write_blob(processes, e.take());
  }
  ByteWriter& stacks = f.field();
  stacks.varint(st.stacks.size());
  for (const Stack& s : st.stacks) {
    stacks.varint(s.process);
    stacks.varint(s.frames.size());
    for (uint32_t id : s.frames) stacks.varint(id);
    stacks.varint(s.samples);
    stacks.varint(s.period);
  }
  // Field 5 (later than the rest): each frame's samples as a leaf over the
  // recording's time slices, as the histogram's 'slices' column; 0: none.
  ByteWriter& slices = f.field();
  size_t count = 0;
  bool consistent = st.leaf_slices.size() == st.frames.size();
  for (const std::vector<uint32_t>& s : st.leaf_slices) {
    if (s.empty()) continue;
    if (count == 0) count = s.size();
    consistent &= s.size() == count;
  }
  if (!consistent) count = 0;
  slices.varint(count);
  if (count > 0) {
    for (const std::vector<uint32_t>& s : st.leaf_slices) {
      if (s.empty()) {
        slices.varint(0);  // no leaf: no slice with samples
      } else {
        encode_slices(slices, s);
      }
    }
  }
  return f.take();
}

Stacks decode_stacks(std::span<const uint8_t> data) {
  Stacks st;
  FieldReader f(data, "profile chunk 'stacks'");
  if (f.next()) decode_images(f, st.images, "profile chunk 'stacks' image");
  if (f.next()) {
    st.frames.resize(f.r.count(2));
    for (Frame& fr : st.frames) {
      FieldReader e(f.blob(), "profile chunk 'stacks' frame");
      if (e.next()) fr.image = decode_index(e.r, st.images.size(), "frame names image");
      if (e.next()) fr.function = e.r.str();
      if (e.next()) fr.mode = decode_mode(e.r);
    }
  }
  if (f.next()) {
    st.processes.resize(f.r.count(2));
    for (StackProcess& p : st.processes) {
      FieldReader e(f.blob(), "profile chunk 'stacks' process");
      if (e.next()) {
        const uint64_t pid = e.r.varint();
        if (pid > UINT32_MAX) e.r.fail("pid " + std::to_string(pid));
        p.pid = static_cast<uint32_t>(pid);
      }
      if (e.next()) p.name = e.r.str();
    }
  }
  if (f.next()) {
    st.stacks.resize(f.r.count(4));  // process, count, one frame, samples, period: >= 5 bytes
    for (Stack& s : st.stacks) {
      s.process = decode_index(f.r, st.processes.size(), "stack names process");
      const size_t n = f.r.count(1);
      if (n == 0) f.r.fail("stack without frames");
      s.frames.resize(n);
      for (uint32_t& id : s.frames) id = decode_index(f.r, st.frames.size(), "stack names frame");
      s.samples = f.r.varint();
      s.period = f.r.varint();
    }
  }
  if (f.next()) {
    const uint64_t count = f.r.varint();
    if (count > kMaxSlices) {
      f.r.fail(std::to_string(count) + " time slices, more than " + std::to_string(kMaxSlices));
    }
    if (count > 0) {
      // Each frame's slices must add up to its samples as a leaf.
      std::vector<uint64_t> leaf(st.frames.size());
      for (const Stack& s : st.stacks) leaf[s.frames.front()] += s.samples;
      st.leaf_slices.resize(st.frames.size());
      for (size_t i = 0; i < st.frames.size(); ++i) {
        st.leaf_slices[i] = decode_slices(f.r, count, leaf[i]);
        if (leaf[i] == 0) st.leaf_slices[i].clear();
      }
    }
  }
  return st;
}

}  // namespace kprof
