// The perf.data reader on files built byte by byte: every header field, the
// ways a file lies or ends early, perf's record order, a large data section
// ordered on a second thread. (Files perf records: perf_data_recorded_test.cpp.)
#include "importer/perf_data.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "perfabi/perf_record.h"
#include "tests/importer/perf_data_builder.h"
#include "tests/support/cli_run.h"

namespace kprof::importer {
namespace {

using test::Bytes;
using test::error_of;
using test::expect_this_machine;
using test::PerfFile;
using test::PerfRecorded;
using test::walk;
using test::Walk;

// One event (ids 11, 12), samples at times 1..n, perf's features.
PerfFile simple_file(int samples) {
  PerfFile f;
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK), {11, 12});
  f.add(test::comm(0, 0));
  for (int i = 1; i <= samples; ++i) f.add(test::sample(11, static_cast<uint64_t>(i)));
  f.add(test::finished_round());
  f.features[3] = Bytes().header_string("host-a").bytes();
  f.features[4] = Bytes().header_string("6.1.0-test").bytes();
  f.features[7] = Bytes().u32(8).u32(4).bytes();
  f.features[11] = Bytes().u32(2).header_string("/usr/bin/perf").header_string("record").bytes();
  return f;
}

// ------------------------------------------------------------------ synthetic

