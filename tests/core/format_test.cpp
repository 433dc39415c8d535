#include "core/bytes.h"
#include "core/chunk_codecs.h"
#include "core/file_layout.h"
#include "core/input.h"
#include "core/profile.h"
#include "core/profile_reader.h"
#include "core/profile_writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include "core/aggregate.h"
#include "core/error.h"
#include "core/fd.h"
#include "core/records_chunk.h"
#include "perfabi/load.h"
#include "tests/core/test_util.h"
#include "tests/support/histogram_rows.h"

namespace kprof {
namespace {

using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

struct CollectingSink : RecordSink {
  std::vector<Sample> samples;
  std::vector<Mmap> mmaps;
  void on_sample(const Sample& s) override { samples.push_back(s); }
  void on_mmap(const Mmap& m) override { mmaps.push_back(m); }
};

// Writes the normal chunk sequence and returns the offsets after each chunk.
std::vector<uint64_t> write_full_profile(const std::string& path, bool compress = true) {
  auto w = ProfileWriter::create(path);
  std::vector<uint64_t> ends;
  w.write_chunk(ChunkType::Meta, encode_run_info(testing::sample_run_info()), compress);
  ends.push_back(w.bytes_written());
  w.write_chunk(ChunkType::Kallsyms, bytes_of("ffffffff81000000 T _stext\n"), compress);
  ends.push_back(w.bytes_written());
  RecordEncoder enc;
  for (int i = 0; i < 50; ++i) {
    enc.add(Sample{uint64_t(1000 + i), 0x401000u + i * 4u, 7, 7, 0, Mode::User, 1, {}});
  }
  w.write_chunk(ChunkType::Records, enc.take(), compress);
  ends.push_back(w.bytes_written());
  w.write_chunk(ChunkType::Summary, encode_summary(testing::sample_summary()), compress);
  ends.push_back(w.bytes_written());
  w.write_chunk(ChunkType::Histogram, encode_histogram_rows(testing::sample_histogram()), compress);
  ends.push_back(w.bytes_written());
  w.write_end();
  ends.push_back(w.bytes_written());
  return ends;
}

TEST(Format, PayloadCodecsRoundTrip) {
  EXPECT_EQ(decode_run_info(encode_run_info(testing::sample_run_info())),
            testing::sample_run_info());
  EXPECT_EQ(decode_run_info(encode_run_info(RunInfo{})), RunInfo{});
  RunInfo dithered = testing::sample_run_info();
  dithered.event.dither_pct = 50;  // the last field of the event's
  EXPECT_EQ(decode_run_info(encode_run_info(dithered)).event.dither_pct, 50u);
  EXPECT_EQ(decode_summary(encode_summary(testing::sample_summary())), testing::sample_summary());
  EXPECT_EQ(decode_histogram(encode_histogram_rows(testing::sample_histogram())),
            testing::sample_histogram());
  EXPECT_EQ(decode_histogram(encode_histogram_rows(Histogram{})), Histogram{});
}

TEST(Format, HistogramPeakCannotExceedItsSamples) {
  Histogram h = testing::sample_histogram();
  h.rows[0].peak_samples = h.rows[0].samples + 1;
  EXPECT_THROW(decode_histogram(encode_histogram_rows(h)), Error);
}

TEST(Format, CodecsToleratesMissingAndExtraFields) {
  // An older writer with fewer fields: the rest keep their defaults.
  ByteWriter older;
  older.varint(3);
  older.varint(5);  // duration_ns
  older.varint(6);  // samples
  older.varint(7);  // lost
  Summary s = decode_summary(older.bytes());
  EXPECT_EQ(s.duration_ns, 5u);
  EXPECT_EQ(s.samples, 6u);
  EXPECT_EQ(s.lost, 7u);
  EXPECT_EQ(s.stop_reason, "");
  // A newer writer with more fields: the reader ignores them.
  auto bytes = encode_summary(testing::sample_summary());
  bytes[0] += 2;
  bytes.push_back(42);
  bytes.push_back(43);
  EXPECT_EQ(decode_summary(bytes), testing::sample_summary());
}

TEST(Format, CodecsRejectDamage) {
  auto h = encode_histogram_rows(testing::sample_histogram());
  for (size_t cut = 0; cut < h.size(); ++cut) {
    std::vector<uint8_t> part(h.begin(), h.begin() + cut);
    EXPECT_THROW(decode_histogram(part), Error) << "cut at " << cut;
  }
  Histogram bad = testing::sample_histogram();
  bad.rows[0].image = 9;  // no such image
  EXPECT_THROW(decode_histogram(encode_histogram_rows(bad)), Error);
  auto ri = encode_run_info(testing::sample_run_info());
  ri.resize(ri.size() / 2);
  EXPECT_THROW(decode_run_info(ri), Error);
}

TEST(Format, FileRoundTripEveryChunk) {
  TempDir dir;
  const auto path = dir.file("a.kprof");
  for (bool compress : {true, false}) {
    write_full_profile(path, compress);
    CollectingSink sink;
    Profile p = perfabi::load_profile(path, {.records = &sink});
    RunInfo want = testing::sample_run_info();
    want.format_version = kFormatVersion;
    EXPECT_EQ(p.run, want);
    ASSERT_TRUE(p.summary);
    EXPECT_EQ(*p.summary, testing::sample_summary());
    ASSERT_TRUE(p.histogram);
    EXPECT_EQ(*p.histogram, testing::sample_histogram());
    EXPECT_EQ(p.kallsyms, "ffffffff81000000 T _stext\n");
    EXPECT_EQ(p.modules, "");
    EXPECT_TRUE(p.status.complete);
    EXPECT_EQ(p.status.problem, "");
    EXPECT_EQ(p.status.good_bytes, p.status.file_bytes);
    ASSERT_EQ(sink.samples.size(), 50u);
    EXPECT_EQ(sink.samples[49].ip, 0x401000u + 49 * 4u);
    EXPECT_EQ(sink.samples[49].time, 1049u);
  }
}

TEST(Format, CompressionOnlyWhenSmaller) {
  TempDir dir;
  const auto path = dir.file("c.kprof");
  std::vector<uint8_t> zeros(100000, 0);
  std::vector<uint8_t> noise(1000);
  uint32_t x = 12345;
  for (auto& b : noise) b = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 24);
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Kallsyms, zeros);
    EXPECT_LT(w.bytes_written(), kHeaderBytes + kChunkHeaderBytes + 1000);
    const uint64_t before = w.bytes_written();
    w.write_chunk(ChunkType::Modules, noise);
    EXPECT_EQ(w.bytes_written(), before + kChunkHeaderBytes + noise.size());
  }
  ProfileReader r = ProfileReader::open(path);
  std::vector<std::vector<uint8_t>> payloads;  // a chunk's payload lives during its callback
  r.for_each_chunk(
      [](uint16_t) { return true; },
      [&](const Chunk& c) { payloads.emplace_back(c.payload.begin(), c.payload.end()); });
  ASSERT_EQ(payloads.size(), 2u);
  EXPECT_EQ(payloads[0], zeros);
  EXPECT_EQ(payloads[1], noise);
  EXPECT_FALSE(r.status().complete);
  EXPECT_NE(r.status().problem.find("cut short"), std::string::npos) << r.status().problem;
}

