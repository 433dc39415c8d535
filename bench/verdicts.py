#!/usr/bin/env python3
"""Parsing and statistics for bench/verdicts.sh (python3 standard library only).

  verdicts.py shares KPROF POOL_DIR
      the mean share of kprof_cold over the pool's recordings (kprof report --csv)
  verdicts.py plan KPROF WORK BASE_POOL BASE_FACTOR PILOTS [SET]
      --plan --floor-at (kprof_cold's mean share) on PILOTS disjoint A/A
      pilot comparisons (1 vs 1 and 3 vs 3) of BASE_POOL; writes
      WORK/floor-SET.json (SET: fl, the default, or cfl; the text, the floors
      and the COLD_FACTORs that make kprof_cold's share change 1.25x and 0.5x
      the median printed floor); prints the four factors as NAME=FACTOR lines
  verdicts.py analyse KPROF WORK COMPARISONS SEED
      every comparison of the run; the results text on stdout
  verdicts.py aa KPROF WORK SEED
      the A/A part alone (AA_ONLY=1 runs), every comparison disjoint: as many
      as the pools hcA and cAA hold

Pools are folders WORK/pool-NAME/*.kprof. The floor's part (plan and
section 3) is bench/verdicts_floor.py; what both use, bench/verdicts_common.py.
"""
import collections
import glob
import json
import os
import random
import statistics
import sys

from verdicts_common import (COLD, Out, aa_comparisons, ab_comparisons, find_row, flagged_rows,
                             HOT, level_text, mean_share, planted_section, pool, pool_line, rate,
                             recording, reuse_note, run_diff)
from verdicts_floor import cmd_plan, floor_section

def aa_section(out, kprof, label, files, comps, seen_verdicts):
    flagged = 0
    flagged_first = n_first = 0
    names = collections.Counter()
    n_skid = n_rows_flagged = 0
    rows_n, tested_n = [], []
    cover = [0, 0]  # kprof_cold's interval contains 0 (the true change of an A/A)
    for a, b, rnd in comps:
        rows = run_diff(kprof, a, b)
        seen_verdicts.update(r["verdict"] for r in rows)
        rows_n.append(len(rows))
        tested_n.append(sum(1 for r in rows if r["verdict"] != "untested"))
        fl = flagged_rows(rows)
        hit = bool(fl)
        flagged += hit
        if rnd == 0:
            n_first += 1
            flagged_first += hit
        for r in fl:
            names[r["name"][:60]] += 1
            n_rows_flagged += 1
            n_skid += r["irq_skid"]
        c = find_row(rows, COLD)
        if c and c["lo"] is not None and c["verdict"] != "untested":
            cover[1] += 1
            cover[0] += c["lo"] <= 0 <= c["hi"]
    k = len(comps[0][0]) if comps else 0
    out("  %s, %dv%d: any row flagged in %s" % (label, k, k, rate(flagged, len(comps))))
    if comps and comps[-1][2] > 0:
        out("      round 1 alone (disjoint comparisons): %s" % rate(flagged_first, n_first))
    out("      rows per diff: median %d (min %d, max %d); tested (not untested): median %d" % (
        statistics.median(rows_n), min(rows_n), max(rows_n), statistics.median(tested_n)))
    if names:
        out("      %d flagged rows (%d irq-skid); most often: %s" % (
            n_rows_flagged, n_skid, ", ".join("%s x%d" % kv for kv in names.most_common(5))))
    if cover[1]:
        out("      kprof_cold's interval contains 0 in %s" % rate(*cover))
    out("      %s" % reuse_note(comps, len(files)))
    return flagged, len(comps)


