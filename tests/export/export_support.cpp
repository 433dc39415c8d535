#include "tests/export/export_support.h"

#include <sys/wait.h>
#include <zlib.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string_view>

#include "tests/report/test_support.h"

namespace kprof::test {

Stacks bench_stacks() {
  Stacks st;
  st.images = {{"/usr/bin/bench", "b0b0"},
               {"/usr/lib/x86_64-linux-gnu/libc.so.6", "c1c1"},
               {"[kernel]", "0123456789abcdef"}};
  st.frames = {
      {0, "main", Mode::User},                // 0
      {0, "compute", Mode::User},             // 1
      {0, "hash_block", Mode::User},          // 2
      {1, "write", Mode::User},               // 3
      {2, "entry_SYSCALL_64", Mode::Kernel},  // 4
      {2, "do_syscall_64", Mode::Kernel},     // 5
      {2, "ksys_write", Mode::Kernel},        // 6
      {1, "[unknown]", Mode::User},           // 7
      {0, "recurse", Mode::User},             // 8
      {1, "__libc_start_main", Mode::User},   // 9
  };
  st.processes = {{1234, "bench"}, {1235, "bench"}, {99, "sh"}};
  auto stack = [](uint32_t process, std::vector<uint32_t> frames, uint64_t samples) {
    return Stack{process, std::move(frames), samples, samples * 1000};
  };
  st.stacks = {
      stack(0, {2, 1, 0, 9}, 50),        // bench: main -> compute -> hash_block
      stack(0, {1, 0, 9}, 20),           // bench: in compute itself
      stack(0, {6, 5, 4, 3, 0, 9}, 10),  // bench: main -> write -> syscall
      stack(1, {2, 1, 0, 9}, 5),         // the other bench process, same stack
      stack(2, {7, 9}, 3),               // sh: somewhere in libc
      stack(0, {8, 8, 8, 0, 9}, 12),     // bench: recursion, three levels
  };
  return st;
}

std::string write_profile(const std::string& path, const RunInfo& run,
                          const std::optional<Summary>& summary, const Histogram& histogram,
                          const std::optional<Stacks>& stacks) {
  ProfileBuilder b;
  b.run = run;
  b.summary = summary;
  b.histogram = histogram;
  b.stacks = stacks;
  return b.write(path);
}

// ---------------------------------------------------------------- pprof reader

const PprofLabel* PprofSample::label(const std::string& key) const {
  for (const PprofLabel& l : labels) {
    if (l.key == key) return &l;
  }
  return nullptr;
}

const PprofLocation* PprofProfile::location(uint64_t id) const {
  for (const PprofLocation& l : locations) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

const PprofFunction* PprofProfile::function(uint64_t id) const {
  for (const PprofFunction& f : functions) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

std::string PprofProfile::function_name(uint64_t location_id) const {
  const PprofLocation* l = location(location_id);
  if (!l || l->function_ids.empty()) return "";
  const PprofFunction* f = function(l->function_ids.front());
  return f ? f->name : "";
}

std::string gunzip(const std::string& gz) {
  if (gz.size() < 18 || static_cast<unsigned char>(gz[0]) != 0x1f ||
      static_cast<unsigned char>(gz[1]) != 0x8b)
    throw std::runtime_error("not gzip data (no 1f 8b magic)");
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::runtime_error("inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 14];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      throw std::runtime_error("bad gzip data: zlib inflate returned " + std::to_string(rc));
    }
    out.append(buf, sizeof buf - z.avail_out);
  }
  const bool trailing = z.avail_in != 0;
  inflateEnd(&z);
  if (trailing) throw std::runtime_error("bytes after the gzip stream");
  return out;
}

namespace {

struct Field {
  int number = 0;
  int wire_type = 0;
  uint64_t varint = 0;     // wire type 0
  std::string_view bytes;  // wire type 2
};

uint64_t read_varint(std::string_view& s) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (s.empty()) throw std::runtime_error("varint runs past the end");
    const auto b = static_cast<unsigned char>(s.front());
    s.remove_prefix(1);
    v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return v;
  }
  throw std::runtime_error("varint longer than 10 bytes");
}

void for_each_field(std::string_view msg, const std::function<void(const Field&)>& fn) {
  while (!msg.empty()) {
    const uint64_t key = read_varint(msg);
    Field f;
    f.number = static_cast<int>(key >> 3);
    f.wire_type = static_cast<int>(key & 7);
    if (f.number == 0) throw std::runtime_error("field number 0");
    if (f.wire_type == 0) {
      f.varint = read_varint(msg);
    } else if (f.wire_type == 2) {
      const uint64_t n = read_varint(msg);
      if (n > msg.size()) throw std::runtime_error("length-delimited field runs past the end");
      f.bytes = msg.substr(0, n);
      msg.remove_prefix(n);
    } else {
      throw std::runtime_error("unexpected wire type " + std::to_string(f.wire_type));
    }
    fn(f);
  }
}

// A repeated integer, packed (wire type 2) or not (0).
void append_ints(const Field& f, std::vector<uint64_t>& out) {
  if (f.wire_type == 0) {
    out.push_back(f.varint);
    return;
  }
  std::string_view s = f.bytes;
  while (!s.empty()) out.push_back(read_varint(s));
}

uint64_t scalar(const Field& f) {
  if (f.wire_type != 0)
    throw std::runtime_error("field " + std::to_string(f.number) + " not a varint");
  return f.varint;
}

}  // namespace

