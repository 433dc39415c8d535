#!/usr/bin/env bash
# The CPU one short recording costs kprof: `kprof record -o FILE -- true`
# (start, the events, the per-boot kallsyms cache, the environment, and
# finishing: the kallsyms index and subset, naming, compaction), for two
# binaries in turn so a noisy spell hits both alike. user + sys CPU of the
# whole run from getrusage, to the microsecond (`true` itself is ~1 ms).
#
#   bench/record_cost.sh OLD_KPROF NEW_KPROF [RUNS=21]
# Both share this boot's kallsyms cache (warmed first), as recordings do.
source "$(dirname "$0")/lib.sh"
set -euo pipefail
(($# >= 2)) || die "usage: $0 OLD_KPROF NEW_KPROF [RUNS]"
OLD=$1 NEW=$2
RUNS=${3:-21}
for b in "$OLD" "$NEW"; do [[ -x $b ]] || die "$b is not an executable"; done
need python3
results_dir record-cost
"$NEW" record -o "$W/warm.kprof" -- true >/dev/null 2>&1 || die "$NEW record -- true failed"
python3 - "$RUNS" "$OLD" "$NEW" "$W/run.kprof" <<'PY' | tee "$RESULT"
import resource, statistics, subprocess, sys, datetime
runs, old, new, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def cpu(binary):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, 'record', '-o', out, '--', 'true'], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
t = {'old': [], 'new': []}
for _ in range(runs):
    t['old'].append(cpu(old))
    t['new'].append(cpu(new))
mo, mn = statistics.median(t['old']), statistics.median(t['new'])
print(f"# kprof record -- true, {runs} alternating runs each, {datetime.datetime.now().isoformat(timespec='seconds')}")
print(f"old: {old}: CPU {mo * 1000:.1f} ms (median)")
print(f"new: {new}: CPU {mn * 1000:.1f} ms (median)")
print(f"new/old: {mn / mo:.3f}")
PY
echo "results: $RESULT"
