# Shared helpers for the bench scripts (sourced, not run).
#
# Environment knobs common to all scripts:
#   KPROF=path/to/kprof   the binary to measure (default: newest build*/cli/kprof)
#   FREQ=999              sampling frequency given to both kprof and perf (-F)
#   OUT=bench/out         where results go (git-ignored)

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
OUT=${OUT:-$BENCH_DIR/out}
FREQ=${FREQ:-999}
mkdir -p "$OUT"

# results_dir NAME: W=$OUT/NAME-<time> (made) for raw files, RESULT=$W.txt.
results_dir() {
  W=$OUT/$1-$(date +%Y%m%d-%H%M%S)
  mkdir -p "$W"
  RESULT=$W.txt
}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

find_kprof() {
  if [[ -n ${KPROF:-} ]]; then
    [[ -x $KPROF ]] || die "KPROF=$KPROF is not an executable"
    return
  fi
  # The release build of scripts/test.sh and scripts/demo.sh; never whichever
  # build is newest, which may be a sanitizer or fuzzing one.
  KPROF=$ROOT/build/cli/kprof
  [[ -x $KPROF ]] || die "no $KPROF (build it: cmake -S . -B build -G Ninja && ninja -C build; or set KPROF=path)"
  if grep -qs '^KPROF_SANITIZE:BOOL=ON' "$ROOT/build/CMakeCache.txt"; then
    die "$ROOT/build is a sanitizer build: timings would be meaningless (set KPROF=path)"
  fi
}

need() { for t in "$@"; do command -v "$t" >/dev/null || die "needs '$t' on PATH"; done; }

# median of the numbers given as arguments
median() {
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {
    if (NR == 0) { print "nan"; exit }
    if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratio A/B with 3 decimals ("nan" when B is 0 or not a number)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "nan"; else printf "%.3f\n", a / b }'; }

# sum of two numbers
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", a + b }'; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", a - b }'; }

# timed FILE CMD...: runs CMD, writes "wall user sys" (seconds, whole process
# tree that CMD waited for) to FILE; returns CMD's exit status.
timed() {
  local file=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$file" "$@"
}

# time_of ERRFILE CMD...: seconds of one run of CMD (its output dropped, its
# stderr in ERRFILE), or "aborted" when it fails (perf 6.1 aborts on some of
# its own -g files here).
time_of() {
  local err=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$err" || { echo aborted; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# Field N (1=wall 2=user 3=sys) of a `timed` file; its last line, since
# /usr/bin/time prepends "Command exited with non-zero status" when it did.
tfield() { tail -1 "$1" | awk -v n="$2" '{print $n}'; }
cpu_of() { add "$(tfield "$1" 2)" "$(tfield "$1" 3)"; }

# Samples in a kprof profile: from `kprof info` (or `kprof report`), first
# "N samples" / "samples: N" found.
kprof_samples() {
  local f=$1 n
  n=$("$KPROF" info "$f" 2>/dev/null | awk '/^samples:/ {gsub(/[^0-9]/, "", $2); print $2; exit}')
  [[ -n $n ]] && { echo "$n"; return; }
  for verb in info report; do
    n=$("$KPROF" "$verb" "$f" 2>/dev/null |
        grep -oiE '([0-9][0-9,]*) samples|samples[^0-9a-z]*([0-9][0-9,]*)' | head -1 |
        tr -dc '0-9')
    [[ -n $n ]] && { echo "$n"; return; }
  done
  echo 0
}

# Samples in a perf.data file (exact: counts sample lines).
# Sample records in a perf.data (from the raw dump: `perf script` prints one
# line per callchain frame with -g, so counting its lines overcounts).
perf_samples() { perf report -D -i "$1" 2>/dev/null | grep -c PERF_RECORD_SAMPLE || true; }

filesize() { stat -c %s "$1"; }

# Prints a table from lines of "|"-separated cells, columns aligned.
table() { column -t -s '|'; }

# Sets PROGRAMS to the test programs built beside $KPROF (tests/programs).
find_programs() {
  PROGRAMS=${PROGRAMS:-$(dirname "$(dirname "$KPROF")")/tests/programs}
  [[ -x $PROGRAMS/kprof_prog_hotcold ]] ||
    die "no kprof_prog_hotcold in $PROGRAMS (ninja kprof_programs, or set PROGRAMS=dir)"
}

# write_spinner FILE JOBS SECONDS: writes a script that runs JOBS test programs
# for SECONDS, cycling through user-only (kprof_prog_hotcold, whose cold
# factor is the script's $1, default 1), kernel-heavy and shared-library work,
# so profiles have both kernel and user functions; it waits for them all.
write_spinner() {
  local file=$1 jobs=$2 seconds=$3
  cat >"$file" <<SPIN
#!/bin/sh
progs="kprof_prog_hotcold kprof_prog_syscalls kprof_prog_shlib"
i=0
for p in \$progs \$progs \$progs; do
  [ \$i -ge $jobs ] && break
  if [ \$p = kprof_prog_hotcold ]; then
    "$PROGRAMS/\$p" $seconds "\${1:-1}" >/dev/null &
  else
    "$PROGRAMS/\$p" $seconds >/dev/null &
  fi
  i=\$((i + 1))
done
wait
SPIN
  chmod +x "$file"
}

# Records a storm with `kprof record --off-cpu`, cut short by kill -9 after
# SECONDS so the file keeps its spooled records (what kprof symbolize
# finishes):  cut_storm KPROF OUT SECONDS [RECORD_ARGS...] -- STORM_CMD...
# The storm must outlive SECONDS; after the cut it is killed by its first
# word that is a path (past a taskset). Dies with the recorder's first line
# of errors when no file was written.
cut_storm() {
  local kprof=$1 out=$2 secs=$3
  shift 3
  local args=()
  while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  local storm=("$@") prog=$1 w
  for w in "$@"; do [[ $w == */* ]] && { prog=$w; break; }; done
  "$kprof" record --off-cpu "${args[@]}" -o "$out" -- "${storm[@]}" >/dev/null 2>"$out.err" &
  local rec=$!
  sleep "$secs"
  kill -9 "$rec" 2>/dev/null || true
  wait "$rec" 2>/dev/null || true
  pkill -f "$prog" 2>/dev/null || true
  [[ -s $out ]] || die "no recording ($(head -1 "$out.err"))"
}
