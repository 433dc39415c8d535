// A real consumer of the pprof export: `go tool pprof` (Debian's golang-go,
// installed by scripts/install-deps.sh) must parse what `kprof export` writes,
// and its totals and top functions must agree with `kprof report --csv -` on
// the same profile, and its cumulative counts with the inclusive counts of
// the stacks. Skips when go is not installed.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "export/export.h"
#include "tests/export/export_support.h"
#include "tests/report/test_support.h"

namespace kprof {
namespace {

using test::shell_quote;

// The go command, or "" when not installed.
std::string find_go(const std::string& dir) {
  test::CommandResult r = test::run_shell(
      "command -v go || { test -x /usr/lib/go/bin/go && echo /usr/lib/go/bin/go; }", dir);
  std::string go = r.out;
  while (!go.empty() && (go.back() == '\n' || go.back() == ' ')) go.pop_back();
  return r.status == 0 ? go : "";
}

#define REQUIRE_GO(dir, go)                                                                    \
  const std::string go = find_go(dir);                                                         \
  if (go.empty())                                                                              \
  GTEST_SKIP() << "go is not installed (Debian's golang-go; scripts/install-deps.sh installs " \
                  "it), so `go tool pprof` cannot check the export"

// `go tool pprof ARGS FILE`, with its scratch files in `dir`.
test::CommandResult pprof(const std::string& go, const std::string& args, const std::string& file,
                          const std::string& dir) {
  return test::run_shell("HOME=" + shell_quote(dir) + " PPROF_TMPDIR=" + shell_quote(dir) +
                             " GOCACHE=" + shell_quote(dir + "/gocache") + " " + shell_quote(go) +
                             " tool pprof " + args + " " + shell_quote(file),
                         dir);
}

test::CommandResult kprof(const std::string& args, const std::string& dir) {
  return test::run_shell(shell_quote(KPROF_BINARY) + " " + args, dir);
}

// One row of `pprof -top`: flat and cum (as pprof prints them) and the name.
struct TopRow {
  std::string flat, cum;
};

// The rows of `pprof -top` output, by function name; `total` from its
// "Showing nodes accounting for X, 100% of TOTAL total" line.
std::map<std::string, TopRow> parse_top(const std::string& text, std::string* total) {
  std::map<std::string, TopRow> rows;
  std::istringstream in(text);
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    const size_t of = line.find("% of ");
    if (line.rfind("Showing nodes accounting for", 0) == 0 && of != std::string::npos) {
      std::istringstream t(line.substr(of + 5));
      t >> *total;
    }
    if (line.find("flat%") != std::string::npos && line.find("cum%") != std::string::npos) {
      table = true;
      continue;
    }
    if (!table) continue;
    std::istringstream f(line);
    std::string flat, flat_pct, sum_pct, cum, cum_pct;
    if (!(f >> flat >> flat_pct >> sum_pct >> cum >> cum_pct)) continue;
    std::string name;
    std::getline(f, name);
    const size_t start = name.find_first_not_of(' ');
    name = start == std::string::npos ? "" : name.substr(start);
    rows[name] = {flat, cum};
  }
  return rows;
}

// `kprof report --csv -` rows: samples per function name (summed over images
// and modes), with "[unknown]" named as the exports name it.
std::map<std::string, uint64_t> report_flat(const std::string& csv) {
  std::map<std::string, uint64_t> flat;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  EXPECT_EQ(line, "samples,percent,image,function,mode\r");
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          field += c;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(field);
    EXPECT_EQ(fields.size(), 5u) << line;
    if (fields.size() != 5) continue;
    const std::string name =
        fields[3] == "[unknown]" ? unknown_function_name(fields[2]) : fields[3];
    flat[name] += std::stoull(fields[0]);
  }
  return flat;
}

// Inclusive samples per function: each stack counts once for every function
// in it (recursion once).
std::map<std::string, uint64_t> inclusive(const Stacks& st) {
  std::map<std::string, uint64_t> cum;
  for (const Stack& s : st.stacks) {
    std::set<std::string> seen;
    for (uint32_t f : s.frames) {
      const Frame& fr = st.frames[f];
      seen.insert(fr.function == "[unknown]" ? unknown_function_name(st.images[fr.image].name)
                                             : fr.function);
    }
    for (const std::string& name : seen) cum[name] += s.samples;
  }
  return cum;
}

// `pprof -raw` output: samples (count, location ids leaf first) and the
// function name of each location.
struct RawProfile {
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> samples;
  std::map<uint64_t, std::string> locations;
};

