// Payload codecs of the chunks that hold the profile model (file_layout.h
// names the chunks). Bounds-checked; each decoder throws kprof::Error on damage.
//
// Meta, Summary and Histogram (bytes.h encoding): a struct is a varint field
// count, then its fields in declaration order (integers as varints, doubles
// as u64 bit patterns, bools as u8, strings and lists length-prefixed);
// nested structs and list elements are length-prefixed blobs holding their
// own field count. Readers take the fields they know and ignore extra ones;
// fields an older writer did not write keep their defaults. So a field may be
// appended to a struct without a version bump; reordering or changing a
// field's type needs one (HistogramColumns: see encode_histogram_columns).
// The field count is the writer's (core/bytes.h FieldWriter counts what it
// wrote), so a new field cannot leave it stale. Kallsyms and Modules hold the
// raw text; Records see records_chunk.h. Stacks: see encode_stacks in
// chunk_codecs.cpp (its stack table is plain varints, since it holds nearly
// all of the chunk).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/bytes.h"
#include "core/model.h"
#include "core/stacks.h"

namespace kprof {

std::vector<uint8_t> encode_run_info(const RunInfo&);
RunInfo decode_run_info(std::span<const uint8_t>);
std::vector<uint8_t> encode_summary(const Summary&);
Summary decode_summary(std::span<const uint8_t>);
// Histogram: the column layout kprof writes (smaller once compressed: names
// next to names, numbers as small deltas), and the row layout (one blob per
// row) of older files, which is still read.
std::vector<uint8_t> encode_histogram_columns(const Histogram&);
Histogram decode_histogram_columns(std::span<const uint8_t>);
Histogram decode_histogram(std::span<const uint8_t>);
std::vector<uint8_t> encode_stacks(const Stacks&);
// The images field Histogram, HistogramColumns and Stacks share: a count,
// then a struct per image (name, build id). For writers of the row layout
// older kprof versions wrote (tests/support/histogram_rows.h).
void encode_images(FieldWriter& f, const std::vector<Image>& images);
Stacks decode_stacks(std::span<const uint8_t>);

}  // namespace kprof