TEST(PerfDataSynthetic, ReadsHeaderFeaturesAndRecords) {
  PerfFile f = simple_file(3);
  f.features[5] = Bytes().header_string("6.1.187").bytes();
  f.features[6] = Bytes().header_string("x86_64").bytes();
  f.features[8] = Bytes().header_string("AMD EPYC").bytes();
  f.features[9] = Bytes().header_string("AuthenticAMD,25,17,1").bytes();
  f.features[13] = Bytes().u32(1).bytes();  // CPU_TOPOLOGY: known, not used
  const auto bytes = f.build();
  ASSERT_TRUE(is_perf_data(bytes));
  PerfDataReader r(bytes, "t.data");
  const auto& h = r.header();
  EXPECT_FALSE(h.pipe);
  EXPECT_EQ(h.hostname, "host-a");
  EXPECT_EQ(h.os_release, "6.1.0-test");
  EXPECT_EQ(h.perf_version, "6.1.187");
  EXPECT_EQ(h.arch, "x86_64");
  EXPECT_EQ(h.cpu_desc, "AMD EPYC");
  EXPECT_EQ(h.cpuid, "AuthenticAMD,25,17,1");
  EXPECT_EQ(h.nr_cpus_available, 8u);
  EXPECT_EQ(h.nr_cpus_online, 4u);
  EXPECT_EQ(h.cmdline, (std::vector<std::string>{"/usr/bin/perf", "record"}));
  EXPECT_TRUE(h.notices.empty()) << h.notices[0];
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_EQ(h.events[0].ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(h.events[0].sample_type, test::kSampleType);
  EXPECT_TRUE(h.events[0].freq);
  EXPECT_EQ(h.events[0].sample, 1000u);
  EXPECT_TRUE(h.events[0].sample_id_all);
  EXPECT_EQ(h.data_offset, test::get_u64(bytes, PerfFile::kData));
  EXPECT_EQ(h.data_size, f.data.size());

  const Walk w = walk(r, bytes);
  EXPECT_EQ(w.types, (std::vector<uint32_t>{PERF_RECORD_COMM, 9, 9, 9}));
  EXPECT_EQ(w.events, (std::vector<size_t>{0, 0, 0, 0}));
  EXPECT_EQ(w.status.records, 4u);
  EXPECT_EQ(w.status.problem, "");
  EXPECT_FALSE(w.status.cut_short);
  EXPECT_EQ(w.status.data_bytes, f.data.size());
  EXPECT_EQ(w.status.bytes_read, f.data.size());
}

TEST(PerfDataSynthetic, WrongMagicIsNamed) {
  auto bytes = simple_file(1).build();
  std::memcpy(bytes.data(),
              "\x7f"
              "ELF\2\1\1\0",
              8);
  const std::string e = error_of(bytes);
  EXPECT_NE(e.find("t.data: not a perf.data file"), std::string::npos) << e;
  EXPECT_NE(e.find("\\x7fELF"), std::string::npos) << e;
  EXPECT_FALSE(is_perf_data(bytes));
  EXPECT_NE(error_of({'P', 'E', 'R'}).find("not a perf.data file"), std::string::npos);
  EXPECT_FALSE(is_perf_data(std::vector<uint8_t>{'P', 'E', 'R', 'F', 'I', 'L', 'E'}));
}

TEST(PerfDataSynthetic, BigEndianIsAClearError) {
  auto bytes = simple_file(1).build();
  std::memcpy(bytes.data(), "2ELIFREP", 8);
  EXPECT_NE(error_of(bytes).find("big-endian perf.data is not supported"), std::string::npos)
      << error_of(bytes);
}

TEST(PerfDataSynthetic, HeaderSizePerfNeverWritesIsAnError) {
  auto bytes = simple_file(1).build();
  test::put_u64(bytes, 8, 200);
  EXPECT_NE(error_of(bytes).find("header size 200"), std::string::npos) << error_of(bytes);
}

TEST(PerfDataSynthetic, AttributeSectionPastTheEndIsAnError) {
  auto bytes = simple_file(1).build();
  const uint64_t off = test::get_u64(bytes, PerfFile::kAttrs);
  test::put_u64(bytes, PerfFile::kAttrs + 8, 1 << 20);
  const std::string e = error_of(bytes);
  const std::string want = "attribute section at " + std::to_string(off) + "+" +
                           std::to_string(1 << 20) + " runs past the end of the file (" +
                           std::to_string(bytes.size()) + " bytes)";
  EXPECT_NE(e.find(want), std::string::npos) << e;
  // The event types section is checked too, though kprof does not read it.
  auto types = simple_file(1).build();
  test::put_u64(types, PerfFile::kEventTypes, types.size() - 8);
  test::put_u64(types, PerfFile::kEventTypes + 8, 16);
  EXPECT_NE(error_of(types).find("event type section"), std::string::npos) << error_of(types);
}

TEST(PerfDataSynthetic, TruncatedAttributeSectionIsAnError) {
  auto bytes = simple_file(1).build();
  const uint64_t size = test::get_u64(bytes, PerfFile::kAttrs + 8);
  test::put_u64(bytes, PerfFile::kAttrs + 8, size - 8);
  EXPECT_NE(error_of(bytes).find("truncated"), std::string::npos) << error_of(bytes);
  // An attribute whose id list lies.
  auto ids = simple_file(1).build();
  const uint64_t entry = test::get_u64(ids, PerfFile::kAttrs);
  test::put_u64(ids, entry + sizeof(perf_event_attr) + 8, 1 << 20);
  EXPECT_NE(error_of(ids).find("ids of attribute 0"), std::string::npos) << error_of(ids);
}

TEST(PerfDataSynthetic, AttrSmallerAndLargerThanThisBuild) {
  for (size_t attr_bytes : {size_t{PERF_ATTR_SIZE_VER0}, sizeof(perf_event_attr) + 48}) {
    PerfFile f = simple_file(2);
    f.attr_size = attr_bytes + 16;
    std::vector<uint8_t> a(attr_bytes, 0);
    perf_event_attr src = test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
    src.size = static_cast<uint32_t>(attr_bytes);
    std::memcpy(a.data(), &src, std::min(attr_bytes, sizeof src));
    if (attr_bytes > sizeof src) a.back() = 0xff;  // a field this build does not know
    f.attrs[0].bytes = a;
    const auto bytes = f.build();
    PerfDataReader r(bytes);
    ASSERT_EQ(r.header().events.size(), 1u);
    const PerfEvent& e = r.header().events[0];
    EXPECT_EQ(e.name, "task-clock") << attr_bytes;
    EXPECT_EQ(e.sample_type, test::kSampleType) << attr_bytes;
    EXPECT_EQ(e.ids, (std::vector<uint64_t>{11, 12})) << attr_bytes;
    EXPECT_TRUE(e.sample_id_all) << attr_bytes;
    EXPECT_EQ(walk(r, bytes).status.records, 3u);
  }
}

TEST(PerfDataSynthetic, UnknownFeatureBitIsANotice) {
  PerfFile f = simple_file(1);
  f.features[40] = {1, 2, 3, 4};
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  ASSERT_EQ(r.header().notices.size(), 1u);
  EXPECT_EQ(r.header().notices[0], "unknown feature bit 40 skipped");
  EXPECT_EQ(r.header().hostname, "host-a");  // the sections before it still read
  EXPECT_EQ(r.header().cmdline.size(), 2u);
  EXPECT_EQ(walk(r, bytes).status.records, 2u);
}

TEST(PerfDataSynthetic, FeatureThatDoesNotDecodeIsANotice) {
  PerfFile f = simple_file(1);
  f.features[3] = Bytes().u32(1000).raw("abc", 3).bytes();  // a string longer than its section
  f.features[11] = Bytes().u32(0x40000000).bytes();         // a command line of 1G strings
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  const auto& h = r.header();
  ASSERT_EQ(h.notices.size(), 2u);
  EXPECT_NE(h.notices[0].find("feature HOSTNAME (3)"), std::string::npos) << h.notices[0];
  EXPECT_NE(h.notices[1].find("feature CMDLINE (11)"), std::string::npos) << h.notices[1];
  EXPECT_EQ(h.hostname, "");
  EXPECT_TRUE(h.cmdline.empty());
  EXPECT_EQ(h.os_release, "6.1.0-test");
  // A section that points past the end.
  auto past = simple_file(1).build();
  const uint64_t table =
      test::get_u64(past, PerfFile::kData) + test::get_u64(past, PerfFile::kData + 8);
  test::put_u64(past, table + 8, 1 << 20);  // HOSTNAME's size
  PerfDataReader p(past);
  ASSERT_EQ(p.header().notices.size(), 1u);
  EXPECT_NE(p.header().notices[0].find("runs past the end of the file"), std::string::npos);
  EXPECT_EQ(p.header().hostname, "");
  EXPECT_EQ(p.header().os_release, "6.1.0-test");
}

TEST(PerfDataSynthetic, RecordOfSizeZeroIsDamage) {
  PerfFile f = simple_file(2);
  const uint64_t bad = f.data.size();
  f.add(test::record(PERF_RECORD_SAMPLE, 0, Bytes().u64(0)));
  std::memset(&f.data[bad + 6], 0, 2);  // size 0
  f.add(test::sample(11, 9));
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  const Walk w = walk(r, bytes);
  const uint64_t at = r.header().data_offset + bad;
  EXPECT_EQ(w.status.problem,
            "record at offset " + std::to_string(at) + " has an impossible size of 0 bytes");
  EXPECT_EQ(w.status.records, 3u);  // the comm and both samples before it
  EXPECT_EQ(w.status.bytes_read, bad);
  EXPECT_EQ(w.types, (std::vector<uint32_t>{PERF_RECORD_COMM, 9, 9}));
}

TEST(PerfDataSynthetic, RecordPastTheDataSectionIsDamage) {
  PerfFile f = simple_file(2);
  f.features.clear();
  const uint64_t last = f.data.size();
  f.add(test::sample(11, 9));
  auto b2 = f.build();
  // The header's data size ends 8 bytes into the last sample.
  test::put_u64(b2, PerfFile::kData + 8, last + 8);
  PerfDataReader r(b2);
  const Walk w = walk(r, b2);
  EXPECT_EQ(w.status.records, 3u);  // the comm and two samples; the round is not delivered
  EXPECT_NE(
      w.status.problem.find("record at offset " + std::to_string(r.header().data_offset + last)),
      std::string::npos)
      << w.status.problem;
  EXPECT_NE(w.status.problem.find("runs past the end of the data section"), std::string::npos);
}

TEST(PerfDataSynthetic, DataSectionPastTheEndIsCutShort) {
  PerfFile f = simple_file(3);
  f.features.clear();
  auto bytes = f.build();
  const uint64_t data_off = test::get_u64(bytes, PerfFile::kData);
  bytes.resize(bytes.size() - 20);  // into the last sample
  PerfDataReader r(bytes);
  const Walk w = walk(r, bytes);
  EXPECT_FALSE(w.status.cut_short);
  EXPECT_EQ(w.status.records, 3u);  // the comm and two samples
  EXPECT_NE(w.status.problem.find("data section at " + std::to_string(data_off) + "+" +
                                  std::to_string(f.data.size()) + " runs past the end of the file"),
            std::string::npos)
      << w.status.problem;
  EXPECT_NE(w.status.problem.find("runs past the end of the file"), std::string::npos);
  EXPECT_EQ(w.status.data_bytes, bytes.size() - data_off);
}

TEST(PerfDataSynthetic, DataSizeZeroIsReadToTheEnd) {
  // perf record killed: the header written at start says data size 0, and
  // the feature bits are set but no sections follow.
  PerfFile f = simple_file(3);
  auto bytes = f.build();
  const uint64_t data_off = test::get_u64(bytes, PerfFile::kData);
  bytes.resize(data_off + f.data.size() - 4);  // perf died mid-write
  test::put_u64(bytes, PerfFile::kData + 8, 0);
  PerfDataReader r(bytes);
  EXPECT_EQ(r.header().data_size, 0u);
  EXPECT_EQ(r.header().hostname, "");
  EXPECT_TRUE(r.header().notices.empty());
  const Walk w = walk(r, bytes);
  EXPECT_TRUE(w.status.cut_short);
  EXPECT_EQ(w.status.records, 4u);  // the comm and the samples; then the round is cut
  const uint64_t round_at = data_off + f.data.size() - 8;
  EXPECT_EQ(w.status.problem,
            "record at offset " + std::to_string(round_at) + " runs past the end of the file");
}

TEST(PerfDataSynthetic, EventNamesFromTypeAndConfig) {
  PerfFile f;
  f.add_attr(test::attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), {1});
  f.add_attr(test::attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS), {2});
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK), {3});
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK), {4});
  f.add_attr(test::attr(PERF_TYPE_RAW, 0x1c2), {5});
  f.add_attr(test::attr(9, 3), {6});
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  std::vector<std::string> names;
  for (const auto& e : r.header().events) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cycles", "instructions", "cpu-clock", "task-clock",
                                             "raw 0x1c2", "type 9 config 3"}));
}

