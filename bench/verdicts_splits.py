#!/usr/bin/env python3
"""A/A false alarms of kprof diff over many random splits of kept recordings
(issue 22): a rate less dependent on one split than verdicts.py aa's.

  verdicts_splits.py KPROF K SPLITS WORK [WORK...]
      for seed 1..SPLITS, shuffle each WORK/pool-cAA/*.kprof (recordings of
      bench/verdicts.sh) and cut it into disjoint K-vs-K comparisons; prints
      how many comparisons flag some row (verdict 'changed') and, per band of
      samples a run, how often tested rows' p falls under 1e-2, 1e-3, 1e-4
      against what a calibrated test gives.
  e.g. bench/verdicts_splits.py build/cli/kprof 3 10 bench/out/verdicts-*/
"""
import concurrent.futures
import csv
import glob
import io
import random
import subprocess
import sys


def comparisons(work, k, seed):
    files = sorted(glob.glob(work.rstrip("/") + "/pool-cAA/*.kprof"))
    random.Random(seed).shuffle(files)
    return [(files[i:i + k], files[i + k:i + 2 * k]) for i in range(0, len(files) - 2 * k + 1, 2 * k)]


def tested_rows(kprof, k, comp):
    a, b = comp
    args = a + b if k == 1 else a + ["--"] + b
    out = subprocess.run([kprof, "diff"] + args + ["--top", "1", "--csv", "-"],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for r in csv.DictReader(io.StringIO(out)):
        new = [c for c in r if c.endswith(" verdict")][-1][:-len(" verdict")]
        if r[new + " verdict"] == "untested" or not r[new + " p"]:
            continue
        samples = sum(float(r[c]) for c in r if c.endswith(" samples") and r[c])
        rows.append((float(r[new + " p"]), samples / (2 * k), r[new + " verdict"]))
    return rows


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    kprof, k, splits, works = argv[1], int(argv[2]), int(argv[3]), argv[4:]
    comps = [c for seed in range(1, splits + 1) for w in works for c in comparisons(w, k, seed)]
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        results = list(ex.map(lambda c: tested_rows(kprof, k, c), comps))
    flagged = sum(1 for rows in results if any(v == "changed" for _, _, v in rows))
    print("%dv%d, %d splits of %s: some row flagged in %d / %d = %.1f%%" % (
        k, k, splits, " ".join(works), flagged, len(comps), 100 * flagged / max(1, len(comps))))
    for lo, hi in ((0, 10), (10, 30), (30, 100), (100, float("inf"))):
        ps = [p for rows in results for p, n, _ in rows if lo <= n < hi]
        if ps:
            print("  %g-%g samples a run: %d tested rows; " % (lo, hi, len(ps)) + ", ".join(
                "p<%g: %d (calibrated %.1f)" % (t, sum(p < t for p in ps), t * len(ps))
                for t in (1e-2, 1e-3, 1e-4)))


if __name__ == "__main__":
    main(sys.argv)
