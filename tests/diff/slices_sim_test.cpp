// One run a side, judged by each run's own spread over its time slices
// (stats/dispersion.h, report/diff_rows.h moderate_dispersions), on
// simulated recordings like real timer-sampled ones:
// - a few large rows sampled systematically (each slice's count spreads
//   0.15x as much as binomial's, as a timer at fixed intervals gives: 165
//   one-second recordings of a 30% row spread by SD 0.24 pp, binomial 0.65);
// - three kernel rows that come in bursts (interrupt-disabled stretches
//   charged at one enable point: a slice now and then holds ten samples of
//   a row that otherwise has a few in the whole run);
// - a tail of 4,000 rows of well under a sample each per run.
// Slices are drawn independently, so one run's spread over its slices is
// what its totals would show over many runs: the premise of batch means,
// which bench/verdicts.sh checks on real recordings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sstream>

#include "export/tables.h"
#include "report/detect.h"
#include "report/diff.h"
#include "tests/diff/diff_support.h"
#include "tests/diff/draws.h"

namespace kprof {
namespace {

using difftest::any_flagged;
using difftest::Draws;
using difftest::Entry;

constexpr size_t kSlices = 32;
constexpr uint32_t kPerSlice = 40;  // ~1,280 samples a run: one second at 999 Hz
constexpr size_t kTail = 4000;
constexpr double kSteady[] = {0.30, 0.20, 0.10, 0.05};
constexpr size_t kBursty = 3;
constexpr double kBurstBase = 0.1, kBurstChance = 0.08, kBurstSize = 10;

struct Model {
  double first_share = kSteady[0];  // the 30% row's share (a planted change moves it)
};

DiffRun draw_run(const Model& m, Draws& d, bool with_slices) {
  std::vector<Entry> entries;
  std::vector<std::vector<uint32_t>> slices;
  auto row = [&](std::string image, std::string fn, Mode mode) {
    entries.push_back({std::move(image), std::move(fn), mode, 0});
    slices.emplace_back(kSlices, 0);
  };
  for (size_t i = 0; i < std::size(kSteady); ++i) {
    row("/usr/bin/app", "steady_" + std::to_string(i), Mode::User);
  }
  for (size_t i = 0; i < kBursty; ++i) row("[kernel]", "burst_" + std::to_string(i), Mode::Kernel);
  for (size_t i = 0; i < kTail; ++i) row("[kernel]", "tail_" + std::to_string(i), Mode::Kernel);
  // Slices of equal sample count, as the recorder cuts them: the steady and
  // bursty rows' counts first, the tail's the rest, each of those samples
  // in a tail row drawn uniformly.
  for (size_t j = 0; j < kSlices; ++j) {
    uint32_t used = 0;
    for (size_t i = 0; i < std::size(kSteady); ++i) {
      // Systematic sampling: 0.15x binomial's variance per slice.
      const double p = i == 0 ? m.first_share : kSteady[i];
      const double expect = kPerSlice * p;
      const double k = std::round(expect + std::sqrt(0.15 * expect * (1 - p)) * d.normal());
      slices[i][j] = static_cast<uint32_t>(std::max(0.0, k));
      used += slices[i][j];
    }
    for (size_t i = 0; i < kBursty; ++i) {
      uint64_t k = d.poisson(kBurstBase);
      if (d.uniform() < kBurstChance) k += d.poisson(kBurstSize);
      slices[std::size(kSteady) + i][j] = static_cast<uint32_t>(k);
      used += static_cast<uint32_t>(k);
    }
    for (uint32_t t = used; t < kPerSlice; ++t) {
      ++slices[std::size(kSteady) + kBursty + d.between(0, kTail - 1)][j];
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    for (uint32_t k : slices[i]) entries[i].samples += k;
  }
  // Rows without samples are not rows.
  std::vector<Entry> kept;
  std::vector<std::vector<uint32_t>> kept_slices;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].samples == 0) continue;
    kept.push_back(entries[i]);
    kept_slices.push_back(slices[i]);
  }
  DiffRun run = difftest::make_run("6.1.0", kept);
  if (with_slices) {
    for (size_t i = 0; i < kept.size(); ++i) run.histogram.rows[i].slices = kept_slices[i];
  }
  return run;
}

DiffResult diff_of(const Model& base, const Model& next, Draws& d, bool with_slices) {
  DiffInput in;
  in.sides = {{"base", {draw_run(base, d, with_slices)}},
              {"new", {draw_run(next, d, with_slices)}}};
  return diff_profiles(in);
}