RawProfile parse_raw(const std::string& text) {
  RawProfile raw;
  std::istringstream in(text);
  std::string section;
  for (std::string line; std::getline(in, line);) {
    if (line == "Samples:" || line == "Locations" || line == "Mappings") {
      section = line;
      continue;
    }
    std::istringstream f(line);
    if (section == "Samples:") {
      // "         50      50000: 1 2 3 4 "
      const size_t colon = line.find(':');
      uint64_t samples = 0, period = 0;
      if (colon == std::string::npos || !(f >> samples >> period)) continue;  // labels, header
      std::istringstream ids(line.substr(colon + 1));
      std::vector<uint64_t> locations;
      for (uint64_t id; ids >> id;) locations.push_back(id);
      raw.samples.push_back({samples, locations});
    } else if (section == "Locations") {
      // "     1: 0x0 M=1 hash_block /usr/bin/bench:0 s=0"
      std::string id, address, mapping, name;
      if (f >> id >> address >> mapping >> name && !id.empty() && id.back() == ':')
        raw.locations[std::stoull(id)] = name;
    }
  }
  return raw;
}

// The function name the exports give frame `f` (names in bench_stacks have
// no spaces).
std::string folded_name(const Stacks& st, uint32_t f) {
  const Frame& fr = st.frames[f];
  return fr.function == "[unknown]" ? unknown_function_name(st.images[fr.image].name) : fr.function;
}

struct Exported {
  std::string profile, pb;
};