TEST(Format, StoredChunkIsCopiedWithoutChange) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "ffffffff8100" + std::to_string(1000 + i) + " T f\n";
  const StoredChunk packed = pack_chunk(ChunkType::Kallsyms, bytes_of(text));
  EXPECT_EQ(packed.type, static_cast<uint16_t>(ChunkType::Kallsyms));
  EXPECT_EQ(packed.flags, kChunkZstd);
  EXPECT_EQ(packed.raw_len, text.size());
  EXPECT_LT(packed.bytes.size(), text.size());
  EXPECT_EQ(pack_chunk(ChunkType::Modules, bytes_of("short"), true).flags, 0);  // too small

  // Written as stored, read back: the same payload, and the same stored bytes,
  // so it can be copied on into a third file.
  {
    auto w = ProfileWriter::create(dir.file("a.kprof"));
    w.write_stored(packed);
    w.write_end();
  }
  StoredChunk copy;
  ProfileReader r = ProfileReader::open(dir.file("a.kprof"));
  r.for_each_chunk([](uint16_t t) { return t == static_cast<uint16_t>(ChunkType::Kallsyms); },
                   [&](const Chunk& c) {
                     EXPECT_EQ(std::string(c.payload.begin(), c.payload.end()), text);
                     EXPECT_EQ(c.flags, kChunkZstd);
                     copy = {c.type, c.flags, static_cast<uint32_t>(c.payload.size()),
                             std::vector<uint8_t>(c.stored.begin(), c.stored.end())};
                   });
  EXPECT_TRUE(r.status().complete) << r.status().problem;
  EXPECT_EQ(copy.bytes, packed.bytes);
  {
    auto w = ProfileWriter::create(dir.file("b.kprof"));
    w.write_stored(copy);
  }
  std::vector<uint8_t> a = read_bytes(dir.file("a.kprof"));
  a.resize(a.size() - kChunkHeaderBytes);  // less the End chunk
  EXPECT_EQ(read_bytes(dir.file("b.kprof")), a);

  // A stored chunk whose lengths disagree is refused before anything is written.
  StoredChunk bad = packed;
  bad.flags = 0;  // raw_len != stored size without compression
  auto w = ProfileWriter::create(dir.file("c.kprof"));
  EXPECT_THROW(w.write_stored(bad), Error);
  EXPECT_EQ(w.bytes_written(), kHeaderBytes);
}

