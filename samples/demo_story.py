#!/usr/bin/env python3
"""What the kernel demo must show (issue 27), checked from kprof's exports.

    demo_story.py DIFF.json PER_CALL_DIFF.csv RT_RUN1_PER_CALL.csv RT_RUN1_WORKLOAD.txt

- rt_spin_lock and rt_spin_unlock (PREEMPT_RT's own locking) are only on the
  rt side (+++) and changed;
- the control, crunch (user-space compute), does not change in cost per
  round of work on cloud or rt: its per-work verdict is noise (the guests'
  clock counts instructions, so no host drift moves it: samples/README.md);
- chdir() costs more per call on rt, changed, its interval above 0;
- kprof's chdir() figure for rt's first run (CPU ns under its entry, plus its
  entry/exit and the counting's cost, which the workload pays too) is within
  15% of the workload's own (its thread CPU clock per call).
Prints one line per check; exit 1 when any fails.
"""
import csv
import json
import sys


def main():
    story, per_call, rt1, workload = sys.argv[1:5]
    bad = []
    d = json.load(open(story))
    rows = {(r["name"], r["image"]): r for r in d["rows"]}

    def side(row, label):
        return next((s for s in row["sides"] if s["label"] == label), None)

    for fn in ("rt_spin_lock", "rt_spin_unlock"):
        r = rows.get((fn, "[kernel]"))
        rt = r and side(r, "rt")
        generic = r and side(r, "generic")
        if not rt or rt["verdict"] != "changed" or generic["samples"] != 0 or rt["samples"] == 0:
            bad.append(f"{fn} is not +++ and changed on rt: {rt}")
        else:
            print(f"ok: {fn} on rt: {rt['pct']:.2f}% (none on generic), changed")
    crunch = rows.get(("crunch", "/bin/syscalls"))
    if not crunch:
        bad.append("no crunch row")
    else:
        for s in crunch["sides"][1:]:
            v, change = s.get("events_per_work_verdict"), s.get("events_per_work_change_pct")
            if v is None or change is None:
                bad.append(f"the control crunch has no cost per round of work on {s['label']}")
            elif v == "noise":
                print(f"ok: the control (crunch) per round of work on {s['label']}: "
                      f"{change:+.1f}%, noise")
            else:
                bad.append(f"the control crunch's cost per round of work moved {change:+.1f}% "
                           f"on {s['label']} ({v})")

    chdir = [r for r in csv.DictReader(open(per_call))
             if r["system_call"] == "chdir" and r["side"] == "rt" and not r["function"]]
    if not chdir or chdir[0]["verdict"] != "changed" or float(chdir[0]["ci_lo"]) <= 0:
        bad.append(f"chdir() on rt is not changed with its interval above 0: {chdir}")
    else:
        c = chdir[0]
        print(f"ok: chdir() on rt {float(c['base_cost']):.0f} -> {float(c['cost']):.0f} ns per call, "
              f"interval [{float(c['ci_lo']):+.0f}, {float(c['ci_hi']):+.0f}]")

    mine = [r for r in csv.DictReader(open(rt1)) if r["system_call"] == "chdir"]
    own = None
    header = None
    for line in open(workload):
        cells = line.rstrip("\n").split("\t")
        if cells[0] == "Kernel":
            header = cells
        elif cells[0].endswith(" (cpu ns)") and header:
            own = float(cells[header.index("chdir()")])
    if not mine or own is None:
        bad.append("no chdir() figure from kprof or from the workload")
    else:
        m = mine[0]
        k = (float(m["cost_per_call"]) + float(m["entry_exit_per_call"]) +
             float(m["counting_per_call"]))
        line = f"chdir() on rt, run 1: kprof {k:.0f} ns per call, the workload's own {own:.0f} ns"
        if abs(k - own) > 0.15 * own:
            bad.append(line + ": not within 15%")
        else:
            print(f"ok: {line} ({100 * (k - own) / own:+.1f}%)")
    for b in bad:
        print(f"FAIL: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
