#!/usr/bin/env python3
"""How far the user stacks of one program's samples reach: of the samples of
processes named COMM that have a user frame, the share whose stack holds a
frame named ROOT (e.g. main) and the share holding FRAME (e.g. PostgresMain).

  kprof export -f folded FILE | dwarf_reach.py kprof COMM ROOT FRAME
  perf script -F comm,ip,sym,dso -i perf.data | dwarf_reach.py perf COMM ROOT FRAME

Prints: "samples_with_user root_share_pct frame_share_pct".
"""
import sys


def kprof_stacks(lines, comm):
    for line in lines:
        line = line.rstrip("\n")
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not frames or frames[0] != comm or not count.isdigit():
            continue
        names = frames[1:]
        user = [f for f in names if not f.endswith("_[k]")]
        yield user, int(count)


def perf_stacks(lines, comm):
    current, frames = None, []
    for line in list(lines) + ["\n"]:
        if line.strip() == "":
            if current == comm:
                user = [f for f, dso in frames if dso != "[kernel.kallsyms]"]
                yield user, 1
            current, frames = None, []
        elif not line.startswith("\t") and not line.startswith(" "):
            current = line.split()[0] if line.split() else None
        else:
            parts = line.strip().split(None, 1)
            if len(parts) < 2:
                continue
            rest = parts[1]
            dso = rest[rest.rfind("(") + 1 : -1] if rest.endswith(")") else ""
            sym = rest[: rest.rfind(" (")] if " (" in rest else rest
            frames.append((sym.split("+0x")[0], dso))


def main():
    mode, comm, root, frame = sys.argv[1:5]
    stacks = kprof_stacks(sys.stdin, comm) if mode == "kprof" else perf_stacks(sys.stdin, comm)
    total = reach_root = reach_frame = 0
    for user, n in stacks:
        if not user:
            continue
        total += n
        reach_root += n if root in user else 0
        reach_frame += n if frame in user else 0
    pct = lambda k: 100.0 * k / total if total else 0.0
    print(f"{total} {pct(reach_root):.1f} {pct(reach_frame):.1f}")


if __name__ == "__main__":
    main()
