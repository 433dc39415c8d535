// Whether a share or a rate changed between two sides, from plain numbers:
// counts, per-run values, levels. Pure functions, no I/O; nothing here knows
// what a profile is (report/diff_rows.cpp pulls the numbers out of its rows).
//
// Shares (a proportion: k of n draws fell in the row):
// - one run per side, sampling statistics only. Each draw is "in the row or
//   not", so the share is a binomial proportion; the interval on the
//   difference is Newcombe's hybrid score interval, method 10 of Newcombe
//   (1998), "Interval estimation for the difference between independent
//   proportions: comparison of eleven methods", Statistics in Medicine
//   17:873-890, built from two Wilson (1927) score intervals (Wilson,
//   "Probable inference, the law of succession, and statistical inference",
//   JASA 22:209-212). The p-value is the level at which that interval first
//   includes 0, so the two always agree, even for a handful of draws. This
//   ignores run-to-run variation (placement, frequency, cache luck), which
//   is usually larger: the verdict says so.
// - two or more runs per side, run-to-run variance, with rows enough to fit
//   how one run's share spreads (stats/power.h's RunSpread): the moderated
//   t (moderated_change; Smyth 2004, Stat. Appl. Genet. Mol. Biol. 3:3),
//   each row's pooled within-side variance shrunk toward that fit, with the
//   prior's degrees of freedom added. Not held to binomial sampling: timer
//   samples spread less than binomial, and the fit measures how much.
// - the same with too few rows to fit: Welch's t on the per-run values
//   (Welch 1947, Biometrika 34:28-35) with the Welch–Satterthwaite degrees
//   of freedom (Satterthwaite 1946, Biometrics Bulletin 2:110-114), held to
//   the pooled counts' sampling statistics too: the larger p of the two — an
//   intersection–union test (Berger 1982, Technometrics 24:295-300) — and an
//   interval holding both, so interval and verdict still agree.
// - one run per side whose runs know their own spread (per-slice counts,
//   stats/dispersion.h): dispersed_change, Newcombe on the counts divided by
//   their dispersion (ShareSample::dispersion).
// Rates (events per unit of exposure, e.g. per unit of work):
// - one run per side: given the k1 + k2 events, k2 is binomial with
//   pi0 = w2 / (w1 + w2) when both sides have the same rate (the conditional
//   test of Przyborowski & Wileński 1940, Biometrika 31:313-323). The score
//   test's z gives p; the Wilson interval on pi (its inversion, so the two
//   agree) mapped to the rate ratio pi / (1 - pi) * w1 / w2 gives the
//   interval (the score interval of Graham, Mengersen & Morton 2003,
//   Statistics in Medicine 22:2071-2083).
// - two or more runs per side: Welch on the per-run rates, held to the
//   pooled counts' rate ratio as shares are.
// Across many rows, Benjamini–Hochberg and the false coverage-rate level:
// stats/fdr.h. Normal and t quantiles: stats/distributions.h (Boost.Math).
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "stats/moderation.h"

