#!/usr/bin/env bash
# What the environment fingerprint (issue 24: the machine's facts and the
# kernel configuration, one chunk of every recording) costs in file size:
# a SECONDS-long recording of the hot-cold test program at FREQ by kprof and
# by perf record -e cpu-clock, REPS times interleaved; the medians of both
# files' sizes, their ratio (goal: kprof under half of perf's), and the
# Environment chunk's stored bytes, read from the file's chunk headers.
#
#   bench/env_size.sh            SECONDS_RUN=5 FREQ=999 REPS=3
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need perf python3
SECONDS_RUN=${SECONDS_RUN:-5} REPS=${REPS:-3}
find_programs
prog=$PROGRAMS/kprof_prog_hotcold
results_dir env-size
k_sizes=() p_sizes=() e_sizes=()
for r in $(seq "$REPS"); do
  "$KPROF" record -F "$FREQ" -o "$W/k$r.kprof" -- "$prog" "$SECONDS_RUN" >/dev/null 2>&1
  perf record -q -e cpu-clock -F "$FREQ" -o "$W/p$r.data" -- "$prog" "$SECONDS_RUN" >/dev/null 2>&1
  k_sizes+=("$(filesize "$W/k$r.kprof")")
  p_sizes+=("$(filesize "$W/p$r.data")")
  # The Environment chunk (type 11): its stored bytes, header included, from
  # the chunk walk (16-byte chunk headers after the 16-byte file header).
  e_sizes+=("$(python3 - "$W/k$r.kprof" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos, total = 16, 0
while pos + 16 <= len(b):
    ctype, = struct.unpack_from('<H', b, pos)
    length, = struct.unpack_from('<I', b, pos + 4)
    if ctype == 11:
        total += 16 + length
    pos += 16 + length
print(total)
PY
)")
done
k=$(median "${k_sizes[@]}") p=$(median "${p_sizes[@]}") e=$(median "${e_sizes[@]}")
{
  echo "kprof $SECONDS_RUN s at $FREQ Hz: median $k bytes (${k_sizes[*]})"
  echo "perf  $SECONDS_RUN s at $FREQ Hz: median $p bytes (${p_sizes[*]})"
  echo "kprof / perf: $(ratio "$k" "$p") (goal: under 0.5)"
  echo "environment chunk: median $e bytes, $(ratio "$e" "$k") of kprof's file"
} | tee "$RESULT"
