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

Pools are folders WORK/pool-NAME/*.kprof. A comparison's verdicts come from
`kprof diff ... --csv` (one row per function: new verdict, new delta_pp,
new ci_lo_pp, new ci_hi_pp, new ci_level); a row is flagged when its verdict
is not 'noise' or 'untested'.
"""
import collections
import csv
import glob
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

COLD = "kprof_cold"
HOT = "kprof_hot"
QUIET = ("noise", "untested")  # verdicts that flag nothing
Z95 = 1.959963984540054


# ---------------------------------------------------------------- statistics

def wilson(k, n, z=Z95):
    """95% Wilson score interval of k successes in n, in %."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (100 * max(0.0, c - h), 100 * min(1.0, c + h))


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


def rate(k, n):
    """'k / n = x% (95% Wilson a-b%)'"""
    if n == 0:
        return "0 / 0"
    lo, hi = wilson(k, n)
    return "%d / %d = %.1f%% (95%% Wilson %.1f-%.1f%%)" % (k, n, 100 * k / n, lo, hi)


# ---------------------------------------------------------------- kprof

def pool(work, name):
    return sorted(glob.glob(os.path.join(work, "pool-" + name, "*.kprof")))


def report_rows(kprof, path):
    """(rows of `kprof report --csv`, total samples) of one recording."""
    out = subprocess.run([kprof, "report", path, "--top", "0", "--csv", "-"],
                         check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(out.splitlines()))
    return rows, sum(int(r["samples"]) for r in rows)


def share_of(rows, total, function):
    if not total:
        return float("nan")
    return 100 * sum(int(r["samples"]) for r in rows if r["function"] == function) / total


_report_cache = {}


def recording(kprof, path):
    """{'rows': n, 'samples': n, 'cold': %, 'hot': %} of one recording (cached)."""
    if path not in _report_cache:
        rows, total = report_rows(kprof, path)
        _report_cache[path] = {"rows": len(rows), "samples": total,
                               "cold": share_of(rows, total, COLD),
                               "hot": share_of(rows, total, HOT)}
    return _report_cache[path]


def mean_share(kprof, files, key="cold"):
    return statistics.fmean(recording(kprof, f)[key] for f in files)


def diff_args(a, b):
    """kprof diff positionals: 'A B' for 1 vs 1, 'A1 A2 -- B1 B2' otherwise."""
    return list(a) + list(b) if len(a) == 1 and len(b) == 1 else list(a) + ["--"] + list(b)


def run_diff(kprof, a, b):
    """Rows of `kprof diff A -- B --csv`, as dicts with the new side's columns."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as tmp:
        cmd = [kprof, "diff"] + diff_args(a, b) + ["--top", "1", "--csv", tmp.name,
                                                   "--label", "base", "--label", "new"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("verdicts.py: %s failed (%d): %s" % (" ".join(cmd), res.returncode,
                                                          res.stderr.strip()[-500:]))
        with open(tmp.name, newline="") as f:
            raw = list(csv.DictReader(f))
    rows = []
    for r in raw:
        def num(col):
            v = r.get("new " + col, "")
            return float(v) if v not in ("", None) else None
        rows.append({"name": r["name"], "image": r["image"], "irq_skid": r.get("irq_skid") == "yes",
                     "verdict": r["new verdict"], "sided": r.get("new sided", ""),
                     "method": r.get("new noise_method", ""),
                     "delta": num("delta_pp"), "lo": num("ci_lo_pp"), "hi": num("ci_hi_pp"),
                     "level": num("ci_level"), "q": num("q")})
    return rows


def find_row(rows, function):
    for r in rows:
        if r["name"] == function and "kprof_prog_hotcold" in r["image"]:
            return r
    return None


FLOOR_LINE = re.compile(r"a ([0-9.]+)% row: (?:±([0-9.]+) pp|(beyond reach))")


def run_plan(kprof, a, b, at):
    """(text, {share%: floor pp or inf}, rows tested) of `kprof diff A -- B --plan
    --floor-at AT`."""
    cmd = [kprof, "diff"] + diff_args(a, b) + ["--plan", "--floor-at", "%.4f" % at,
                                               "--label", "base", "--label", "new"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("verdicts.py: %s failed: %s" % (" ".join(cmd), res.stderr.strip()[-500:]))
    text = res.stdout
    floors = {}
    for m in FLOOR_LINE.finditer(text):
        floors[float(m.group(1))] = math.inf if m.group(3) else float(m.group(2))
    tested = re.search(r"samples, ([0-9,]+) rows[^,]*, FDR", text)
    return text, floors, int(tested.group(1).replace(",", "")) if tested else None


# ---------------------------------------------------------------- comparisons

def aa_comparisons(files, k, n, rng):
    """n A/A comparisons of k vs k runs from one pool, in rounds: each round
    shuffles the pool and cuts it into disjoint groups of 2k (no recording on
    both sides of a comparison, none in two comparisons of one round)."""
    per_round = len(files) // (2 * k)
    if per_round == 0:
        return []
    out = []
    rnd = 0
    while len(out) < n:
        order = files[:]
        rng.shuffle(order)
        for g in range(per_round):
            if len(out) == n:
                break
            grp = order[2 * k * g:2 * k * (g + 1)]
            out.append((grp[:k], grp[k:], rnd))
        rnd += 1
    return out


def ab_comparisons(a_files, b_files, k, n, rng, shuffle_first=True):
    """n comparisons of k A runs vs k B runs, in rounds of disjoint groups."""
    per_round = min(len(a_files), len(b_files)) // k
    if per_round == 0:
        return []
    out = []
    rnd = 0
    while len(out) < n:
        a, b = a_files[:], b_files[:]
        if rnd or shuffle_first:
            rng.shuffle(a)
            rng.shuffle(b)
        for g in range(per_round):
            if len(out) == n:
                break
            out.append((a[k * g:k * (g + 1)], b[k * g:k * (g + 1)], rnd))
        rnd += 1
    return out


def reuse_note(comps, n_files):
    """How the comparisons share recordings."""
    if not comps:
        return "no comparisons"
    rounds = max(c[2] for c in comps) + 1
    uses = collections.Counter(f for a, b, _ in comps for f in a + b)
    first = sum(1 for c in comps if c[2] == 0)
    if rounds == 1:
        return "%d comparisons, all disjoint (%d of %d recordings used)" % (
            len(comps), len(uses), n_files)
    return ("%d comparisons from %d recordings in %d rounds: within a round disjoint, across "
            "rounds they share recordings (each used %d-%d times); round 1 alone: %d disjoint" %
            (len(comps), n_files, rounds, min(uses.values()), max(uses.values()), first))


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


# ---------------------------------------------------------------- analyse

class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, s=""):
        self.lines.append(s)
        print(s, flush=True)


def flagged_rows(rows):
    return [r for r in rows if r["verdict"] not in QUIET]


def unknown_verdicts(all_rows):
    return collections.Counter(r["verdict"] for r in all_rows
                               if r["verdict"] not in ("noise", "untested", "changed"))


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


def planted_section(out, kprof, label, comps, true_delta, coverage, seen_verdicts,
                    function=COLD, others_line=True):
    """Fraction of comparisons where `function` is changed in the direction of
    true_delta; its interval's coverage of true_delta (into `coverage`). Rows
    flagged besides kprof_cold and kprof_hot (whose share moves the other
    way) are counted apart."""
    found = untested = wrong = 0
    levels, deltas = [], []
    cov = [0, 0]
    others = collections.Counter()
    n_other = 0
    for a, b, _ in comps:
        rows = run_diff(kprof, a, b)
        seen_verdicts.update(r["verdict"] for r in rows)
        r = find_row(rows, function)
        fl = [x for x in flagged_rows(rows) if x["name"] not in (COLD, HOT)]
        n_other += bool(fl)
        for x in fl:
            others[x["name"][:60]] += 1
        if r is None or r["verdict"] == "untested":
            untested += 1
            continue
        deltas.append(r["delta"])
        if r["verdict"] not in QUIET:
            if (r["delta"] > 0) == (true_delta > 0):
                found += 1
            else:
                wrong += 1
        if r["lo"] is not None:
            cov[1] += 1
            cov[0] += r["lo"] <= true_delta <= r["hi"]
            levels.append(r["level"])
    k = len(comps[0][0]) if comps else 0
    out("  %s, %dv%d: %s flagged in the right direction in %s" % (
        label, k, k, function, rate(found, len(comps))))
    extra = []
    if wrong:
        extra.append("%d flagged the wrong way" % wrong)
    if untested:
        extra.append("%d untested or absent" % untested)
    if deltas:
        extra.append("printed Δ mean %+.2f pp (SD %.2f) against true %+.2f pp" % (
            statistics.fmean(deltas), statistics.pstdev(deltas), true_delta))
    if extra:
        out("      " + "; ".join(extra))
    if n_other and others_line:
        out("      some other row flagged in %d of %d (%s)" % (
            n_other, len(comps), ", ".join("%s x%d" % kv for kv in others.most_common(4))))
    if cov[1]:
        out("      interval contains the true change in %s; printed level %s" % (
            rate(*cov), level_text(levels)))
        coverage.append((label, k, cov[0], cov[1], levels))
    return found, len(comps)


def level_text(levels):
    if not levels:
        return "-"
    lo, hi, md = min(levels), max(levels), statistics.median(levels)
    if hi - lo < 1e-9:
        return "%.4g%%" % (100 * md)
    return "median %.4g%% (%.4g-%.4g%%)" % (100 * md, 100 * lo, 100 * hi)


def pool_line(kprof, name, files, factor=None):
    recs = [recording(kprof, f) for f in files]
    cold = [r["cold"] for r in recs]
    s = "  pool %-8s %3d recordings" % (name, len(files))
    if factor is not None:
        s += ", COLD_FACTOR %-6s" % ("%.3f" % factor)
    s += ": samples median %d" % statistics.median(r["samples"] for r in recs)
    if any(cold):
        s += "; kprof_cold share mean %.3f%% (SD %.3f pp)" % (
            statistics.fmean(cold), statistics.stdev(cold) if len(cold) > 1 else 0)
    return s


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


def floor_section(out, kprof, work, n, rng, coverage, seen):
    # 3. floor
    out()
    out("== 3. floor prediction: found >= 80% at 1.25x the printed floor, <= 20% at 0.5x "
        "(the issue's goal; the floor's own curve gives each multiple's rate below)")
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
                planted_section(out, kprof, "%s %.2fx" % (floor_set, kind[tag]["mult"]), comps,
                                true, coverage, seen)
                out("      %s" % reuse_note(comps, len(base) + len(files)))


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