TEST(PerfDataSynthetic, EventDescNamesMatchedById) {
  PerfFile f;
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, 0), {11, 12});
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, 1), {21, 22});
  // Listed in the other order: only the ids say which is which.
  Bytes desc;
  desc.u32(2).u32(sizeof(perf_event_attr));
  desc.zeros(sizeof(perf_event_attr)).u32(2).header_string("task-clock:u").u64(22).u64(21);
  desc.zeros(sizeof(perf_event_attr)).u32(1).header_string("cpu-clock:u").u64(12);
  f.features[12] = desc.bytes();
  f.add(test::finished_round());  // a data size of 0 would mean perf never finished
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  EXPECT_TRUE(r.header().notices.empty()) << r.header().notices[0];
  ASSERT_EQ(r.header().events.size(), 2u);
  EXPECT_EQ(r.header().events[0].name, "cpu-clock:u");
  EXPECT_EQ(r.header().events[1].name, "task-clock:u");
}

TEST(PerfDataSynthetic, BuildIds) {
  PerfFile f = simple_file(1);
  Bytes ids;
  ids.raw(
      test::build_id(PERF_RECORD_MISC_KERNEL, std::vector<uint8_t>(20, 0xab), "[kernel.kallsyms]"));
  ids.raw(test::build_id(PERF_RECORD_MISC_USER, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08},
                         "/usr/lib/libshort.so"));
  ids.raw(test::build_id(PERF_RECORD_MISC_USER, std::vector<uint8_t>(20, 0x10), "/bin/old",
                         /*size_bit=*/false));
  f.features[2] = ids.bytes();
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  const auto& b = r.header().build_ids;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].filename, "[kernel.kallsyms]");
  std::string ab;
  for (int i = 0; i < 20; ++i) ab += "ab";
  EXPECT_EQ(b[0].build_id, ab);
  EXPECT_TRUE(b[0].kernel);
  EXPECT_EQ(b[1].filename, "/usr/lib/libshort.so");
  EXPECT_EQ(b[1].build_id, "0102030405060708");
  EXPECT_FALSE(b[1].kernel);
  EXPECT_EQ(b[2].build_id.size(), 40u);  // no size byte: perf's 20
  EXPECT_EQ(b[2].filename, "/bin/old");
}