TEST(Format, TruncatedAtEveryByte) {
  TempDir dir;
  const auto path = dir.file("t.kprof");
  const auto ends = write_full_profile(path);
  const auto full = read_bytes(path);
  ASSERT_EQ(full.size(), ends.back());
  for (size_t cut = 0; cut < full.size(); ++cut) {
    std::vector<uint8_t> part(full.begin(), full.begin() + cut);
    SCOPED_TRACE("cut at " + std::to_string(cut));
    if (cut < ends[0]) {
      // Header or Meta chunk incomplete: not a usable profile.
      EXPECT_THROW(perfabi::load_profile_bytes(part, "t.kprof"), Error);
      continue;
    }
    CollectingSink sink;
    Profile p = perfabi::load_profile_bytes(part, "t.kprof", {.records = &sink});
    EXPECT_FALSE(p.status.complete);
    EXPECT_FALSE(p.status.problem.empty());
    EXPECT_EQ(p.status.file_bytes, cut);
    // good_bytes is the end of the last complete chunk at or before the cut.
    uint64_t want_good = 0;
    size_t complete_chunks = 0;
    for (uint64_t e : ends) {
      if (e <= cut) {
        want_good = e;
        ++complete_chunks;
      }
    }
    EXPECT_EQ(p.status.good_bytes, want_good);
    EXPECT_EQ(p.kallsyms.empty(), complete_chunks < 2);
    EXPECT_EQ(sink.samples.size(), complete_chunks >= 3 ? 50u : 0u);
    EXPECT_EQ(p.summary.has_value(), complete_chunks >= 4);
    EXPECT_EQ(p.histogram.has_value(), complete_chunks >= 5);
    if (cut > want_good) {
      EXPECT_NE(p.status.problem.find("offset " + std::to_string(want_good)), std::string::npos)
          << p.status.problem;
    }
  }
}

// Issue 23, item 5: chunks are self-delimiting, so one damaged chunk is
// skipped and what follows it (here the histogram) is still read.
TEST(Format, FlippedByteSkipsOnlyItsChunk) {
  TempDir dir;
  const auto path = dir.file("f.kprof");
  const auto ends = write_full_profile(path);
  auto bytes = read_bytes(path);
  // Flip one byte inside the Summary payload.
  const size_t at = ends[2] + kChunkHeaderBytes + 3;
  bytes[at] ^= 0x40;
  Profile p = perfabi::load_profile_bytes(bytes, "f.kprof");
  EXPECT_TRUE(p.status.complete);
  EXPECT_FALSE(p.status.intact());
  EXPECT_EQ(p.status.good_bytes, bytes.size());
  ASSERT_EQ(p.status.damaged.size(), 1u);
  EXPECT_EQ(p.status.damaged[0].type, static_cast<uint16_t>(ChunkType::Summary));
  EXPECT_EQ(p.status.damaged[0].offset, ends[2]);
  EXPECT_EQ(p.status.damaged[0].bytes, ends[3] - ends[2] - kChunkHeaderBytes);
  const std::string said = p.status.describe_damage();
  EXPECT_NE(said.find("checksum"), std::string::npos) << said;
  EXPECT_NE(said.find("'summary'"), std::string::npos) << said;
  EXPECT_NE(said.find("offset " + std::to_string(ends[2])), std::string::npos) << said;
  EXPECT_FALSE(p.summary);
  EXPECT_FALSE(p.kallsyms.empty());
  EXPECT_TRUE(p.histogram) << "the histogram after the damaged chunk is read";
  EXPECT_TRUE(p.histogram_usable());
}

