#!/usr/bin/env python3
"""The floor part of bench/verdicts.sh (issue 22: "changes at 1.25x the
printed floor found at least 80% of the time, at 0.5x at most 20%"),
python3 standard library only; bench/verdicts.py calls it.

  plan: --plan --floor-at (kprof_cold's mean share) on pilot A/A comparisons
      of a base pool; the COLD_FACTORs that move kprof_cold by 1.25x and 0.5x
      the pilots' median floor (the pools bench/verdicts.sh then records);
  floor_section: each such change compared with the base pool, judged three
      ways: against the first pilots' floor (as planned), against the floor
      of pilots from the pool it is compared with (made in turns with the
      targets, so in the same conditions), and against each comparison's own
      floor (`kprof diff --plan` of that very comparison: the floor a user
      reads beside the verdict), where the changes' multiples scatter about
      the planned ones; the found rate near 1.25x and 0.5x and overall against
      the floor's own power curve.
"""
import json
import math
import os
import random
import statistics
import sys

from verdicts_common import (ab_comparisons, aa_comparisons, mean_share, planted_section,
                             pool, pool_line, rate, reuse_note, run_plan)

ROW_FDR = 0.05  # the diff's false discovery rate


def predicted_rate(mult, tested):
    """How often a change of `mult` times the printed floor is found, by the
    floor's own (normal) power curve (report/detect.h): with z_a the two-sided
    quantile of the row level FDR / m (m the rows tested, but 1 for two rows:
    each the other's mirror) and z = z(0.8) = 0.84, the change found 80% of the
    time is (z_a + z) SE, the one found 20% (z_a - z) SE, and the floor their
    geometric middle times sqrt(1.6); a change of m floors is found when
    Z > z_a - m floor / SE. At 2 rows tested (z_a = 1.96) both promises hold
    just: 80% at 1.25x, 20% at 0.5x."""
    nd = statistics.NormalDist()
    family = 1 if tested == 2 else tested
    z_a = nd.inv_cdf(1 - ROW_FDR / family / 2)
    z = nd.inv_cdf(0.8)
    floor = math.sqrt(1.6 * (z_a + z) * max(z_a - z, 0.0))
    return 1 - nd.cdf(z_a - mult * floor)

# ---------------------------------------------------------------- plan

def factor_for(base_factor, base_share, target_share, program_share):
    """COLD_FACTOR that moves kprof_cold from base_share to target_share (%)
    where the hot-cold program holds program_share (%) of the samples (~100
    alone, less beside the compile loop): kprof_cold's samples over
    kprof_hot's scale with the factor (odds within the program)."""
    if not 0 < target_share < program_share:
        return None
    odds = lambda s: s / (program_share - s)
    return base_factor * odds(target_share) / odds(base_share)


def pilot_floors(kprof, files, k, pilots, share, rng):
    """The floors `kprof diff --plan --floor-at SHARE` prints over PILOTS
    disjoint (where the pool allows) k vs k A/A comparisons of `files`:
    (floors, rows tested, the share printed nearest SHARE, text lines)."""
    comps = aa_comparisons(files, k, pilots, rng)
    comps = [c for c in comps if c[2] == 0] or comps  # disjoint where the pool allows
    got, tested_rows, lines = [], [], []
    at = None
    for a, b, _ in comps:
        text, floors, tested = run_plan(kprof, a, b, share)
        if tested:
            tested_rows.append(tested)
        if not floors:
            sys.exit("verdicts.py: no floor in --plan output:\n" + text)
        at = min(floors, key=lambda s: abs(s - share))
        got.append(floors[at])
        printed = "   ".join("%g%%: %s" % (s, "beyond reach" if math.isinf(v) else
                                             "±%g pp" % v) for s, v in sorted(floors.items()))
        lines.append("  %dv%d pilot (%d rows tested): %s" % (k, k, tested or 0, printed))
    return got, tested_rows, at, lines


