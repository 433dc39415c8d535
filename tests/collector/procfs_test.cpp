// /proc and /sys parsers on inline text, odd rows included.
#include <sys/mman.h>

#include <gtest/gtest.h>

#include "collector/procfs.h"

namespace kprof::collector {
namespace {

TEST(ProcMaps, TypicalLines) {
  const char* text =
      "55d4c8a00000-55d4c8a28000 r--p 00000000 08:01 1835082                    /usr/bin/dash\n"
      "55d4c8a28000-55d4c8a3f000 r-xp 00028000 08:01 1835082                    /usr/bin/dash\n"
      "55d4ca1e5000-55d4ca206000 rw-p 00000000 00:00 0                          [heap]\n"
      "7f6d1a000000-7f6d1a021000 rw-p 00000000 00:00 0 \n"
      "7f6d1b400000-7f6d1b410000 rw-s 00000000 00:05 4242                       /dev/shm/x y z\n"
      "7f6d1b500000-7f6d1b510000 r-xp 00001000 08:01 99                         /tmp/gone "
      "(deleted)\n"
      "7ffd5e9f1000-7ffd5e9f3000 r-xp 00000000 00:00 0                          [vdso]\n";
  auto maps = parse_proc_maps(text, 77, 1000);
  ASSERT_EQ(maps.size(), 7u);
  EXPECT_EQ(maps[1].start, 0x55d4c8a28000u);
  EXPECT_EQ(maps[1].len, 0x17000u);
  EXPECT_EQ(maps[1].pgoff, 0x28000u);
  EXPECT_EQ(maps[1].prot, unsigned(PROT_READ | PROT_EXEC));
  EXPECT_EQ(maps[1].flags, unsigned(MAP_PRIVATE));
  EXPECT_EQ(maps[1].filename, "/usr/bin/dash");
  EXPECT_EQ(maps[1].pid, 77u);
  EXPECT_EQ(maps[1].tid, 77u);
  EXPECT_EQ(maps[1].time, 1000u);
  EXPECT_EQ(maps[2].filename, "[heap]");
  EXPECT_EQ(maps[3].filename, "//anon");
  EXPECT_EQ(maps[4].filename, "/dev/shm/x y z");
  EXPECT_EQ(maps[4].flags, unsigned(MAP_SHARED));
  EXPECT_EQ(maps[4].prot, unsigned(PROT_READ | PROT_WRITE));
  EXPECT_EQ(maps[5].filename, "/tmp/gone (deleted)");
  EXPECT_EQ(maps[6].filename, "[vdso]");
  EXPECT_EQ(maps[6].prot, unsigned(PROT_READ | PROT_EXEC));
}

TEST(ProcMaps, MalformedLinesAreSkipped) {
  const char* text =
      "\n"
      "garbage\n"
      "1000-0500 r-xp 00000000 08:01 1 /backwards\n"
      "zz00-2000 r-xp 00000000 08:01 1 /nothex\n"
      "1000-2000 r-xp 00000000 08:01\n"
      "1000-2000 r 0 08:01 1 /shortperms\n"
      "1000-2000 r-xp 00000000 08:01 1 /ok";  // no final newline
  auto maps = parse_proc_maps(text, 1, 0);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].filename, "/ok");
}

TEST(ProcMaps, OwnProcessHasExecutableMappings) {
  auto maps = parse_proc_maps(read_text_file("/proc/self/maps"), 1, 0);
  size_t exec = 0;
  for (const Mmap& m : maps) exec += (m.prot & PROT_EXEC) != 0;
  EXPECT_GT(exec, 1u);
}

TEST(ProcStat, Parses) {
  const char* text =
      "cpu  100 2 30 4000 5 6 7 8 0 0\n"
      "cpu0 50 1 15 2000 2 3 3 4 0 0\n"
      "intr 123456 1 2 3\n"
      "ctxt 98765\n"
      "btime 1700000000\n";
  ProcStat s = parse_proc_stat(text, 42);
  EXPECT_EQ(s, (ProcStat{42, 100, 2, 30, 4000, 5, 6, 7, 8, 123456, 98765}));
}

TEST(ProcStat, ShortOrMissingLines) {
  ProcStat s = parse_proc_stat("cpu 1 2 3\nctxt x\n", 0);
  EXPECT_EQ(s.user, 1u);
  EXPECT_EQ(s.system, 3u);
  EXPECT_EQ(s.idle, 0u);
  EXPECT_EQ(s.ctxt, 0u);
  EXPECT_EQ(parse_proc_stat("", 5), (ProcStat{5}));
}

TEST(ProcStat, ThisMachine) {
  ProcStat s = read_proc_stat();
  EXPECT_GT(s.user + s.system + s.idle, 0u);
  EXPECT_GT(s.ctxt, 0u);
}

TEST(CpuList, Ranges) {
  EXPECT_EQ(parse_cpu_list("0-3,6,8-9\n"), (std::vector<int>{0, 1, 2, 3, 6, 8, 9}));
  EXPECT_EQ(parse_cpu_list("0\n"), (std::vector<int>{0}));
  EXPECT_EQ(parse_cpu_list("x,2,5-3"), (std::vector<int>{2}));
  EXPECT_TRUE(parse_cpu_list("").empty());
}

std::vector<uint8_t> note(uint32_t type, const std::string& name, std::vector<uint8_t> desc) {
  std::vector<uint8_t> out;
  auto u32 = [&](uint32_t v) { out.insert(out.end(), (uint8_t*)&v, (uint8_t*)&v + 4); };
  u32(static_cast<uint32_t>(name.size() + 1));
  u32(static_cast<uint32_t>(desc.size()));
  u32(type);
  out.insert(out.end(), name.begin(), name.end());
  out.push_back(0);
  while (out.size() % 4) out.push_back(0);
  out.insert(out.end(), desc.begin(), desc.end());
  while (out.size() % 4) out.push_back(0);
  return out;
}

TEST(BuildIdNotes, FindsGnuBuildId) {
  auto notes = note(6, "Linux", {1, 2, 3, 4, 5});  // another note first
  auto id = note(3, "GNU", {0xde, 0xad, 0xbe, 0xef, 0x01});
  notes.insert(notes.end(), id.begin(), id.end());
  EXPECT_EQ(build_id_from_notes(notes), "deadbeef01");
}

TEST(BuildIdNotes, NoneOrDamaged) {
  EXPECT_EQ(build_id_from_notes(note(3, "XEN", {1, 2})), "");
  EXPECT_EQ(build_id_from_notes({}), "");
  auto cut = note(3, "GNU", std::vector<uint8_t>(20, 7));
  cut.resize(cut.size() - 4);
  EXPECT_EQ(build_id_from_notes(cut), "");
  std::vector<uint8_t> huge = {4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 3, 0, 0, 0, 'G', 'N', 'U', 0};
  EXPECT_EQ(build_id_from_notes(huge), "");
}

TEST(CpuInfo, ModelName) {
  EXPECT_EQ(cpu_model_from_cpuinfo("processor\t: 0\nmodel name\t: AMD EPYC 9B14\nflags\t: x\n"
                                   "model name\t: second\n"),
            "AMD EPYC 9B14");
  EXPECT_EQ(cpu_model_from_cpuinfo("processor : 0\n"), "");
}

}  // namespace
}  // namespace kprof::collector
