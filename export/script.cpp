#include "export/script.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <utility>

#include "core/error.h"

namespace kprof {
namespace {

constexpr size_t kFlushAt = 1 << 20;

struct FieldName {
  std::string_view name;
  bool ScriptFields::*field;
};
constexpr std::array<FieldName, 10> kFields{{
    {"comm", &ScriptFields::comm},
    {"pid", &ScriptFields::pid},
    {"tid", &ScriptFields::tid},
    {"cpu", &ScriptFields::cpu},
    {"time", &ScriptFields::time},
    {"period", &ScriptFields::period},
    {"event", &ScriptFields::event},
    {"ip", &ScriptFields::ip},
    {"sym", &ScriptFields::sym},
    {"dso", &ScriptFields::dso},
}};

std::string field_names() {
  std::string out;
  for (const FieldName& f : kFields) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

// Appends `v` right-aligned in `width` columns (padded with `fill`), its
// digits through a small buffer: this runs for every number of every line.
template <typename T>
void put_number(std::string& out, T v, int width = 0, int base = 10, char fill = ' ') {
  char digits[24];  // 64 bits in decimal or hex, with room
  const auto n =
      static_cast<int>(std::to_chars(digits, digits + sizeof digits, v, base).ptr - digits);
  if (n < width) out.append(static_cast<size_t>(width - n), fill);
  out.append(digits, static_cast<size_t>(n));
}

void put_padded(std::string& out, std::string_view s, size_t width) {
  if (s.size() < width) out.append(width - s.size(), ' ');
  out += s;
}

// The kernel's image as perf names it; modules ("[ext4]") and files as they are.
std::string_view perf_image(std::string_view image) {
  return image == "[kernel]" ? std::string_view("[kernel.kallsyms]") : image;
}

}  // namespace

ScriptFields parse_script_fields(std::string_view text) {
  ScriptFields out;
  bool first = true;
  bool relative = false;
  while (!text.empty() || first) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const bool add = item.starts_with('+'), remove = item.starts_with('-');
    if (first) {
      relative = add || remove;
      if (!relative)
        out = ScriptFields{false, false, false, false, false, false, false, false, false, false};
    } else if (relative != (add || remove)) {
      throw Error("--fields mixes a list with +FIELD/-FIELD changes: write all of one kind", 2);
    }
    first = false;
    if (add || remove) item.remove_prefix(1);
    const FieldName* f = nullptr;
    for (const FieldName& k : kFields) {
      if (k.name == item) f = &k;
    }
    if (f == nullptr) {
      throw Error("--fields: no field '" + std::string(item) + "'; there are " + field_names(), 2);
    }
    out.*(f->field) = !remove;
    if (comma == std::string_view::npos) break;
  }
  return out;
}

ScriptWriter::ScriptWriter(std::FILE* out, const AddressNames& names, ScriptOptions options)
    : out_(out), names_(names), options_(std::move(options)), agg_(options_.callchains) {
  agg_.leave_out(options_.leave_out_pid);
  const ScriptFields& f = options_.fields;
  const SampleFilter* filter = options_.filter;
  names_needed_ = f.ip || f.sym || f.dso ||
                  (filter != nullptr && (!filter->dsos.empty() || !filter->symbols.empty()));
  buf_.reserve(kFlushAt + 4096);
}

ScriptWriter::~ScriptWriter() = default;

void ScriptWriter::on_comm(const Comm& c) {
  agg_.on_comm(c);
  threads_.on_comm(c);
}

void ScriptWriter::on_fork(const Fork& f) {
  agg_.on_fork(f);
  threads_.on_fork(f);
}

bool ScriptWriter::wanted(const Sample& s, const AddressCounts::Key& leaf_key,
                          std::string_view comm) const {
  const SampleFilter* f = options_.filter;
  if (f == nullptr || f->table_keys_empty()) return true;
  if (!keeps_process(*f, s.pid, comm)) return false;
  if (f->dsos.empty() && f->symbols.empty()) return true;
  const AddressNames::Name leaf = names_(leaf_key);
  return keeps_leaf(*f, leaf.image, leaf.function);
}

const std::string& ScriptWriter::name_text(const AddressCounts::Key& key) {
  NameText& t = texts_[AddressCounts::KeyHash{}(key) & (kTexts - 1)];
  if (t.used && t.key == key) return t.text;
  const ScriptFields& f = options_.fields;
  const AddressNames::Name n = names_(key);
  t.used = true;
  t.key = key;
  t.text.clear();
  if (f.sym) {
    if (f.ip) t.text += ' ';
    t.text += n.function;
  }
  if (f.dso) {
    if (f.ip || f.sym) t.text += ' ';
    t.text += '(';
    t.text += perf_image(n.image);
    t.text += ')';
  }
  t.text += '\n';
  return t.text;
}

void ScriptWriter::frame(uint64_t ip, const AddressCounts::Key& key, bool own_line) {
  buf_ += own_line ? '\t' : ' ';
  if (options_.fields.ip) put_number(buf_, ip, 16, 16);
  buf_ += name_text(key);
}

void ScriptWriter::on_sample(const Sample& s) {
  if (names_needed_) {
    agg_.keys_of(s, keys_);
    if (keys_.empty()) return;  // not a CPU sample, or kprof's own
  } else if (s.kind != SampleKind::Cpu ||
             (options_.leave_out_pid != 0 && s.pid == options_.leave_out_pid)) {
    return;  // the samples keys_of leaves out, without keying what no field names
  }
  const std::vector<AddressCounts::Key>& keys = keys_;
  ++seen_;
  const AddressCounts::Key leaf = names_needed_ ? keys.front() : AddressCounts::Key{};
  std::string_view comm = threads_.of(s.tid);
  std::string unknown_comm;  // perf's name for a thread it never saw named
  if (comm.empty()) {
    unknown_comm = ":";
    put_number(unknown_comm, s.tid);
    comm = unknown_comm;
  }
  if (!wanted(s, leaf, comm)) return;
  ++printed_;

  const ScriptFields& f = options_.fields;
  const bool chain = options_.callchains;
  if (f.comm) {
    // With call chains perf does not pad the name: the frames' lines follow.
    put_padded(buf_, comm, chain ? 0 : 16);
    buf_ += ' ';
  }
  if (f.pid && f.tid) {
    put_number(buf_, s.pid, 5);
    buf_ += '/';
    const size_t at = buf_.size();
    put_number(buf_, s.tid);
    if (buf_.size() - at < 5) buf_.append(5 - (buf_.size() - at), ' ');
    buf_ += ' ';
  } else if (f.pid || f.tid) {
    put_number(buf_, f.pid ? s.pid : s.tid, 5);
    buf_ += ' ';
  }
  if (f.cpu) {
    buf_ += '[';
    put_number(buf_, s.cpu, 3, 10, '0');
    buf_ += "] ";
  }
  if (f.time) {
    std::string t;
    put_number(t, s.time / 1'000'000'000);
    t += '.';
    put_number(t, (s.time % 1'000'000'000) / 1000, 6, 10, '0');
    put_padded(buf_, t, 12);
    buf_ += ": ";
  }
  if (f.period) {
    put_number(buf_, s.period, 10);
    buf_ += ' ';
  }
  if (f.event) {
    buf_ += options_.event;
    buf_ += ": ";
  }
  if (!f.ip && !f.sym && !f.dso) {
    buf_ += '\n';
  } else if (!chain) {
    frame(s.ip, leaf, false);
  } else {
    buf_ += '\n';
    // The frames as the aggregation counted them: the leaf, then the chain
    // without its copy of the leaf; a caller printed at its return address.
    const bool chain_has_leaf = !s.callchain.empty() && s.callchain.front() == s.ip;
    frame(s.ip, leaf, true);
    size_t k = 1;
    for (size_t i = chain_has_leaf ? 1 : 0; i < s.callchain.size() && k < keys.size(); ++i, ++k) {
      frame(s.callchain[i], keys[k], true);
    }
    buf_ += '\n';
  }
  flush_if_full();
}

void ScriptWriter::flush_if_full() {
  if (buf_.size() >= kFlushAt) finish();
}

void ScriptWriter::finish() {
  if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size()) {
    throw Error(std::string("cannot write the samples: ") + std::strerror(errno) +
                " (is the disk full?)");
  }
  buf_.clear();
  if (std::fflush(out_) != 0) {
    throw Error(std::string("cannot write the samples: ") + std::strerror(errno) +
                " (is the disk full?)");
  }
}

}  // namespace kprof