TEST(PerfDataSynthetic, RecordsInPerfOrderWithEvents) {
  PerfFile f;
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, 0), {11, 12});
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, 1), {21});
  std::vector<uint64_t> at;  // offsets in the data section, by record number
  auto add = [&](const std::vector<uint8_t>& rec) {
    at.push_back(f.data.size());
    f.add(rec);
  };
  add(test::comm(0, 0));          // r0: synthesized (id 0, time 0): delivered at once
  add(test::sample(11, 5));       // r1
  add(test::sample(21, 3));       // r2
  add(test::sample(99, 4));       // r3: no such id: no event, no time: at once
  f.add(test::finished_round());  // flushes nothing (limit 0); next limit 5
  add(test::sample(12, 2));       // r4: older than the round before
  add(test::sample(21, 7));       // r5
  f.add(test::finished_round());  // flushes <= 5: r4, r2, r1; next limit 7
  add(test::sample(11, 6));       // r6
  add(test::sample(11, 9));       // r7
  add(test::comm(21, 8));         // r8: the trailer's id says event 1
  add(test::sample(21, 9));       // r9: ties r7: file order
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  const Walk w = walk(r, bytes);
  const uint64_t base = r.header().data_offset;
  std::vector<uint64_t> want;
  for (int i : {0, 3, 4, 2, 1, 6, 5, 8, 7, 9}) want.push_back(base + at[i]);
  EXPECT_EQ(w.offsets, want);
  EXPECT_EQ(w.events, (std::vector<size_t>{0, SIZE_MAX, 0, 1, 0, 0, 1, 1, 0, 1}));
  EXPECT_EQ(w.status.records, 10u);
  EXPECT_EQ(w.status.problem, "");
}

