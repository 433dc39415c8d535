// The pprof writer: profile.proto (github.com/google/pprof, proto/profile.proto)
// encoded by hand, then gzip-compressed with zlib.
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/error.h"
#include "export/export.h"
#include "report/summary.h"

namespace kprof {

namespace {

// Field numbers from profile.proto.
namespace pb {
// Profile
constexpr int kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
              kStringTable = 6, kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11, kPeriod = 12,
              kComment = 13;
// ValueType
constexpr int kVtType = 1, kVtUnit = 2;
// Sample
constexpr int kSampleLocationId = 1, kSampleValue = 2, kSampleLabel = 3;
// Label
constexpr int kLabelKey = 1, kLabelStr = 2, kLabelNum = 3;
// Mapping
constexpr int kMappingId = 1, kMappingFilename = 5, kMappingBuildId = 6, kMappingHasFunctions = 7;
// Location
constexpr int kLocationId = 1, kLocationMappingId = 2, kLocationLine = 4;
// Line
constexpr int kLineFunctionId = 1;
// Function
constexpr int kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3, kFunctionFilename = 4;
}  // namespace pb

// Protocol buffers wire format, the two wire types kprof needs: varint (0)
// and length-delimited (2), over core's ByteWriter (its varint is the same
// LEB128). Scalars equal to 0 are left out (proto3: absent and 0 read the
// same); repeated integers are packed.
class PbWriter {
 public:
  void varint(uint64_t v) { w_.varint(v); }
  void tag(int field, int wire_type) { varint((static_cast<uint64_t>(field) << 3) | wire_type); }
  void uint_field(int field, uint64_t v) {
    if (v == 0) return;
    tag(field, 0);
    varint(v);
  }
  void int_field(int field, int64_t v) { uint_field(field, static_cast<uint64_t>(v)); }
  void bool_field(int field, bool v) { uint_field(field, v ? 1 : 0); }
  void bytes_field(int field, std::span<const uint8_t> bytes) {
    tag(field, 2);
    varint(bytes.size());
    w_.raw(bytes);
  }
  void string_field(int field, std::string_view s) { bytes_field(field, bytes_of(s)); }
  void message_field(int field, const PbWriter& m) { bytes_field(field, m.bytes()); }
  template <typename Range>
  void packed_field(int field, const Range& values) {
    if (values.empty()) return;
    PbWriter p;
    for (auto v : values) p.varint(static_cast<uint64_t>(v));
    message_field(field, p);
  }
  // Messages concatenated are one message with the fields of both.
  void append(const PbWriter& m) { w_.raw(m.bytes()); }
  std::span<const uint8_t> bytes() const { return w_.bytes(); }