namespace kprof::stats {

// How a comparison is judged. None: the shares come without counts (a
// listing of percentages): nothing says how noisy they are, so no verdict.
enum class NoiseMethod { Sampling, RunVariance, None };
const char* noise_method_name(NoiseMethod m);  // "sampling", "run-variance", "none"

// A change with its (1 - alpha) interval and two-sided p-value, in
// percentage points for shares (new% - base%), in % of the base's rate for
// rates.
struct Change {
  double delta_pp = 0;
  double lo_pp = 0, hi_pp = 0;
  double p = 1;
};

// The same quantity on the two sides of a comparison: the base, and the
// side compared with it (`next`: "new" is a keyword). Changes are next - base.
template <class T>
struct Sides {
  T base{};
  T next{};
};

// k of n draws fell in the row.
struct Binomial {
  uint64_t k = 0;
  uint64_t n = 0;
};

// Newcombe's interval (method 10) and its p-value on next - base, in pp. A
// side with n = 0 gives an infinite interval and p = 1.
Change sampling_change(const Sides<Binomial>& counts, double alpha = 0.05);

// Welch on per-run values (each side needs >= 2, else an infinite interval
// and p = 1; an empty side gives a zero change, p = 1). Identical runs (zero
// variance) give a zero-width interval and p = 0 or 1. In the values' units.
Change welch_change(const Sides<std::span<const double>>& runs, double alpha = 0.05);

// Newcombe on effective counts: each side's k and n divided by that side's
// dispersion (a count's variance against binomial: below 1 for timer
// samples that spread less than binomial, above for bursts), as Kish's
// design effect does for a clustered sample (Kish 1965, Survey Sampling,
// section 8.2). The point change is the counts' own. A dispersion measured
// with `df` degrees of freedom is itself uncertain: the score statistic is
// then referred to Student's t with df degrees of freedom, not the normal,
// as quasi-likelihood tests with an estimated dispersion are (McCullagh &
// Nelder 1989, section 9.3.1); +inf: the dispersion is taken as known.
Change dispersed_change(const Sides<Binomial>& counts, const Sides<double>& dispersion,
                        double alpha = 0.05, double df = std::numeric_limits<double>::infinity());

// The moderated t on per-run values (stats/moderation.h): the runs' pooled
// within-side variance (df r1 + r2 - 2) shrunk toward `trend` (one run's
// expected variance at this row, before the prior's scale, in the values'
// units squared) by `prior`; Student's t with df + d0 degrees of freedom
// (normal for an infinite d0). Each side needs >= 1 run and the two >= 3
// (else an infinite interval and p = 1, unless the prior alone gives the
// variance).
Change moderated_change(const Sides<std::span<const double>>& runs, double trend,
                        const VariancePrior& prior, double alpha = 0.05);

// One side of a share's comparison.
struct ShareSample {
  double pct = 0;                   // the mean of the runs' shares, in %
  std::span<const double> run_pct;  // each run's share, in %
  Binomial pooled;                  // counts summed over the runs
  // The pooled count's variance against binomial's, as measured over the
  // runs' time slices (stats/dispersion.h); 1 when not measured. Its
  // degrees of freedom (dispersed_change): +inf when not measured, or taken
  // as binomial's.
  double dispersion = 1;
  double dispersion_df = std::numeric_limits<double>::infinity();
};

// The change of a share at level 1 - alpha by `method`: Newcombe on the
// pooled counts, divided by their dispersion (dispersed_change: Sampling);
// Welch on the runs held to that (RunVariance); the point change with an
// infinite interval and p = 1 (None).
Change share_change(const Sides<ShareSample>& s, NoiseMethod method, double alpha);

// `events` over `exposure` (> 0).
struct Rate {
  uint64_t events = 0;
  double exposure = 0;
};

// next's rate over base's with the score interval and p. No events, or a
// side without exposure: ratio 1, interval [0, inf), p = 1. No base events:
// an infinite ratio (the interval is still finite below).
struct RateRatio {
  double ratio = 1, lo = 0, hi = std::numeric_limits<double>::infinity(), p = 1;
};
RateRatio rate_ratio(const Sides<Rate>& rates, double alpha);

// One side of a rate's comparison.
struct RateSample {
  double mean = 0;                   // the mean of the runs' rates (> 0 on the base)
  std::span<const double> run_rate;  // each run's rate
  Rate pooled;                       // events and exposure summed over the runs
};

// The change of a rate in % of the base's mean, at level 1 - alpha.
// Sampling: the pooled counts' rate ratio, its interval moved onto the
// means' ratio (what a count stands for barely varies within a row);
// RunVariance: Welch on the runs (in % of the base's mean) held to that;
// None: the point change, an infinite interval, p = 1.
Change rate_change(const Sides<RateSample>& s, NoiseMethod method, double alpha);

}  // namespace kprof::stats