// A damaged chunk followed by another: the first one's length was likely
// what was hit, so the walk does not guess on.
TEST(Format, TwoDamagedChunksInARowEndTheWalk) {
  TempDir dir;
  const auto path = dir.file("f2.kprof");
  const auto ends = write_full_profile(path);
  auto bytes = read_bytes(path);
  bytes[ends[2] + kChunkHeaderBytes + 3] ^= 0x40;  // Summary
  bytes[ends[3] + kChunkHeaderBytes + 3] ^= 0x40;  // Histogram
  Profile p = perfabi::load_profile_bytes(bytes, "f2.kprof");
  EXPECT_FALSE(p.status.complete);
  ASSERT_EQ(p.status.damaged.size(), 1u);
  EXPECT_NE(
      p.status.problem.find("right after the damaged chunk at offset " + std::to_string(ends[2])),
      std::string::npos)
      << p.status.problem;
  EXPECT_FALSE(p.histogram);
}

TEST(Format, OversizedChunkLengthIsAProblem) {
  TempDir dir;
  const auto path = dir.file("o.kprof");
  const auto ends = write_full_profile(path);
  auto bytes = read_bytes(path);
  // stored_len of the Kallsyms chunk -> 0xffffffff.
  for (int i = 0; i < 4; ++i) bytes[ends[0] + 4 + i] = 0xff;
  Profile p = perfabi::load_profile_bytes(bytes, "o.kprof");
  EXPECT_NE(p.status.problem.find("over the limit"), std::string::npos) << p.status.problem;
  EXPECT_EQ(p.status.good_bytes, ends[0]);
}

TEST(Format, UndecodableRecordsChunkIsSkipped) {
  TempDir dir;
  const auto path = dir.file("r.kprof");
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(RunInfo{}));
    const uint8_t junk[] = {99, 1, 2, 3};
    w.write_chunk(ChunkType::Records, junk);
    w.write_chunk(ChunkType::Summary, encode_summary(Summary{}));
    w.write_chunk(ChunkType::Histogram, encode_histogram_rows(Histogram{}));
    w.write_end();
  }
  CollectingSink sink;
  Profile p = perfabi::load_profile(path, {.records = &sink});
  EXPECT_TRUE(p.status.complete);
  ASSERT_EQ(p.status.damaged.size(), 1u);
  EXPECT_EQ(p.status.damaged[0].type, static_cast<uint16_t>(ChunkType::Records));
  EXPECT_NE(p.status.damaged[0].problem.find("unknown record kind 99"), std::string::npos)
      << p.status.damaged[0].problem;
  EXPECT_TRUE(p.summary) << "what follows the damaged chunk is read";
  // Without a sink, a complete file's Records chunks are not decoded: its
  // histogram is what reports show, so the file reads whole.
  Profile q = perfabi::load_profile(path);
  EXPECT_TRUE(q.status.intact());
  EXPECT_TRUE(q.summary);
  EXPECT_FALSE(q.counted);
  // Asked to count them, the damage shows.
  Profile r = perfabi::load_profile(path, {.count_records = true});
  EXPECT_FALSE(r.status.intact());
  EXPECT_NE(r.status.describe_damage().find("unknown record kind 99"), std::string::npos);
}

