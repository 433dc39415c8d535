// listing_profile (import.h): a parsed opreport / perf report listing as a
// Profile: what it lists, no run facts.
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
  if (listing.has_counts) {
    Summary sm;
    sm.samples = listing.total.value_or(listing.histogram.total_samples());
    sm.stop_reason = "listing";
    p.summary = sm;
  }
  // A top-N listing leaves rows out: what they held is one row, so every
  // share stays a share of the whole recording (as listed), not of the rows.
  const uint64_t whole = listing.has_counts ? listing.total.value_or(0) : 1000000;
  const uint64_t listed = listing.histogram.total_samples();
  if (whole > listed) {
    Histogram& h = listing.histogram;
    h.images.push_back({"[not listed]", ""});
    h.rows.push_back({static_cast<uint32_t>(h.images.size() - 1), "[not listed]", Mode::Unknown,
                      whole - listed, 0});
  }
  p.histogram = std::move(listing.histogram);
  p.status.complete = true;
  return p;
}

}  // namespace kprof::importer
