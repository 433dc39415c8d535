#!/usr/bin/env python3
"""What bench/verdicts.py and bench/verdicts_floor.py share (python3 standard
library only): Wilson intervals; kprof report/diff/--plan run and parsed;
A/A and A/B comparisons cut from pools of recordings (folders
WORK/pool-NAME/*.kprof) in rounds of disjoint groups; the planted-change
section and its lines. A comparison's verdicts come from `kprof diff ...
--csv` (one row per function: new verdict, new delta_pp, new ci_lo_pp, new
ci_hi_pp, new ci_level); a row is flagged when its verdict is not 'noise' or
'untested'.
"""
import collections
import csv
import glob
import math
import os
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


# ---------------------------------------------------------------- analyse

class Out:
    def __init__(self):
        self.lines = []

    def __call__(self, s=""):
        self.lines.append(s)
        print(s, flush=True)


def flagged_rows(rows):
    return [r for r in rows if r["verdict"] not in QUIET]

def planted_section(out, kprof, label, comps, true_delta, coverage, seen_verdicts,
                    function=COLD, others_line=True, outcomes=None):
    """Fraction of comparisons where `function` is changed in the direction of
    true_delta; its interval's coverage of true_delta (into `coverage`). Rows
    flagged besides kprof_cold and kprof_hot (whose share moves the other
    way) are counted apart. `outcomes` (a list) gets (a, b, found) for each
    comparison."""
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
        hit = (r is not None and r["verdict"] not in QUIET and
               (r["delta"] > 0) == (true_delta > 0))
        if outcomes is not None:
            outcomes.append((a, b, hit))
        if r is None or r["verdict"] == "untested":
            untested += 1
            continue
        deltas.append(r["delta"])
        if r["verdict"] not in QUIET:
            found += hit
            wrong += not hit
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