// A file cut short has no histogram: its records are counted as it is read,
// once, whether it is a file, a stream or memory.
TEST(Format, CutShortRecordsAreCountedInTheOneWalk) {
  TempDir dir;
  const auto path = dir.file("c.kprof");
  {
    auto w = ProfileWriter::create(path);
    RunInfo run;
    w.write_chunk(ChunkType::Meta, encode_run_info(run));
    RecordEncoder enc;
    for (uint64_t i = 0; i < 1000; ++i) {
      enc.add(Sample{.time = i,
                     .ip = 0xffffffff81000000ull + (i % 7) * 16,
                     .mode = Mode::Kernel,
                     .period = 1});
    }
    w.write_chunk(ChunkType::Records, enc.take());
  }
  const Profile p = perfabi::load_profile(path);
  ASSERT_TRUE(p.counted);
  EXPECT_EQ(p.counted->samples, 1000u);
  EXPECT_EQ(p.counted->counts.size(), 7u);
  EXPECT_FALSE(p.status.complete);
  EXPECT_EQ(p.status.chunks.at(static_cast<uint16_t>(ChunkType::Records)), 1u);

  // The same bytes as a stream: read once, counted the same.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const Fd read_end(fds[0]);
  Fd write_end(fds[1]);
  std::vector<uint8_t> bytes = read_file_bytes(path);
  std::thread writer([&] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(write_end.get(), bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    write_end.reset();  // the reader's end of file
  });
  ProfileReader reader = ProfileReader::stream(read_end.get(), {}, "pipe");
  const Profile q = perfabi::load_profile(reader);
  writer.join();
  ASSERT_TRUE(q.counted);
  EXPECT_EQ(q.counted->samples, 1000u);
  EXPECT_EQ(q.status.file_bytes, bytes.size());
  EXPECT_EQ(q.status.good_bytes, p.status.good_bytes);
  EXPECT_THROW(reader.for_each_chunk([](uint16_t) { return true; }, [](const Chunk&) {}), Error);
}

TEST(Format, HeaderErrors) {
  TempDir dir;
  const auto empty = dir.file("empty.kprof");
  write_bytes(empty, {});
  EXPECT_EQ(error_of([&] { perfabi::load_profile(empty); }),
            empty + " is empty: not a kprof profile (was the recording killed before it started?)");
  const auto foreign = dir.file("perf.data");
  write_bytes(foreign, {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 0, 0, 0, 0, 0, 0, 0, 0, 1});
  EXPECT_EQ(error_of([&] { perfabi::load_profile(foreign); }), foreign + " is not a kprof profile");
  const auto newer = dir.file("new.kprof");
  write_full_profile(newer);
  auto bytes = read_bytes(newer);
  bytes[8] = 7;
  write_bytes(newer, bytes);
  EXPECT_EQ(
      error_of([&] { perfabi::load_profile(newer); }),
      newer + " has format version 7; this kprof reads version " + std::to_string(kFormatVersion));
  EXPECT_NE(
      error_of([&] { perfabi::load_profile(dir.file("missing.kprof")); }).find("missing.kprof"),
      std::string::npos);
  EXPECT_NE(error_of([&] { perfabi::load_profile(dir.path().string()); }).find("is a directory"),
            std::string::npos);
}

TEST(Format, MissingMetaIsAnError) {
  TempDir dir;
  const auto path = dir.file("nometa.kprof");
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Summary, encode_summary(Summary{}));
    w.write_end();
  }
  EXPECT_NE(error_of([&] { perfabi::load_profile(path); }).find("meta"), std::string::npos);
}

TEST(Format, UnknownChunkTypesAreSkipped) {
  TempDir dir;
  const auto path = dir.file("u.kprof");
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(testing::sample_run_info()));
    const uint8_t future[] = {1, 2, 3};
    w.write_chunk(static_cast<ChunkType>(200), future);
    w.write_chunk(ChunkType::Summary, encode_summary(testing::sample_summary()));
    w.write_end();
  }
  Profile p = perfabi::load_profile(path);
  EXPECT_TRUE(p.status.complete);
  ASSERT_TRUE(p.summary);
  EXPECT_EQ(*p.summary, testing::sample_summary());
}

TEST(Format, WriterCreatesMode0600EvenOverAnExistingFile) {
  TempDir dir;
  const auto path = dir.file("m.kprof");
  write_bytes(path, {1, 2, 3});
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  { auto w = ProfileWriter::create(path); }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(kHeaderBytes));
}