def cmd_plan(kprof, work, base_pool, base_factor, pilots, floor_set="fl"):
    base_factor, pilots = float(base_factor), int(pilots)
    files = pool(work, base_pool)
    base_share = mean_share(kprof, files)
    program_share = base_share + mean_share(kprof, files, "hot")
    rng = random.Random(22)
    lines = ["pilots: A/A comparisons of pool %s (COLD_FACTOR %g, %d recordings, kprof_cold "
             "mean share %.2f%%); the floor --plan --floor-at prints for that share" %
             (base_pool, base_factor, len(files), base_share)]
    result = {"base_share": base_share, "base_factor": base_factor, "base_pool": base_pool,
              "kinds": {}}
    factors = {}
    for k in (1, 3):
        got, tested_rows, at, text = pilot_floors(kprof, files, k, pilots, base_share, rng)
        lines += text
        finite = [g for g in got if math.isfinite(g)]
        floor = statistics.median(got) if got else math.inf
        kind = {"pilots": len(got), "share_at": at, "floor": floor, "floors": got,
                "tested": statistics.median(tested_rows) if tested_rows else None}
        lines.append("  %dv%d floor for a %g%% row: median %s over %d pilots%s" % (
            k, k, at or 0, "beyond reach" if math.isinf(floor) else "±%.2f pp" % floor, len(got),
            "" if len(finite) == len(got) else " (%d beyond reach)" % (len(got) - len(finite))))
        if math.isfinite(floor):
            for tag, mult in (("hi", 1.25), ("lo", 0.5)):
                f = factor_for(base_factor, base_share, base_share + mult * floor, program_share)
                if f is not None:
                    factors["%d%s" % (k, tag)] = f
                    kind[tag] = {"mult": mult, "target_delta": mult * floor, "factor": f}
                    lines.append("    %.2fx the floor = +%.2f pp -> COLD_FACTOR %.3f" %
                                 (mult, mult * floor, f))
                else:
                    lines.append("    %.2fx the floor = +%.2f pp: no share can do that" %
                                 (mult, mult * floor))
        result["kinds"][str(k)] = kind
    result["text"] = lines
    with open(os.path.join(work, "floor-%s.json" % floor_set), "w") as f:
        json.dump(result, f, indent=1)
    for name, f in sorted(factors.items()):
        print("%s=%.4f" % (name, f))


def own_floors(kprof, outcomes, true, share):
    """(true / F, found, rows tested) for each comparison (a, b, found), F the
    floor its own `kprof diff A -- B --plan --floor-at SHARE` prints (the
    floor a user reads beside the verdict; the change itself does not enter
    it: a side's spread is measured within it)."""
    judged = []
    for a, b, found in outcomes:
        text, floors, tested = run_plan(kprof, a, b, share)
        if not floors or tested is None:
            sys.exit("verdicts_floor.py: no floor in --plan output:\n" + text)
        floor = floors[min(floors, key=lambda s: abs(s - share))]
        judged.append((true / floor if floor > 0 else math.inf, found, tested))
    return judged


NEAR = {"1.25x": (1.1, 1.4), "0.5x": (0.4, 0.6)}  # bands about the two promises


def own_floor_lines(out, label, judged):
    """How often changes were found at each multiple of their comparison's own
    floor: the issue's two promises (at 1.25x or more >= 80%, at 0.5x or less
    <= 20%), the bands about 1.25x and 0.5x, and found against the floor's
    curve over all (observed - expected in SDs of the binomial sum)."""
    if not judged:
        return
    mults = sorted(m for m, _, _ in judged)

    def count(sel):
        got = [(m, f, t) for m, f, t in judged if sel(m)]
        curve = statistics.fmean(predicted_rate(m, t) for m, _, t in got) if got else math.nan
        return "%s, the curve %.0f%%" % (rate(sum(f for _, f, _ in got), len(got)), 100 * curve)

    out("    %s, each change against its comparison's own floor (%d comparisons; multiples "
        "%.2f-%.2fx, median %.2fx):" % (label, len(judged), mults[0], mults[-1],
                                         statistics.median(mults)))
    out("      at >= 1.25x found in %s" % count(lambda m: m >= 1.25))
    out("      at <= 0.5x found in %s" % count(lambda m: m <= 0.5))
    for name, (lo, hi) in NEAR.items():
        out("      near %s (%.2f-%.2fx) found in %s" % (name, lo, hi, count(lambda m: lo <= m <= hi)))
    expect = [predicted_rate(m, t) for m, _, t in judged]
    sd = math.sqrt(sum(p * (1 - p) for p in expect))
    got = sum(f for _, f, _ in judged)
    out("      all: found %d where the curve expects %.1f (%+.1f SD)" % (
        got, sum(expect), (got - sum(expect)) / sd if sd else 0.0))