const DiffRow* row_named(const DiffResult& r, const std::string& name) {
  for (const DiffRow& row : r.rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

TEST(SliceSim, AAOneVsOneStaysWithinTheFalseDiscoveryRateWhereBinomialCountsDoNot) {
  constexpr int kComparisons = 200;
  Draws d(22);
  int flagged = 0, flagged_binomial = 0, burst_flagged_binomial = 0;
  double dispersion = 0;
  size_t rows = 0;
  for (int i = 0; i < kComparisons; ++i) {
    const DiffResult r = diff_of({}, {}, d, true);
    flagged += any_flagged(r);
    ASSERT_EQ(r.noise[1], NoiseMethod::Sampling);
    ASSERT_EQ(r.slice_dispersion.size(), 2u);
    dispersion += r.slice_dispersion[1];
    rows += r.rows.size();
    const DiffResult b = diff_of({}, {}, d, false);
    EXPECT_EQ(b.slice_dispersion[1], 0.0);
    flagged_binomial += any_flagged(b);
    for (size_t k = 0; k < kBursty; ++k) {
      const DiffRow* burst = row_named(b, "burst_" + std::to_string(k));
      burst_flagged_binomial += burst && !burst->vs_base[1].within_noise;
    }
  }
  std::printf(
      "A/A 1v1 over %d comparisons (%zu rows a diff on average): some row flagged %d "
      "with slices, %d as binomial counts (bursty rows %d); mean level %.3g\n",
      kComparisons, rows / kComparisons, flagged, flagged_binomial, burst_flagged_binomial,
      dispersion / kComparisons);
  // FDR 5% under the complete null is a 5% chance of any flag: 10 of 200
  // expected; 18 is beyond its 99% upper bound.
  EXPECT_LE(flagged, 18);
  // Binomial counts flag the bursts far more often: the slices are what
  // keeps them quiet.
  EXPECT_GE(flagged_binomial, 2 * flagged + 10);
}

TEST(SliceSim, OneVsOneFindsASmallChangeOfASteadyRowThatBinomialCountsMiss) {
  constexpr int kComparisons = 100;
  Draws d(23);
  const Model base, next{kSteady[0] + 0.025};  // +2.5 pp
  int found = 0, found_binomial = 0, covered = 0;
  for (int i = 0; i < kComparisons; ++i) {
    const DiffResult r = diff_of(base, next, d, true);
    const DiffRow* row = row_named(r, "steady_0");
    ASSERT_NE(row, nullptr);
    const DiffCompare& c = row->vs_base[1];
    found += !c.within_noise && c.change.delta_pp > 0;
    covered += c.change.lo_pp <= 2.5 && 2.5 <= c.change.hi_pp;
    const DiffResult b = diff_of(base, next, d, false);
    const DiffRow* brow = row_named(b, "steady_0");
    ASSERT_NE(brow, nullptr);
    found_binomial += !brow->vs_base[1].within_noise && brow->vs_base[1].change.delta_pp > 0;
  }
  std::printf(
      "+2.5 pp on a 30%% row, 1v1, %d comparisons: found %d with slices, %d as binomial "
      "counts; interval held the change %d times\n",
      kComparisons, found, found_binomial, covered);
  EXPECT_GE(found, 60);
  EXPECT_LE(found_binomial, 40);
  EXPECT_GE(covered, 95);
}

TEST(SliceSim, TheOneRunFloorCountsSamplesOverTheirDispersion) {
  Draws d(24);
  DiffInput in;
  in.sides = {{"base", {draw_run({}, d, true)}}, {"new", {draw_run({}, d, true)}}};
  const DiffResult r = diff_profiles(in);
  const std::vector<DetectFloor> sliced = detectability(in, r);
  for (auto& side : in.sides) {
    for (auto& row : side.runs[0].histogram.rows) row.slices.clear();
  }
  const std::vector<DetectFloor> plain = detectability(in, diff_profiles(in));
  ASSERT_EQ(sliced.size(), 1u);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_GT(sliced[0].dispersion, 0);
  EXPECT_LT(sliced[0].dispersion, 1);
  EXPECT_EQ(plain[0].dispersion, 0);
  // The 20% row: less spread, a lower floor.
  EXPECT_LT(sliced[0].at[2].floor_pp, plain[0].at[2].floor_pp);
}

// What the text and JSON say of it.
TEST(SliceSim, TheNoiseLineAndTheJsonSayTheCountsWereMeasured) {
  Draws d(25);
  DiffInput in;
  in.sides = {{"base", {draw_run({}, d, true)}}, {"new", {draw_run({}, d, true)}}};
  const DiffResult r = diff_profiles(in);
  const std::string line = diff_noise_line(r, 1);
  EXPECT_NE(line.find("time slices"), std::string::npos) << line;
  EXPECT_EQ(line.find("SAMPLING STATISTICS ONLY"), std::string::npos) << line;
  std::ostringstream json_out;
  write_diff_json(json_out, r);
  const auto j = nlohmann::json::parse(json_out.str());
  ASSERT_TRUE(j["profiles"][1]["slice_dispersion"].is_number());
  EXPECT_LT(j["profiles"][1]["slice_dispersion"].get<double>(), 1);
  EXPECT_TRUE(j["rows"][0]["sides"][1]["dispersion"].is_number());
  // Without slices: as before, and said so.
  for (auto& side : in.sides) {
    for (auto& row : side.runs[0].histogram.rows) row.slices.clear();
  }
  const DiffResult plain = diff_profiles(in);
  EXPECT_NE(diff_noise_line(plain, 1).find("SAMPLING STATISTICS ONLY"), std::string::npos);
  std::ostringstream plain_json;
  write_diff_json(plain_json, plain);
  EXPECT_TRUE(nlohmann::json::parse(plain_json.str())["profiles"][1]["slice_dispersion"].is_null());
}

}  // namespace
}  // namespace kprof
