// ProfileReader's walk of large chunks: the next one is read, checked and
// decompressed on a second thread while the caller handles the one before
// it. What it delivers and what it says of damage must be what a plain
// chunk-after-chunk walk (a stream's) says; `skip` passes chunks over unread.
#include "core/profile_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "core/file_layout.h"
#include "core/profile_writer.h"
#include "tests/core/test_util.h"

namespace kprof {
namespace {

constexpr uint16_t kType = 99;  // a type no reader decodes

struct Walked {
  std::vector<std::vector<uint8_t>> payloads;
  std::vector<uint64_t> offsets;
  ReadStatus status;
};

// Six chunks of 200 KB (above the size read on the second thread), half of
// them compressed, and a small one between.
std::vector<std::vector<uint8_t>> write_big_chunks(const std::string& path) {
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> payloads;
  ProfileWriter w = ProfileWriter::create(path);
  for (int i = 0; i < 6; ++i) {
    std::vector<uint8_t> p(200000 + i);
    for (size_t k = 0; k < p.size(); ++k) {
      // Odd chunks repeat (compress), even ones are noise (stored as is).
      p[k] = i % 2 != 0 ? static_cast<uint8_t>(k % 251) : static_cast<uint8_t>(rng());
    }
    w.write_chunk(static_cast<ChunkType>(kType), p, i % 2 != 0);
    payloads.push_back(std::move(p));
    if (i == 2) {
      w.write_chunk(static_cast<ChunkType>(kType), std::vector<uint8_t>{1, 2, 3}, false);
      payloads.push_back({1, 2, 3});
    }
  }
  w.write_end();
  return payloads;
}

// `each` is called with the number of chunks handed over before.
Walked walk(ProfileReader& r, const std::function<bool(const ChunkHeaderInfo&)>& skip = {},
            const std::function<void(size_t)>& each = {}) {
  Walked w;
  size_t calls = 0;
  w.status = r.for_each_chunk([](uint16_t t) { return t == kType; },
                              [&](const Chunk& c) {
                                if (each) each(calls++);
                                w.payloads.emplace_back(c.payload.begin(), c.payload.end());
                                w.offsets.push_back(c.offset);
                              },
                              skip);
  return w;
}

// The file of write_big_chunks, its bytes, and what a walk of them gives.
struct BigFile {
  testing::TempDir dir;
  std::string path = dir.file("big.kprof");
  std::vector<std::vector<uint8_t>> payloads = write_big_chunks(path);
  std::vector<uint8_t> bytes = testing::read_bytes(path);
  Walked before;
  BigFile() {
    ProfileReader clean(bytes);
    before = walk(clean);
  }
};

// The same bytes through a pipe: a stream, walked chunk after chunk.
Walked walk_as_stream(const std::vector<uint8_t>& bytes) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe");
  std::thread writer([&] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  Walked w;
  {
    ProfileReader r = ProfileReader::stream(fds[0], {}, "pipe");
    w = walk(r);
  }
  // What the walk left (after an End chunk) is read, so the writer ends.
  char rest[4096];
  while (::read(fds[0], rest, sizeof rest) > 0) {
  }
  writer.join();
  ::close(fds[0]);
  return w;
}

TEST(ProfileReader, LargeChunksReadAheadAsAStreamReadsThem) {
  testing::TempDir dir;
  const std::string path = dir.file("big.kprof");
  const auto payloads = write_big_chunks(path);
  ProfileReader file = ProfileReader::open(path);
  const Walked a = walk(file);
  EXPECT_TRUE(a.status.intact()) << a.status.problem;
  EXPECT_EQ(a.payloads, payloads);
  // Walked again: the same.
  EXPECT_EQ(walk(file).payloads, payloads);
  const std::vector<uint8_t> bytes = testing::read_bytes(path);
  const Walked s = walk_as_stream(bytes);
  EXPECT_EQ(s.payloads, payloads);
  EXPECT_EQ(s.offsets, a.offsets);
  ProfileReader mem(bytes);
  EXPECT_EQ(walk(mem).payloads, payloads);
}

TEST(ProfileReader, DamageInAChunkReadAheadIsSaidAsInAStream) {
  BigFile f;
  const auto& payloads = f.payloads;
  std::vector<uint8_t>& bytes = f.bytes;
  const Walked& before = f.before;
  // A byte of the fifth big chunk (after the small one), stored as is and
  // read ahead.
  const uint64_t at = before.offsets[5];
  bytes[at + kChunkHeaderBytes + 1000] ^= 0x40;
  ProfileReader r(bytes);
  const Walked a = walk(r);
  const Walked s = walk_as_stream(bytes);
  ASSERT_EQ(a.status.damaged.size(), 1u);
  EXPECT_EQ(a.status.damaged[0].offset, at);
  EXPECT_EQ(a.status.damaged[0].problem, s.status.damaged.at(0).problem);
  EXPECT_TRUE(a.status.complete);
  EXPECT_EQ(a.payloads.size(), payloads.size() - 1);
  EXPECT_EQ(a.payloads, s.payloads);

  // Cut inside a large chunk: the chunks before it, and the problem.
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(at + 5000));
  ProfileReader c(cut);
  const Walked w = walk(c);
  EXPECT_EQ(w.payloads.size(), 5u);
  EXPECT_NE(w.status.problem.find("truncated"), std::string::npos) << w.status.problem;
  EXPECT_EQ(w.status.problem, walk_as_stream(cut).status.problem);
}

TEST(ProfileReader, ChunksNotWantedAreStillChecked) {
  BigFile f;
  std::vector<uint8_t>& bytes = f.bytes;
  const Walked& before = f.before;
  // A byte in the last stored large chunk's second piece (checked in
  // pieces, not kept).
  const uint64_t at = before.offsets[5];
  ASSERT_EQ(before.payloads[5].size(), 200004u);
  bytes[at + kChunkHeaderBytes + 150000] ^= 0x10;
  const auto none = [](uint16_t) { return false; };
  const auto ignore = [](const Chunk&) {};
  ProfileReader r(bytes);
  const ReadStatus st = r.for_each_chunk(none, ignore);
  ASSERT_EQ(st.damaged.size(), 1u);
  EXPECT_EQ(st.damaged[0].offset, at);
  EXPECT_EQ(st.damaged[0].problem, "bad checksum (the bytes were damaged)");
  EXPECT_TRUE(st.complete);
  // Cut inside it: said as when it is wanted.
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(at + 70000));
  ProfileReader c(cut);
  EXPECT_EQ(c.for_each_chunk(none, ignore).problem, walk_as_stream(cut).status.problem);
}