// Writes a -g profile of `stacks` (or, without stacks, of `histogram`) and
// exports it with the kprof binary.
Exported export_profile(const std::string& dir, const RunInfo& run,
                        const std::optional<Stacks>& stacks, const Histogram& histogram) {
  Exported e;
  e.profile =
      test::write_profile(dir + "/run.kprof", run, test::sample_summary(), histogram, stacks);
  e.pb = dir + "/run.pb.gz";
  test::CommandResult r = kprof("export " + shell_quote(e.profile) + " --format pprof", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kprof export: wrote pprof of 100 samples (" +
                       std::string(stacks ? "call stacks" : "functions only, no -g") + ") to '" +
                       e.pb + "'\n");
  return e;
}

TEST(PprofGo, RawParsesWithKprofsSampleTypesAndComments) {
  const std::string dir = test::temp_dir("go_raw");
  REQUIRE_GO(dir, go);
  const Stacks st = test::bench_stacks();
  const Exported e = export_profile(dir, test::sample_run(), st, leaf_histogram(st));
  const test::CommandResult r = pprof(go, "-raw", e.pb, dir);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("PeriodType: cycles count\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Period: 1000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Duration: 2s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples/count cycles/count"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel 6.18.0-kprof"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("command: ./bench --iterations 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("comm:[bench]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pid:[1234]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mode:[kernel]"), std::string::npos) << r.out;

  // pprof renumbers locations; the stacks, by function name, must be ours.
  const RawProfile raw = parse_raw(r.out);
  std::multiset<std::pair<uint64_t, std::vector<std::string>>> got, want;
  uint64_t total = 0;
  for (const auto& [samples, ids] : raw.samples) {
    std::vector<std::string> names;
    for (uint64_t id : ids) names.push_back(raw.locations.count(id) ? raw.locations.at(id) : "?");
    got.insert({samples, names});
    total += samples;
  }
  for (const Stack& s : st.stacks) {
    std::vector<std::string> names;
    for (uint32_t f : s.frames) names.push_back(folded_name(st, f));
    want.insert({s.samples, names});
  }
  EXPECT_EQ(got, want) << r.out;
  EXPECT_EQ(total, 100u);
}

TEST(PprofGo, TopAgreesWithKprofReport) {
  const std::string dir = test::temp_dir("go_top");
  REQUIRE_GO(dir, go);
  const Stacks st = test::bench_stacks();
  const Exported e = export_profile(dir, test::sample_run(), st, leaf_histogram(st));

  const test::CommandResult csv = kprof("report --csv - " + shell_quote(e.profile), dir);
  ASSERT_EQ(csv.status, 0) << csv.err;
  const std::map<std::string, uint64_t> expected = report_flat(csv.out);
  ASSERT_EQ(expected.size(), 5u) << csv.out;

  const test::CommandResult top =
      pprof(go, "-top -sample_index=samples -nodecount=1000 -nodefraction=0", e.pb, dir);
  ASSERT_EQ(top.status, 0) << top.err << top.out;
  std::string total;
  const std::map<std::string, TopRow> rows = parse_top(top.out, &total);
  EXPECT_EQ(total, "100") << top.out;
  std::map<std::string, uint64_t> flat;
  for (const auto& [name, row] : rows) {
    if (row.flat != "0") flat[name] = std::stoull(row.flat);
  }
  EXPECT_EQ(flat, expected) << top.out;

  // The event's values (pprof's default sample type): 1000 cycles a sample.
  const test::CommandResult cycles = pprof(go, "-top -nodefraction=0", e.pb, dir);
  ASSERT_EQ(cycles.status, 0) << cycles.err;
  const std::map<std::string, TopRow> by_cycles = parse_top(cycles.out, &total);
  EXPECT_EQ(total, "100000") << cycles.out;
  ASSERT_TRUE(by_cycles.count("hash_block")) << cycles.out;
  EXPECT_EQ(by_cycles.at("hash_block").flat, "55000") << cycles.out;
}

TEST(PprofGo, CumulativeCountsAreInclusive) {
  const std::string dir = test::temp_dir("go_cum");
  REQUIRE_GO(dir, go);
  const Stacks st = test::bench_stacks();
  const Exported e = export_profile(dir, test::sample_run(), st, leaf_histogram(st));
  const test::CommandResult top =
      pprof(go, "-top -cum -sample_index=samples -nodecount=1000 -nodefraction=0", e.pb, dir);
  ASSERT_EQ(top.status, 0) << top.err << top.out;
  std::string total;
  const std::map<std::string, TopRow> rows = parse_top(top.out, &total);
  EXPECT_EQ(total, "100");
  std::map<std::string, uint64_t> cum;
  for (const auto& [name, row] : rows) cum[name] = std::stoull(row.cum);
  const std::map<std::string, uint64_t> expected = inclusive(st);
  EXPECT_EQ(cum, expected) << top.out;
  EXPECT_EQ(expected.at("__libc_start_main"), 100u);
  EXPECT_EQ(expected.at("recurse"), 12u);  // three levels, counted once
}

TEST(PprofGo, CpuClockProfileIsInNanoseconds) {
  const std::string dir = test::temp_dir("go_cpu_clock");
  REQUIRE_GO(dir, go);
  RunInfo run = test::sample_run();
  run.event.name = "cpu-clock";
  run.event.rate = 1000;  // Hz: 1 ms a sample
  Stacks st = test::bench_stacks();
  for (Stack& s : st.stacks) s.period = s.samples * 1000000;
  const Exported e = export_profile(dir, run, st, leaf_histogram(st));
  const test::CommandResult raw = pprof(go, "-raw", e.pb, dir);
  ASSERT_EQ(raw.status, 0) << raw.err;
  EXPECT_NE(raw.out.find("PeriodType: cpu nanoseconds\n"), std::string::npos) << raw.out;
  EXPECT_NE(raw.out.find("Period: 1000000\n"), std::string::npos) << raw.out;
  const test::CommandResult top = pprof(go, "-top -nodefraction=0", e.pb, dir);
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_NE(top.out.find("Type: cpu\n"), std::string::npos) << top.out;
  std::string total;
  const std::map<std::string, TopRow> rows = parse_top(top.out, &total);
  EXPECT_EQ(total, "100ms") << top.out;  // 100 samples of 1 ms
  ASSERT_TRUE(rows.count("hash_block")) << top.out;
  EXPECT_EQ(rows.at("hash_block").flat, "55ms");
}

TEST(PprofGo, ProfileWithoutCallStacks) {
  const std::string dir = test::temp_dir("go_flat");
  REQUIRE_GO(dir, go);
  const Histogram h = leaf_histogram(test::bench_stacks());
  const Exported e = export_profile(dir, test::sample_run(), std::nullopt, h);
  const test::CommandResult csv = kprof("report --csv - " + shell_quote(e.profile), dir);
  ASSERT_EQ(csv.status, 0) << csv.err;
  const test::CommandResult top =
      pprof(go, "-top -sample_index=samples -nodecount=1000 -nodefraction=0", e.pb, dir);
  ASSERT_EQ(top.status, 0) << top.err << top.out;
  std::string total;
  const std::map<std::string, TopRow> rows = parse_top(top.out, &total);
  EXPECT_EQ(total, "100");
  std::map<std::string, uint64_t> flat, cum;
  for (const auto& [name, row] : rows) {
    flat[name] = std::stoull(row.flat);
    cum[name] = std::stoull(row.cum);
  }
  EXPECT_EQ(flat, report_flat(csv.out)) << top.out;
  EXPECT_EQ(cum, flat);  // one-frame stacks: nothing is inclusive of anything else
}

}  // namespace
}  // namespace kprof
