#include "tests/support/histogram_rows.h"

#include "core/bytes.h"
#include "core/chunk_codecs.h"

namespace kprof {

std::vector<uint8_t> encode_histogram_rows(const Histogram& h) {
  FieldWriter f;
  encode_images(f, h.images);
  ByteWriter& rows = f.field();
  rows.varint(h.rows.size());
  for (const auto& row : h.rows) {
    FieldWriter e;
    e.varint(row.image);
    e.str(row.function);
    e.u8(static_cast<uint8_t>(row.mode));
    e.varint(row.samples);
    e.varint(row.period);
    e.varint(row.peak_samples);
    e.varint(row.peak_ip);
    e.u8(row.peak_after_irq_enable ? 1 : 0);
    FieldWriter::write_blob(rows, e.take());
  }
  return f.take();
}

}  // namespace kprof