PprofProfile parse_pprof(const std::string& proto) {
  PprofProfile p;
  // The string table first: other fields refer to it by index, in any order.
  for_each_field(proto, [&](const Field& f) {
    if (f.number == 6) {
      if (f.wire_type != 2) throw std::runtime_error("string_table entry not length-delimited");
      p.string_table.emplace_back(f.bytes);
    }
  });
  auto str = [&](uint64_t i) -> std::string {
    if (i >= p.string_table.size())
      throw std::runtime_error("string index " + std::to_string(i) + " out of range");
    return p.string_table[i];
  };
  auto value_type = [&](std::string_view m) {
    std::pair<std::string, std::string> vt;
    for_each_field(m, [&](const Field& f) {
      if (f.number == 1) vt.first = str(scalar(f));
      if (f.number == 2) vt.second = str(scalar(f));
    });
    return vt;
  };
  for_each_field(proto, [&](const Field& f) {
    switch (f.number) {
      case 1:
        p.sample_types.push_back(value_type(f.bytes));
        break;
      case 2: {
        PprofSample s;
        for_each_field(f.bytes, [&](const Field& g) {
          if (g.number == 1) append_ints(g, s.location_ids);
          if (g.number == 2) {
            std::vector<uint64_t> v;
            append_ints(g, v);
            for (uint64_t x : v) s.values.push_back(static_cast<int64_t>(x));
          }
          if (g.number == 3) {
            PprofLabel l;
            for_each_field(g.bytes, [&](const Field& h) {
              if (h.number == 1) l.key = str(scalar(h));
              if (h.number == 2) l.str = str(scalar(h));
              if (h.number == 3) {
                l.num = static_cast<int64_t>(scalar(h));
                l.has_num = true;
              }
            });
            s.labels.push_back(l);
          }
        });
        p.samples.push_back(std::move(s));
        break;
      }
      case 3: {
        PprofMapping m;
        for_each_field(f.bytes, [&](const Field& g) {
          if (g.number == 1) m.id = scalar(g);
          if (g.number == 5) m.filename = str(scalar(g));
          if (g.number == 6) m.build_id = str(scalar(g));
          if (g.number == 7) m.has_functions = scalar(g) != 0;
        });
        p.mappings.push_back(m);
        break;
      }
      case 4: {
        PprofLocation l;
        for_each_field(f.bytes, [&](const Field& g) {
          if (g.number == 1) l.id = scalar(g);
          if (g.number == 2) l.mapping_id = scalar(g);
          if (g.number == 4) {
            uint64_t fid = 0;
            for_each_field(g.bytes, [&](const Field& h) {
              if (h.number == 1) fid = scalar(h);
            });
            l.function_ids.push_back(fid);
          }
        });
        p.locations.push_back(l);
        break;
      }
      case 5: {
        PprofFunction fn;
        for_each_field(f.bytes, [&](const Field& g) {
          if (g.number == 1) fn.id = scalar(g);
          if (g.number == 2) fn.name = str(scalar(g));
          if (g.number == 3) fn.system_name = str(scalar(g));
          if (g.number == 4) fn.filename = str(scalar(g));
        });
        p.functions.push_back(fn);
        break;
      }
      case 9:
        p.time_nanos = static_cast<int64_t>(scalar(f));
        break;
      case 10:
        p.duration_nanos = static_cast<int64_t>(scalar(f));
        break;
      case 11:
        p.period_type = value_type(f.bytes);
        break;
      case 12:
        p.period = static_cast<int64_t>(scalar(f));
        break;
      case 13: {
        std::vector<uint64_t> ids;
        append_ints(f, ids);
        for (uint64_t i : ids) p.comments.push_back(str(i));
        break;
      }
      case 14:
        p.default_sample_type = static_cast<int64_t>(scalar(f));
        break;
      default:
        break;
    }
  });
  return p;
}

}  // namespace kprof::test