TEST(Format, WriterRefusesSymlinkAndDirectory) {
  TempDir dir;
  const auto target = dir.file("target");
  write_bytes(target, {1});
  const auto link = dir.file("link.kprof");
  std::filesystem::create_symlink(target, link);
  const std::string e1 = error_of([&] { ProfileWriter::create(link); });
  EXPECT_EQ(e1.find("refusing to follow symlink " + link), 0u) << e1;
  EXPECT_EQ(read_bytes(target), std::vector<uint8_t>{1});  // untouched
  const std::string e2 = error_of([&] { ProfileWriter::create(dir.path().string()); });
  EXPECT_EQ(e2, dir.path().string() + " is a directory; give a file path with -o");
  const std::string e3 = error_of([&] { ProfileWriter::create(dir.file("no/such/x.kprof")); });
  EXPECT_NE(e3.find("does not exist"), std::string::npos) << e3;
}

TEST(Format, WriterReportsPermissionProblems) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  const auto sub = dir.file("ro");
  std::filesystem::create_directory(sub);
  ::chmod(sub.c_str(), 0500);
  const std::string e = error_of([&] { ProfileWriter::create(sub + "/x.kprof"); });
  ::chmod(sub.c_str(), 0700);
  EXPECT_NE(e.find("cannot create"), std::string::npos) << e;
}

TEST(Format, WriterRefusesNonRegularFiles) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  EXPECT_NE(error_of([] { ProfileWriter::create("/dev/full"); }).find("not a regular file"),
            std::string::npos);
}

// Restores a resource limit and a signal disposition at scope exit.
struct FileSizeLimit {
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_limit);
    old_handler = ::signal(SIGXFSZ, SIG_IGN);  // make the kernel return EFBIG instead
    rlimit lim = old_limit;
    lim.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    ::signal(SIGXFSZ, old_handler);
  }
  rlimit old_limit{};
  sighandler_t old_handler;
};

TEST(Format, FailedWriteCutsBackToTheLastCompleteChunk) {
  TempDir dir;
  const auto path = dir.file("full.kprof");
  std::vector<uint8_t> noise(3000);
  uint32_t x = 7;
  for (auto& b : noise) b = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 24);
  std::string err;
  uint64_t kept = 0;
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(testing::sample_run_info()));
    FileSizeLimit limit(w.bytes_written() + 2 * (kChunkHeaderBytes + noise.size()) + 100);
    err = error_of([&] {
      for (int i = 0; i < 10; ++i) w.write_chunk(ChunkType::Kallsyms, noise);  // 3rd one fails
    });
    kept = w.bytes_written();
  }
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find(std::to_string(kept) + " bytes kept"), std::string::npos) << err;
  EXPECT_EQ(std::filesystem::file_size(path), kept);  // the partial chunk was cut off
  Profile p = perfabi::load_profile(path);
  EXPECT_EQ(p.status.good_bytes, kept);
  EXPECT_NE(p.status.problem.find("cut short"), std::string::npos) << p.status.problem;
  EXPECT_EQ(p.kallsyms.size(), noise.size());
}

// Builds a file chunk by chunk with any header values, for damage the writer never makes.
class FileBuilder {
 public:
  FileBuilder() {
    w_.raw(bytes_of(std::string_view("KPROF\r\n\x1a", 8)));
    w_.u32(kFormatVersion);
    w_.u32(0);
    chunk(1, 0, encode_run_info(RunInfo{}));
  }
  FileBuilder& chunk(uint16_t type, uint16_t flags, std::vector<uint8_t> stored,
                     std::optional<uint32_t> raw_len = {}) {
    w_.u16(type);
    w_.u16(flags);
    w_.u32(static_cast<uint32_t>(stored.size()));
    w_.u32(raw_len.value_or(static_cast<uint32_t>(stored.size())));
    w_.u32(crc32(stored));
    w_.raw(stored);
    return *this;
  }
  std::vector<uint8_t> bytes() const { return w_.bytes(); }

 private:
  ByteWriter w_;
};

