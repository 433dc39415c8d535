#!/usr/bin/env python3
"""How far one recording's own spread tells the next recording's.

usage: bench/one_run_spread.py KPROF POOL_DIR...

Each POOL_DIR holds recordings of one unchanged workload (the hot-cold test
program), named in the order they were made. For each pool this prints, for
the kprof_cold row:
  - between runs: the variance of its share over the pool's runs against
    binomial's p (1 - p) / n (with a 95% chi-square interval), and the same
    from successive differences (blind to a slow drift over the pool);
  - the between-run variance split in two: kprof_cold's part of the
    program's own two functions (kprof_cold + kprof_hot), against binomial's
    over the program's samples (sampling within the program), and the
    program's part of all samples, against binomial's over all samples (how
    much of the machine the workload got: a recording whose length or
    neighbours vary moves this one), with the total samples' mean and SD;
  - within runs: the dispersion a 1 vs 1 diff measured over the runs' time
    slices and judged the row by (the JSON cell's "dispersion"; median over
    the pairs);
  - calibration of the 1 vs 1 test over disjoint consecutive pairs (no run
    used twice): the mean of z^2 with z the normal quantile of the row's
    two-sided p (1 for a test whose p is uniform under no change; above 1:
    the test finds changes that are not there), how many pairs had p < 0.05
    (5% expected), and how many pairs flagged any row at all (the A/A rate
    the verdicts promise to keep at or under 5%).
"""
import csv
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

COLD, HOT, IMAGE = "kprof_cold", "kprof_hot", "kprof_prog_hotcold"
QUIET = ("noise", "untested")


def diff_json(kprof, a, b):
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        cmd = [kprof, "diff", a, b, "--top", "1", "--json", tmp.name]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("one_run_spread.py: %s failed (%d): %s" %
                     (" ".join(cmd), res.returncode, res.stderr.strip()[-400:]))
        with open(tmp.name) as f:
            return json.load(f)


def cold_row(doc):
    for row in doc["rows"]:
        if row.get("name") == COLD and IMAGE in row.get("image", ""):
            return row
    return None


def program_split(kprof, files):
    """(kprof_cold's part of the program, the program's part of all samples,
    total samples) for each recording, from `kprof report --csv`."""
    within, prog, totals = [], [], []
    for f in files:
        out = subprocess.run([kprof, "report", f, "--top", "0", "--csv", "-"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("one_run_spread.py: kprof report %s failed: %s" % (f, out.stderr.strip()[-400:]))
        cold = hot = total = 0
        for r in csv.DictReader(out.stdout.splitlines()):
            n = int(r["samples"])
            total += n
            if IMAGE in r.get("image", ""):
                cold += n if r["function"] == COLD else 0
                hot += n if r["function"] == HOT else 0
        if cold + hot == 0 or total == 0:
            sys.exit("one_run_spread.py: %s has no %s/%s samples" % (f, COLD, HOT))
        within.append(cold / (cold + hot))
        prog.append((cold + hot) / total)
        totals.append(total)
    return within, prog, totals


def variance_ratio(x, n):
    """Variance of the proportions x against binomial's at their mean over n trials."""
    p = statistics.fmean(x)
    return statistics.variance(x) / (p * (1 - p) / n)


def chi2_interval(ratio, df):
    """95% interval of a variance ratio estimated with df degrees of freedom
    (Wilson-Hilferty's chi-square quantiles)."""
    def q(p):
        z = statistics.NormalDist().inv_cdf(p)
        return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return ratio * df / q(0.975), ratio * df / q(0.025)


def analyse(kprof, pool):
    files = sorted(glob.glob(os.path.join(pool, "*.kprof")))
    if len(files) < 4:
        sys.exit("one_run_spread.py: %s: fewer than 4 recordings" % pool)
    shares, samples, z2, low_p, flagged, disp = {}, {}, [], 0, 0, []
    pairs = 0
    for i in range(0, len(files) - 1, 2):
        doc = diff_json(kprof, files[i], files[i + 1])
        row = cold_row(doc)
        if row is None:
            sys.exit("one_run_spread.py: no %s row in %s vs %s" % (COLD, files[i], files[i + 1]))
        pairs += 1
        for k, f in enumerate((files[i], files[i + 1])):
            cell = row["sides"][k]
            shares[f] = cell["pct"]
            samples[f] = cell["samples"] * 100 / cell["pct"] if cell["pct"] else 0
        cell = row["sides"][1]
        p = cell.get("p")
        if p is not None:
            p = min(max(p, 1e-300), 1.0)
            z = statistics.NormalDist().inv_cdf(1 - p / 2) if p < 1 else 0.0
            z2.append(z * z)
            low_p += p < 0.05
        if cell.get("dispersion") is not None:
            disp.append(cell["dispersion"])
        flagged += any(r["sides"][1].get("verdict") not in QUIET for r in doc["rows"])
    order = [f for f in files if f in shares]
    x = [shares[f] for f in order]
    p = statistics.fmean(x) / 100
    n = statistics.fmean(samples[f] for f in order)
    binom = p * (1 - p) / n * 1e4  # pp^2
    var = statistics.variance(x)
    succ = statistics.fmean((x[i + 1] - x[i]) ** 2 for i in range(len(x) - 1)) / 2
    lo, hi = chi2_interval(var / binom, len(x) - 1)
    print("%s: %d runs of ~%.0f samples, %s %.2f%%" %
          (os.path.basename(pool.rstrip("/")), len(x), n, COLD, 100 * p))
    print("  between runs: variance %.2fx binomial's (95%%: %.2f-%.2f), successive "
          "differences %.2fx" % (var / binom, lo, hi, succ / binom))
    within, prog, totals = program_split(kprof, order)
    n_all = statistics.fmean(totals)
    n_prog = n_all * statistics.fmean(prog)
    print("  split: %s's part of the program %.4f, variance %.2fx binomial's over its "
          "~%.0f samples; the program's part of all samples %.4f, %.2fx binomial's; "
          "total samples mean %.0f, SD %.0f" %
          (COLD, statistics.fmean(within), variance_ratio(within, n_prog), n_prog,
           statistics.fmean(prog), variance_ratio(prog, n_all), n_all, statistics.stdev(totals)))
    print("  within runs (1v1 diffs' slice dispersion): median %.2fx binomial's" %
          (statistics.median(disp) if disp else float("nan")))
    print("  1v1 over %d disjoint pairs: mean z^2 of %s's p %.2f (1 if calibrated), "
          "p < 0.05 in %d (%.0f expected), some row flagged in %d" %
          (pairs, COLD, statistics.fmean(z2) if z2 else float("nan"), low_p, 0.05 * pairs,
           flagged))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for pool in sys.argv[2:]:
        analyse(sys.argv[1], pool)


if __name__ == "__main__":
    main()