def cmd_analyse(kprof, work, comparisons, seed, aa_only=False):
    n = int(comparisons)
    rng = random.Random(int(seed))
    out = Out()
    with open(os.path.join(work, "settings.json")) as f:
        settings = json.load(f)
    seen = collections.Counter()
    coverage = []

    hc_a, hc_b = pool(work, "hcA"), pool(work, "hcB")
    fa, fb = settings["factor_a"], settings["factor_b"]
    out("== pools (one recording each: kprof record -F %s, %s s of kprof_prog_hotcold; compile: "
        "-F %s, %s s)" % (settings["hc_freq"], settings["hc_seconds"], settings["c_freq"],
                          settings["c_seconds"]))
    for name, files, f in (("hcA", hc_a, fa), ("hcB", hc_b, fb)):
        if files:
            out(pool_line(kprof, name, files, f))
    c_aa, c_a, c_b = pool(work, "cAA"), pool(work, "cA"), pool(work, "cB")
    out("  compile recordings: %s; cAA: the loop alone (the A/A); cA / cB: with "
        "kprof_prog_hotcold %s s at COLD_FACTOR %s / %s beside it (the planted change)" % (
            settings["compile_desc"], settings["c_side_seconds"], settings["c_factor_a"],
            settings["c_factor_b"]))
    for name, files, f in (("cAA", c_aa, None), ("cA", c_a, settings.get("c_factor_a")),
                           ("cB", c_b, settings.get("c_factor_b"))):
        if files:
            out(pool_line(kprof, name, files, f))
            rows = [recording(kprof, x)["rows"] for x in files]
            out("      rows per profile (kprof report --csv): median %d, min %d, max %d" % (
                statistics.median(rows), min(rows), max(rows)))

    if not hc_a:  # FLOOR_ONLY
        out("  (FLOOR_ONLY: no A/A, power or coverage pools but the floor's)")
        floor_section(out, kprof, work, n, rng, coverage, seen)
        coverage_section(out, coverage, seen)
        return

    # 1. A/A (n 0: as many as the pool holds disjoint, no recording used twice)
    out()
    out("== 1. A/A: some row flagged (verdict not noise/untested); goal <= 5%, upper bound < 10%")
    for label, files in (("hot-cold %g/%g" % (fa, fa), hc_a), ("compile loop", c_aa)):
        for k in (1, 3):
            comps = aa_comparisons(files, k, n or len(files) // (2 * k), rng)
            if comps:
                aa_section(out, kprof, label, files, comps, seen)
            else:
                out("  %s, %dv%d: pool too small" % (label, k, k))
    if aa_only:
        out()
        out("verdict values seen: %s" % ", ".join("%s x%d" % kv for kv in seen.most_common()))
        return

    # 2. power
    true_hc = mean_share(kprof, hc_b) - mean_share(kprof, hc_a)
    out()
    out("== 2. power: kprof_cold COLD_FACTOR %g -> %g (true Δ %+.3f pp, from the pools' mean "
        "shares); goal >= 80%% at 3v3" % (fa, fb, true_hc))
    for k in (1, 3):
        comps = ab_comparisons(hc_a, hc_b, k, n, rng, shuffle_first=False)
        planted_section(out, kprof, "hot-cold", comps, true_hc, coverage, seen)
        out("      %s" % reuse_note(comps, len(hc_a) + len(hc_b)))
    hp_a, hp_b = pool(work, "hpA"), pool(work, "hpB")
    if hp_a and hp_b:
        true_hp = mean_share(kprof, hp_b) - mean_share(kprof, hp_a)
        out("  longer recordings (%s s each, so the +2 pp change is not drowned in sampling "
            "noise):" % settings.get("power_seconds", "?"))
        out(pool_line(kprof, "hpA", hp_a, fa))
        out(pool_line(kprof, "hpB", hp_b, fb))
        for k in (1, 3):
            comps = ab_comparisons(hp_a, hp_b, k, n, rng, shuffle_first=False)
            planted_section(out, kprof, "hot-cold %ss" % settings.get("power_seconds", "?"),
                            comps, true_hp, coverage, seen)
            out("      %s" % reuse_note(comps, len(hp_a) + len(hp_b)))
    if c_a and c_b:
        true_c = mean_share(kprof, c_b) - mean_share(kprof, c_a)
        true_h = mean_share(kprof, c_b, "hot") - mean_share(kprof, c_a, "hot")
        out("  compile-like profile: kprof_cold true Δ %+.3f pp, kprof_hot %+.3f pp" %
            (true_c, true_h))
        for k in (1, 3):
            per_round = min(len(c_a), len(c_b)) // k
            comps = ab_comparisons(c_a, c_b, k, per_round, rng)
            if not comps:
                out("  compile, %dv%d: pools too small" % (k, k))
                continue
            planted_section(out, kprof, "compile", comps, true_c, coverage, seen)
            planted_section(out, kprof, "compile", comps, true_h, [], seen, function=HOT,
                            others_line=False)
            out("      %s" % reuse_note(comps, len(c_a) + len(c_b)))

    floor_section(out, kprof, work, n, rng, coverage, seen)
    coverage_section(out, coverage, seen)




def coverage_section(out, coverage, seen):
    # 4. coverage
    out()
    out("== 4. interval coverage of the true change (kprof_cold, planted changes; true = difference "
        "of the pools' mean shares)")
    for label, k, c, m, levels in coverage:
        out("  %-14s %dv%d: %s; printed level %s" % (label, k, k, rate(c, m), level_text(levels)))
    tot_c = sum(c[2] for c in coverage)
    tot_m = sum(c[3] for c in coverage)
    all_levels = [l for c in coverage for l in c[4]]
    out("  all            : %s; printed level %s" % (rate(tot_c, tot_m), level_text(all_levels)))
    out("  (comparisons that share recordings are not independent: intervals on rates are "
        "then narrower than they should be)")

    out()
    out("verdict values seen: %s" % ", ".join("%s x%d" % kv for kv in seen.most_common()))
    odd = [v for v in seen if v not in ("noise", "untested", "changed")]
    if odd:
        out("  not noise/untested/changed (counted as flagged): %s" % ", ".join(odd))


def cmd_shares(kprof, pool_dir):
    files = sorted(glob.glob(os.path.join(pool_dir, "*.kprof")))
    print("%.4f" % mean_share(kprof, files))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "shares" and len(args) == 2:
        cmd_shares(*args)
    elif cmd == "plan" and len(args) in (5, 6):
        cmd_plan(*args)
    elif cmd == "analyse" and len(args) == 4:
        cmd_analyse(*args)
    elif cmd == "aa" and len(args) == 3:
        cmd_analyse(args[0], args[1], 0, args[2], aa_only=True)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