// Past 8 MiB of records the reader scans and orders them on a second
// thread while the caller's thread takes them: the same order as perf's,
// what the caller throws still reaches the caller, and so does the scan's
// own error. Each round holds two CPUs' runs written one after the other
// (odd and even times), older than the next round's, so perf's order is
// time order.
PerfFile large_file(int rounds, int per_run) {
  PerfFile f = simple_file(0);
  f.data.clear();
  f.add(test::comm(0, 0));  // time 0: delivered at once
  for (int k = 0; k < rounds; ++k) {
    for (int cpu = 0; cpu < 2; ++cpu) {
      for (int i = 0; i < per_run; ++i) {
        const auto t = static_cast<uint64_t>(1 + k * 2 * per_run + 2 * i + cpu);
        f.add(test::sample(11, t, 0x400000 + t));
      }
    }
    f.add(test::finished_round());
  }
  return f;
}

TEST(PerfDataSynthetic, LargeDataIsOrderedOnASecondThreadAsPerfOrdersIt) {
  PerfFile f = large_file(100, 1000);  // 200k samples of 56 bytes: 11 MB
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  ASSERT_GT(r.header().data_size, 8u << 20) << "small enough to be scanned in line";
  std::vector<uint64_t> times;
  const PerfDataStatus st = r.for_each_record([&](std::span<const uint8_t> rec, size_t) {
    times.push_back(perfabi::record_time(rec, r.layout(0)).value_or(0));
  });
  EXPECT_EQ(st.problem, "");
  EXPECT_EQ(st.records, 200001u);
  EXPECT_EQ(st.bytes_read, r.header().data_size);
  ASSERT_EQ(times.size(), 200001u);
  for (size_t i = 0; i < times.size(); ++i) {
    ASSERT_EQ(times[i], i) << "record " << i << " out of time order";
  }
}

TEST(PerfDataSynthetic, LargeDataPassesOnWhatTheCallerThrowsAndTheScansError) {
  PerfFile f = large_file(100, 1000);
  const auto large = f.build();
  PerfDataReader r(large);
  uint64_t seen = 0;
  try {
    r.for_each_record([&](std::span<const uint8_t>, size_t) {
      if (++seen == 5000) throw Error("stop here");
    });
    ADD_FAILURE() << "the caller's error was lost";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stop here");
  }
  EXPECT_EQ(seen, 5000u);
  // A compressed record (perf record -z) near the end: an error, after what
  // was ordered before it.
  f.add(test::record(81, 0, Bytes().u64(0)));
  const auto bytes = f.build();
  PerfDataReader z(bytes);
  seen = 0;
  try {
    z.for_each_record([&](std::span<const uint8_t>, size_t) { ++seen; });
    ADD_FAILURE() << "the scan's error was lost";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("record without -z"), std::string::npos) << e.what();
  }
  EXPECT_LE(seen, 200001u);
}

