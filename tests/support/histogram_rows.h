// The Histogram chunk's row layout (ChunkType::Histogram, one blob per row),
// which older kprof versions wrote and kprof still reads
// (core/chunk_codecs.h decode_histogram). kprof itself writes the column
// layout now; tests write this one to make old-style profiles.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"

namespace kprof {

std::vector<uint8_t> encode_histogram_rows(const Histogram& h);

}  // namespace kprof