TEST(ProfileReader, ACallbackThatFailsWhileTheNextChunkIsReadAhead) {
  testing::TempDir dir;
  const std::string path = dir.file("big.kprof");
  const auto payloads = write_big_chunks(path);
  ProfileReader r = ProfileReader::open(path);
  // kprof::Error: that chunk is damaged, the walk goes on with the next.
  const Walked a = walk(r, {}, [](size_t i) {
    if (i == 1) throw Error("refused");
  });
  ASSERT_EQ(a.status.damaged.size(), 1u);
  EXPECT_EQ(a.status.damaged[0].problem, "refused");
  EXPECT_EQ(a.payloads.size(), payloads.size() - 1);
  EXPECT_EQ(a.payloads[1], payloads[2]);
  // Anything else leaves the walk (after the read ahead is done).
  EXPECT_THROW(walk(r, {},
                    [](size_t i) {
                      if (i == 1) throw std::runtime_error("gone");
                    }),
               std::runtime_error);
  EXPECT_EQ(walk(r).payloads, payloads);
}

TEST(ProfileReader, SkippedChunksAreNeitherReadNorChecked) {
  BigFile f;
  const auto& payloads = f.payloads;
  std::vector<uint8_t>& bytes = f.bytes;
  const Walked& before = f.before;
  // Damage in the chunks that will be skipped goes unseen.
  for (size_t i : {0, 5}) bytes[before.offsets[i] + kChunkHeaderBytes + 10] ^= 1;
  ProfileReader r(bytes);
  std::vector<uint64_t> seen;
  const Walked a = walk(r, [&](const ChunkHeaderInfo& h) {
    seen.push_back(h.offset);
    return h.offset == before.offsets[0] || h.offset == before.offsets[5];
  });
  EXPECT_TRUE(a.status.intact()) << a.status.describe_damage();
  EXPECT_EQ(a.status.skipped_unread, 2u);
  EXPECT_EQ(a.payloads.size(), payloads.size() - 2);
  EXPECT_EQ(a.payloads.front(), payloads[1]);
  // Every header but End's was shown, in order.
  EXPECT_EQ(seen, before.offsets);
}

}  // namespace
}  // namespace kprof

namespace kprof {
namespace {

// read_text_chunk: a compressed and a stored chunk read straight into
// strings, the same bytes a walk hands over; damage said, `fn` not called.
TEST(ProfileReader, TextChunksAreReadStraightIntoStrings) {
  testing::TempDir dir;
  const std::string path = dir.file("t.kprof");
  const auto payloads = write_big_chunks(path);
  ProfileReader r = ProfileReader::open(path);
  const auto headers = r.chunk_headers().value();
  ASSERT_EQ(headers.size(), payloads.size() + 1);  // and End
  for (size_t i : {0, 1}) {                        // stored as is, then compressed
    std::string text;
    size_t seen = 0;
    EXPECT_EQ(r.read_text_chunk(headers[i], text, [&](const Chunk& c) { seen = c.payload.size(); }),
              "");
    EXPECT_EQ(std::vector<uint8_t>(text.begin(), text.end()), payloads[i]) << "chunk " << i;
    EXPECT_EQ(seen, payloads[i].size());
  }
  ChunkHeaderInfo wrong = headers[1];
  wrong.crc ^= 1;
  std::string text;
  bool called = false;
  EXPECT_NE(r.read_text_chunk(wrong, text, [&](const Chunk&) { called = true; }).find("checksum"),
            std::string::npos);
  EXPECT_FALSE(called);
  wrong = headers[1];
  wrong.raw_len += 1;  // the frame says otherwise
  EXPECT_NE(r.read_text_chunk(wrong, text, [&](const Chunk&) { called = true; }).find("zstd"),
            std::string::npos);
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace kprof
