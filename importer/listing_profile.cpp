// listing_profile (import.h): a parsed opreport / perf report listing as a
// Profile: what it lists, no run facts.
#include <algorithm>
#include <cmath>

#include "core/file_layout.h"
#include "importer/import.h"

namespace kprof::importer {

Profile listing_profile(TableListing listing, const std::string& name) {
  Profile p;
  p.path = name;
  RunInfo& run = p.run;
  run.format_version = kFormatVersion;
  run.source_format = listing.format;
  run.sample_counts = listing.has_counts;
  run.event.name = listing.event;
  if (listing.period) {
    run.event.use_freq = false;
    run.event.rate = *listing.period;
  }
  run.cpu_model = listing.cpu;
  run.target = "a pasted " + listing.format + " listing";
  run.notices.push_back("a " + listing.format + " listing: " +
                        (listing.has_counts
                             ? std::string("sample counts as listed")
                             : std::string("shares only (no sample counts: no noise verdicts)")) +
                        "; no run facts");
  for (const std::string& n : listing.notes) run.notices.push_back(n);
  // A top-N listing leaves rows out: what they held is one row, so every
  // share stays a share of the whole recording (as listed), not of the rows.
  const uint64_t listed = listing.histogram.total_samples();
  const size_t rows = listing.histogram.rows.size();
  uint64_t whole = listing.has_counts ? listing.total.value_or(0) : 1000000;
  // Counts and shares but no total: the shares say what the counts are of
  // (a 4-decimal share is off by at most half a millionth, so a sum short of
  // 100% by more than a millionth a row is a cut list).
  if (listing.has_counts && !listing.total && listing.listed_share > 0 &&
      listing.listed_share + rows < 1000000) {
    const double w = static_cast<double>(listed) * 1e6 / static_cast<double>(listing.listed_share);
    if (w < 9e18) whole = static_cast<uint64_t>(std::llround(w));  // else: no total (bad input)
  }
  if (listing.has_counts) {
    Summary sm;
    sm.samples = std::max(whole, listed);
    sm.stop_reason = "listing";
    p.summary = sm;
  }
  if (whole > listed) {
    Histogram& h = listing.histogram;
    h.images.push_back({kNotListed, ""});
    h.rows.push_back(
        {static_cast<uint32_t>(h.images.size() - 1), kNotListed, Mode::Unknown, whole - listed, 0});
  }
  p.histogram = std::move(listing.histogram);
  p.status.complete = true;
  return p;
}

}  // namespace kprof::importer
