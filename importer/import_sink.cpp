// import_sink.h: a perf.data's records to the aggregator (and kprof
// import's writer), with the file's build-ids and the counts kept on the way.
#include "importer/import_sink.h"

#include <algorithm>

namespace kprof::importer {

void ImportSink::on_sample(const Sample& s) {
  first_time = samples == 0 ? s.time : std::min(first_time, s.time);
  last_time = std::max(last_time, s.time);
  ++samples;
  agg_.on_sample(s);
  if (also_) also_->on_sample(s);
}

void ImportSink::on_mmap(const Mmap& m) {
  if (m.filename == "[kernel.kallsyms]_text" || m.filename == "[kernel.kallsyms]") {
    kernel_text = m.pgoff;
  }
  agg_.on_mmap(m);
  if (also_) also_->on_mmap(m);
}

void BuildIdFiller::on_mmap(const Mmap& m) {
  if (m.build_id.empty()) {
    if (auto it = ids_.find(m.filename); it != ids_.end()) {
      Mmap copy = m;
      copy.build_id = it->second;
      next_.on_mmap(copy);
      return;
    }
  }
  next_.on_mmap(m);
}

void ImportSink::on_comm(const Comm& c) {
  agg_.on_comm(c);
  if (also_) also_->on_comm(c);
}

void ImportSink::on_fork(const Fork& f) {
  agg_.on_fork(f);
  if (also_) also_->on_fork(f);
}

void ImportSink::on_exit(const Fork& f) {
  agg_.on_exit(f);
  if (also_) also_->on_exit(f);
}

void ImportSink::on_lost(const Lost& l) {
  lost += l.count;
  agg_.on_lost(l);
  if (also_) also_->on_lost(l);
}

}  // namespace kprof::importer