TEST(Format, ChunkDamageTheChecksumCannotSee) {
  struct Case {
    const char* name;
    FileBuilder file;
    const char* problem;
  };
  Case cases[] = {
      {"bad zstd", FileBuilder().chunk(2, kChunkZstd, {1, 2, 3, 4, 5, 6, 7, 8}, 100), "bad zstd"},
      {"raw_len mismatch", FileBuilder().chunk(2, 0, {1, 2, 3}, 4), "raw length 4"},
      {"unknown flags", FileBuilder().chunk(2, 0x80, {1, 2, 3}), "unknown flags"},
      {"damaged summary payload",
       FileBuilder().chunk(5, 0, {0x05, 0x01}),  // summary says 5 fields, has 1
       "'summary'"},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<uint8_t> bytes = c.file.bytes();
    Profile p = perfabi::load_profile_bytes(bytes, "d.kprof");
    EXPECT_FALSE(p.status.complete);
    ASSERT_EQ(p.status.damaged.size(), 1u);
    const std::string said = p.status.describe_damage();
    EXPECT_NE(said.find(c.problem), std::string::npos) << said;
    const size_t second = kHeaderBytes + kChunkHeaderBytes + encode_run_info(RunInfo{}).size();
    EXPECT_NE(said.find("at offset " + std::to_string(second)), std::string::npos) << said;
    EXPECT_EQ(p.status.damaged[0].offset, second);
    EXPECT_EQ(p.status.good_bytes, bytes.size()) << "skipped to the end (no End chunk)";
    EXPECT_NE(p.status.problem.find("no end marker"), std::string::npos) << p.status.problem;
  }
}

TEST(Format, ZstdFrameWithWrongContentSize) {
  // A valid frame whose content size disagrees with raw_len.
  TempDir dir;
  const auto path = dir.file("z.kprof");
  std::vector<uint8_t> zeros(4096, 0);
  {
    auto w = ProfileWriter::create(path);
    w.write_chunk(ChunkType::Meta, encode_run_info(RunInfo{}), false);
    w.write_chunk(ChunkType::Kallsyms, zeros);
  }
  auto bytes = read_bytes(path);
  ProfileReader r(bytes);
  uint64_t at = 0;
  r.for_each_chunk([](uint16_t) { return true; }, [&](const Chunk& c) { at = c.offset; });
  bytes[at + 8] ^= 1;  // raw_len; the checksum covers only the stored bytes
  Profile p = perfabi::load_profile_bytes(bytes, "z.kprof");
  EXPECT_NE(p.status.describe_damage().find("bad zstd"), std::string::npos)
      << p.status.describe_damage();
  EXPECT_TRUE(p.kallsyms.empty());
}

TEST(Format, AppendAfterTruncationAndAfterEnd) {
  TempDir dir;
  const auto path = dir.file("a.kprof");
  const auto ends = write_full_profile(path);
  auto bytes = read_bytes(path);
  // Cut in the middle of the Summary chunk, as kill -9 would.
  bytes.resize(ends[2] + 7);
  write_bytes(path, bytes);
  {
    auto w = ProfileWriter::append(path);
    EXPECT_EQ(w.bytes_written(), ends[2]);
    w.write_chunk(ChunkType::Histogram, encode_histogram_rows(testing::sample_histogram()));
    w.write_end();
  }
  CollectingSink sink;
  Profile p = perfabi::load_profile(path, {.records = &sink});
  EXPECT_TRUE(p.status.complete) << p.status.problem;
  EXPECT_EQ(sink.samples.size(), 50u);
  EXPECT_FALSE(p.summary);
  ASSERT_TRUE(p.histogram);
  EXPECT_EQ(*p.histogram, testing::sample_histogram());
  // Appending to a complete file drops its End chunk first.
  const uint64_t size_before = read_bytes(path).size();
  {
    auto w = ProfileWriter::append(path);
    EXPECT_EQ(w.bytes_written(), size_before - kChunkHeaderBytes);
    w.write_chunk(ChunkType::Summary, encode_summary(testing::sample_summary()));
    w.write_end();
  }
  Profile q = perfabi::load_profile(path);
  EXPECT_TRUE(q.status.complete) << q.status.problem;
  ASSERT_TRUE(q.summary);
  EXPECT_EQ(*q.summary, testing::sample_summary());
  ASSERT_TRUE(q.histogram);
}

TEST(Format, ChunkTypeNames) {
  EXPECT_STREQ(chunk_type_name(4), "records");
  EXPECT_STREQ(chunk_type_name(7), "end");
  EXPECT_STREQ(chunk_type_name(999), "unknown");
}

}  // namespace
}  // namespace kprof