 private:
  ByteWriter w_;
};

class StringTable {
 public:
  StringTable() { strings_.emplace_back(); }  // string_table[0] must be ""
  int64_t id(const std::string& s) {
    if (s.empty()) return 0;
    auto [it, fresh] = ids_.try_emplace(s, static_cast<int64_t>(strings_.size()));
    if (fresh) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, int64_t> ids_;
};

// The event's sample type: (type, unit).
std::pair<std::string, std::string> event_value_type(const EventInfo& e) {
  if (is_clock_event(e)) return {"cpu", "nanoseconds"};        // their period counts ns
  if (e.name == "off-cpu") return {"off-cpu", "nanoseconds"};  // report/off_cpu.h: period is ns
  return {e.name.empty() ? "events" : e.name, "count"};
}

PbWriter value_type(StringTable& strings, const std::string& type, const std::string& unit) {
  PbWriter vt;
  vt.int_field(pb::kVtType, strings.id(type));
  vt.int_field(pb::kVtUnit, strings.id(unit));
  return vt;
}

int64_t to_int64(uint64_t v) {
  return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
}

// The images in the order their mappings are written: the command's own
// executable first (by path, else by file name); without one (-a, -p) the
// user image with the most samples that is not the dynamic loader; the
// kernel and the rest after, in their order.
std::vector<size_t> mapping_order(const Stacks& st, const RunInfo& run) {
  std::vector<uint64_t> samples(st.images.size());
  std::vector<bool> user(st.images.size());
  for (const Stack& s : st.stacks) {
    if (s.frames.empty()) continue;
    const Frame& leaf = st.frames[s.frames.front()];
    if (leaf.image < samples.size()) samples[leaf.image] += s.samples;
  }
  for (const Frame& f : st.frames) {
    if (f.image < user.size() && f.mode == Mode::User) user[f.image] = true;
  }
  auto base = [](std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
  };
  const std::string exe = run.command.empty() ? std::string() : run.command.front();
  size_t main = st.images.size();
  for (size_t i = 0; i < st.images.size() && !exe.empty(); ++i) {
    if (st.images[i].name == exe) main = i;
  }
  for (size_t i = 0; i < st.images.size() && !exe.empty() && main == st.images.size(); ++i) {
    if (base(st.images[i].name) == base(exe)) main = i;
  }
  if (main == st.images.size()) {
    uint64_t best = 0;
    for (size_t j = 0; j < st.images.size(); ++j) {
      if (!user[j] || base(st.images[j].name).starts_with("ld-")) continue;
      if (main == st.images.size() || samples[j] > best) {
        main = j;
        best = samples[j];
      }
    }
  }
  std::vector<size_t> order;
  if (main < st.images.size()) order.push_back(main);
  for (size_t i = 0; i < st.images.size(); ++i) {
    if (i != main) order.push_back(i);
  }
  return order;
}

}  // namespace

int64_t pprof_period(const Stacks& st, const Profile& profile) {
  const EventInfo& e = profile.run.event;
  if (!e.use_freq) return to_int64(e.rate);
  // At a frequency the kernel adapts the period as it goes. For the clocks it
  // settles at 1e9 / rate ns, the nominal period; for other events there is
  // no nominal value, so the mean of what was sampled.
  if (is_clock_event(e) && e.rate > 0) return std::llround(1e9 / static_cast<double>(e.rate));
  uint64_t samples = 0, period = 0;
  for (const Stack& s : st.stacks) {
    samples += s.samples;
    period += s.period;
  }
  if (samples == 0) return 0;
  return std::llround(static_cast<double>(period) / static_cast<double>(samples));
}

std::string encode_pprof(const Stacks& st, const Profile& profile) {
  check_stacks(st);
  const RunInfo& run = profile.run;
  StringTable strings;
  PbWriter p;

  // sample_type: samples first (pprof's convention for the event count),
  // then the event; the last one is what pprof shows by default.
  const auto [event_type, event_unit] = event_value_type(run.event);
  p.message_field(pb::kSampleType, value_type(strings, "samples", "count"));
  p.message_field(pb::kSampleType, value_type(strings, event_type, event_unit));

  // Interned label keys and values.
  const int64_t key_pid = strings.id("pid"), key_comm = strings.id("comm"),
                key_mode = strings.id("mode");

  // Samples: one per stack.
  for (const Stack& s : st.stacks) {
    PbWriter sample;
    std::vector<uint64_t> locations;
    locations.reserve(s.frames.size());
    for (uint32_t f : s.frames) locations.push_back(uint64_t{f} + 1);  // leaf first
    sample.packed_field(pb::kSampleLocationId, locations);
    const int64_t values[] = {to_int64(s.samples), to_int64(s.period)};
    sample.packed_field(pb::kSampleValue,
                        std::vector<int64_t>(std::begin(values), std::end(values)));
    const StackProcess& proc = st.processes[s.process];
    if (proc.pid != 0 || !proc.name.empty()) {
      PbWriter pid;
      pid.int_field(pb::kLabelKey, key_pid);
      pid.tag(pb::kLabelNum, 0);  // written even for pid 0 (swapper)
      pid.varint(proc.pid);
      sample.message_field(pb::kSampleLabel, pid);
    }
    if (!proc.name.empty()) {
      PbWriter comm;
      comm.int_field(pb::kLabelKey, key_comm);
      comm.int_field(pb::kLabelStr, strings.id(proc.name));
      sample.message_field(pb::kSampleLabel, comm);
    }
    PbWriter mode;
    mode.int_field(pb::kLabelKey, key_mode);
    mode.int_field(pb::kLabelStr, strings.id(mode_name(st.frames[s.frames.front()].mode)));
    sample.message_field(pb::kSampleLabel, mode);
    p.message_field(pb::kSample, sample);
  }

  // Mappings: one per image, id = index + 1; the main binary first (pprof
  // takes the first mapping as the program).
  for (size_t i : mapping_order(st, run)) {
    PbWriter m;
    m.uint_field(pb::kMappingId, i + 1);
    m.int_field(pb::kMappingFilename, strings.id(st.images[i].name));
    m.int_field(pb::kMappingBuildId, strings.id(st.images[i].build_id));
    m.bool_field(pb::kMappingHasFunctions, true);
    p.message_field(pb::kMapping, m);
  }

  // Functions: one per (image, name), ids from 1 in order of first use.
  std::map<std::pair<uint32_t, std::string>, uint64_t> function_ids;
  std::vector<uint64_t> frame_function(st.frames.size());
  PbWriter functions;
  for (size_t i = 0; i < st.frames.size(); ++i) {
    const Frame& fr = st.frames[i];
    auto [it, fresh] = function_ids.try_emplace({fr.image, fr.function}, function_ids.size() + 1);
    frame_function[i] = it->second;
    if (!fresh) continue;
    const std::string& image = st.images[fr.image].name;
    const bool unknown = fr.function.empty() || fr.function == "[unknown]";
    PbWriter f;
    f.uint_field(pb::kFunctionId, it->second);
    f.int_field(pb::kFunctionName,
                strings.id(unknown ? unknown_function_name(image) : fr.function));
    f.int_field(pb::kFunctionSystemName, strings.id(fr.function));
    f.int_field(pb::kFunctionFilename, strings.id(image));
    functions.message_field(pb::kFunction, f);
  }

  // Locations: one per frame, id = frame id + 1.
  for (size_t i = 0; i < st.frames.size(); ++i) {
    PbWriter line;
    line.uint_field(pb::kLineFunctionId, frame_function[i]);
    PbWriter loc;
    loc.uint_field(pb::kLocationId, i + 1);
    loc.uint_field(pb::kLocationMappingId, uint64_t{st.frames[i].image} + 1);
    loc.message_field(pb::kLocationLine, line);
    p.message_field(pb::kLocation, loc);
  }
  p.append(functions);  // built before the locations that refer to them

  // Run facts.
  p.int_field(pb::kTimeNanos, to_int64(run.start_realtime_ns));
  if (profile.summary) p.int_field(pb::kDurationNanos, to_int64(profile.summary->duration_ns));
  p.message_field(pb::kPeriodType, value_type(strings, event_type, event_unit));
  p.int_field(pb::kPeriod, pprof_period(st, profile));
  std::vector<int64_t> comments;
  if (!run.kernel_release.empty()) comments.push_back(strings.id("kernel " + run.kernel_release));
  comments.push_back(strings.id("command: " + describe_target(run)));
  comments.push_back(strings.id("event: " + describe_event(run.event)));
  p.packed_field(pb::kComment, comments);

  // The string table last: everything above has interned its strings.
  for (const std::string& s : strings.strings()) p.string_field(pb::kStringTable, s);
  const std::span<const uint8_t> out = p.bytes();
  return {out.begin(), out.end()};
}

void write_pprof(std::ostream& out, const Stacks& st, const Profile& profile) {
  const std::string raw = encode_pprof(st, profile);
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("cannot start gzip compression: zlib deflateInit2 failed");
  std::vector<unsigned char> buf(1 << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  size_t left = raw.size();
  int rc = Z_OK;
  do {
    // avail_in is 32 bits: feed big messages in pieces.
    if (z.avail_in == 0 && left > 0) {
      z.avail_in = static_cast<uInt>(std::min<size_t>(left, 1u << 30));
      left -= z.avail_in;
    }
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    rc = deflate(&z, left == 0 ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) {
      deflateEnd(&z);
      throw Error("gzip compression failed (zlib deflate)");
    }
    out.write(reinterpret_cast<const char*>(buf.data()),
              static_cast<std::streamsize>(buf.size() - z.avail_out));
  } while (rc != Z_STREAM_END);
  deflateEnd(&z);
}

}  // namespace kprof