def floor_section(out, kprof, work, n, rng, coverage, seen):
    # 3. floor
    out()
    out("== 3. floor prediction: found >= 80% at 1.25x the printed floor, <= 20% at 0.5x "
        "(the issue's goal; the floor's own curve gives each multiple's rate below)")
    everything = []
    for floor_set, what in (("fl", "hot-cold alone (2 rows tested)"),
                            ("cfl", "hot-cold beside the compile loop (many rows tested)")):
        fl_path = os.path.join(work, "floor-%s.json" % floor_set)
        if not os.path.exists(fl_path):
            out("  %s: no %s (the plan step did not run)" % (what, os.path.basename(fl_path)))
            continue
        with open(fl_path) as f:
            fl = json.load(f)
        out("  -- %s" % what)
        for line in fl["text"]:
            out("  " + line)
        # The pool made in turns with the targets, where there is one.
        base_name = fl["base_pool"]
        if pool(work, base_name + "b"):
            out(pool_line(kprof, base_name, pool(work, base_name), fl["base_factor"]) +
                " (the pilots')")
            base_name += "b"
        base = pool(work, base_name)
        base_share = mean_share(kprof, base)
        out(pool_line(kprof, base_name, base, fl["base_factor"]))
        out("  (the comparisons below pair %s with each target pool)" % base_name)
        for k in (1, 3):
            judged = []  # (the change over the comparison's own floor, found, rows tested)
            kind = fl["kinds"].get(str(k), {})
            # The floor of pilots from the pool compared, made in turns with
            # the targets: the conditions the comparisons ran in (the first
            # pilots' pool came minutes earlier, and the VM's noise drifts).
            turn_floor = None
            if base_name != fl["base_pool"] and kind.get("pilots"):
                got, _, _, _ = pilot_floors(kprof, base, k, kind["pilots"], base_share,
                                            random.Random(22))
                turn_floor = statistics.median(got) if got else None
                if turn_floor is not None:
                    out("  %dv%d floor of %d pilots from %s (made in turns with the targets): %s" %
                        (k, k, len(got), base_name, "beyond reach" if math.isinf(turn_floor)
                         else "±%.2f pp" % turn_floor))
            for tag in ("hi", "lo"):
                if tag not in kind:
                    continue
                name = "%s%d%s" % (floor_set, k, tag)
                files = pool(work, name)
                if not files:
                    continue
                true = mean_share(kprof, files) - base_share
                floor = kind["floor"]
                out(pool_line(kprof, name, files, kind[tag]["factor"]))
                out("    %dv%d at %.2fx the floor (aimed +%.2f pp): true Δ %+.3f pp = %.2fx the "
                    "floor" % (k, k, kind[tag]["mult"], kind[tag]["target_delta"], true,
                               true / floor))
                if kind.get("tested"):
                    out("    the floor's own power curve predicts %.0f%% at %.2fx (normal, %g rows "
                        "tested; %.0f%% at 0.5x, %.0f%% at 1.25x)" % (
                            100 * predicted_rate(true / floor, kind["tested"]), true / floor,
                            kind["tested"], 100 * predicted_rate(0.5, kind["tested"]),
                            100 * predicted_rate(1.25, kind["tested"])))
                if turn_floor and math.isfinite(turn_floor) and kind.get("tested"):
                    out("    against the in-turn pilots' floor: %.2fx, where the curve predicts "
                        "%.0f%%" % (true / turn_floor,
                                    100 * predicted_rate(true / turn_floor, kind["tested"])))
                comps = ab_comparisons(base, files, k, n, rng)
                outcomes = []
                planted_section(out, kprof, "%s %.2fx" % (floor_set, kind[tag]["mult"]), comps,
                                true, coverage, seen, outcomes=outcomes)
                out("      %s" % reuse_note(comps, len(base) + len(files)))
                judged += own_floors(kprof, outcomes, true, base_share)
            own_floor_lines(out, "%s %dv%d" % (floor_set, k, k), judged)
            everything += judged
    if everything:
        out("  -- every floor comparison above, against its own floor:")
        own_floor_lines(out, "all", everything)
