// import_writer.h: the chunks of a .kprof made by kprof import, in order.
#include "importer/import_writer.h"

#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/environment.h"
#include "core/file_layout.h"
#include "symbolizer/profile_symbols.h"

namespace kprof::importer {

void ImportWriter::begin(const RunInfo& run) {
  out_.write_chunk(ChunkType::Meta, encode_run_info(run));
}

void ImportWriter::on_sample(const Sample& s) {
  encoder_.add(s);
  flush(false);
}

void ImportWriter::flush(bool force) {
  if (encoder_.empty()) return;
  if (!force && encoder_.size() < kRecordsChunkBytes) return;
  const RecordsSpan span = encoder_.span();
  const StoredChunk chunk = pack_chunk(ChunkType::Records, encoder_.take());
  index_.chunks.push_back({chunk.raw_len, crc32(chunk.bytes), span});
  out_.write_stored(chunk);
}

void ImportWriter::finish(const Profile& p) {
  flush(true);
  if (!index_.chunks.empty()) {
    out_.write_chunk(ChunkType::RecordsIndex, encode_records_index(index_));
  }
  out_.write_chunk(ChunkType::Meta, encode_run_info(p.run));
  out_.write_chunk(ChunkType::Kallsyms, bytes_of(p.kallsyms));
  out_.write_chunk(ChunkType::Modules, bytes_of(p.modules));
  out_.write_chunk(ChunkType::Summary, encode_summary(p.summary.value_or(Summary{})));
  if (p.environment) out_.write_chunk(ChunkType::Environment, encode_environment(*p.environment));
  if (p.syscalls) out_.write_chunk(ChunkType::SyscallCounts, encode_syscall_counts(*p.syscalls));
  if (p.unwind) out_.write_chunk(ChunkType::Unwind, encode_unwind_stats(*p.unwind));
  ProfileSymbols stored;
  stored.histogram = p.histogram ? *p.histogram : Histogram{};
  stored.stacks = p.stacks;
  stored.threads = p.threads;
  write_profile_symbols(out_, stored);
}

}  // namespace kprof::importer