TEST(PerfDataSynthetic, RecordsWithoutTimeInFileOrder) {
  PerfFile f;
  const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  perf_event_attr a = test::attr(PERF_TYPE_SOFTWARE, 0, st);
  a.sample_id_all = 0;
  f.add_attr(a, {5});
  std::vector<uint64_t> want;
  for (uint64_t ip : {9, 3, 7, 1}) {
    want.push_back(f.data.size());
    f.add(test::record(PERF_RECORD_SAMPLE, 0, Bytes().u64(5).u64(ip).u32(1).u32(1)));
    f.add(test::finished_round());
  }
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  const Walk w = walk(r, bytes);
  for (auto& o : want) o += r.header().data_offset;
  EXPECT_EQ(w.offsets, want);
}

TEST(PerfDataSynthetic, PerfRecordsWithPayloadsAreSkipped) {
  PerfFile f = simple_file(0);
  f.data.clear();
  f.add(test::sample(11, 1));
  // HEADER_TRACING_DATA: u32 size, then that many bytes that are not records.
  f.add(test::record(66, 0, Bytes().u32(24).u32(0)));
  f.add(std::vector<uint8_t>(24, 0));
  // AUXTRACE: u64 size, offset, reference, u32 idx, tid, cpu, reserved; then data.
  f.add(test::record(71, 0, Bytes().u64(16).u64(0).u64(0).u32(0).u32(0).u32(0).u32(0)));
  f.add(std::vector<uint8_t>(16, 0xee));
  f.add(test::record(69, 0, Bytes().u64(0)));  // ID_INDEX: consumed
  f.add(test::sample(11, 2));
  const auto bytes = f.build();
  PerfDataReader r(bytes);
  const Walk w = walk(r, bytes);
  EXPECT_EQ(w.types, (std::vector<uint32_t>{9, 9}));
  EXPECT_EQ(w.status.problem, "");
}

TEST(PerfDataSynthetic, PipeMode) {
  PerfFile f;
  perf_event_attr a = test::attr(PERF_TYPE_SOFTWARE, 0);
  f.add_attr(a, {11});
  f.add_attr(test::attr(PERF_TYPE_SOFTWARE, 1), {21});
  f.features[3] = Bytes().header_string("pipe-host").bytes();
  f.features[32] = {};  // HEADER_LAST_FEATURE: the end of the features
  f.add(test::record(78, 0, Bytes().u64(2).u64(21).raw("my-task-clock\0\0\0", 16)));
  f.add(test::sample(11, 2));
  f.add(test::sample(21, 1));
  f.add(test::build_id(PERF_RECORD_MISC_USER, std::vector<uint8_t>(20, 1), "/bin/x"));
  const auto bytes = f.build_pipe();
  ASSERT_TRUE(is_perf_data(bytes));
  PerfDataReader r(bytes);
  const auto& h = r.header();
  EXPECT_TRUE(h.pipe);
  EXPECT_TRUE(h.notices.empty()) << h.notices[0];
  EXPECT_EQ(h.hostname, "pipe-host");
  ASSERT_EQ(h.events.size(), 2u);
  EXPECT_EQ(h.events[0].name, "cpu-clock");
  EXPECT_EQ(h.events[1].name, "my-task-clock");
  EXPECT_EQ(h.events[1].ids, std::vector<uint64_t>{21});
  ASSERT_EQ(h.build_ids.size(), 1u);
  EXPECT_EQ(h.build_ids[0].filename, "/bin/x");
  const Walk w = walk(r, bytes);
  EXPECT_EQ(w.types, (std::vector<uint32_t>{9, 9}));
  EXPECT_EQ(w.events, (std::vector<size_t>{1, 0}));  // by time
  EXPECT_EQ(w.status.problem, "");
}

TEST(PerfDataSynthetic, CompressedIsAClearError) {
  PerfFile f = simple_file(1);
  f.features[27] = Bytes().u32(1).u32(1).u32(1).u32(1).u32(1).bytes();
  EXPECT_NE(error_of(f.build()).find("perf record -z"), std::string::npos);
  // A file killed mid-record has no features to say so: the record does.
  PerfFile k = simple_file(1);
  k.features.clear();
  k.add(test::record(81, 0, Bytes().u64(0)));
  auto bytes = k.build();
  test::put_u64(bytes, PerfFile::kData + 8, 0);
  PerfDataReader r(bytes);
  try {
    walk(r, bytes);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not supported yet; record without -z"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kprof::importer
