#!/usr/bin/env bash
# Overhead of kprof vs `perf record -e cpu-clock` at the same -F, on the same
# workloads in the same run (variants interleaved per repetition):
#   - workload slowdown: bare vs under kprof vs under perf
#   - the profiler's own CPU time (whole tree minus the workload's, both from
#     /usr/bin/time; the workload is wrapped in its own /usr/bin/time)
#   - bytes per sample of the profile file: overall, and marginal (after
#     subtracting the size of a profile of `true`, i.e. the fixed part such as
#     kprof's kallsyms snapshot or perf's synthesized mmaps under -a)
#
# usage: bench/overhead.sh [compile|pgbench|all]      (default: all, ~4 min)
# knobs: REPS=3  FREQ=999  KPROF=path
#        KPROF_ARGS="--no-kallsyms-cache"   extra kprof record options (e.g. to
#        time the first recording of a boot, which reads /proc/kallsyms)
#        PERF_ARGS=""   extra perf record options; KPROF_ARGS=-g PERF_ARGS=-g
#        measures what call chains cost each tool
#        GTEST_TARGET=gtest     make target of /usr/src/googletest ("all": longer)
#        PG_SECONDS=8 PG_CLIENTS=4 PG_SCALE=5 PG_ARGS=-S   (pgbench, select-only)
#        PG_BIN=/usr/lib/postgresql/15/bin
# Results: bench/out/overhead-<time>.txt (and the raw files under bench/out/overhead-<time>/).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

WHAT=${1:-all}
REPS=${REPS:-3}
read -ra KPROF_ARGS <<<"${KPROF_ARGS:-}"
read -ra PERF_ARGS <<<"${PERF_ARGS:-}"
GTEST_TARGET=${GTEST_TARGET:-gtest}
PG_SECONDS=${PG_SECONDS:-8}
PG_CLIENTS=${PG_CLIENTS:-4}
PG_SCALE=${PG_SCALE:-5}
PG_ARGS=${PG_ARGS:--S}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

find_kprof
need perf cmake make
results_dir overhead
ROWS=()   # table rows

PGDIR=""
cleanup() {
  if [[ -n $PGDIR && -d $PGDIR ]]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop \
      >/dev/null 2>&1 || true
    rm -rf "$PGDIR"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_variant NAME TAG WORKLOAD... : one measured run. Sets globals
#   V_WALL (workload wall), V_WORK_CPU, V_PROF_CPU, V_BYTES, V_SAMPLES, V_LOG.
# PROFILE_FLAGS (array) is added to the profiler command line (e.g. -a).
run_variant() {
  local name=$1 tag=$2; shift 2
  local inner=$W/$tag.inner.time outer=$W/$tag.outer.time log=$W/$tag.log
  local wrapped=(/usr/bin/time -f '%e %U %S' -o "$inner" "$@")
  V_LOG=$log
  case $name in
    bare) timed "$outer" "${wrapped[@]}" >"$log" 2>&1 ;;
    kprof) timed "$outer" "$KPROF" record "${KPROF_ARGS[@]}" "${PROFILE_FLAGS[@]}" -F "$FREQ" -o "$W/$tag.kprof" \
             -- "${wrapped[@]}" >"$log" 2>&1 ;;
    perf) timed "$outer" perf record -e cpu-clock "${PERF_ARGS[@]}" "${PROFILE_FLAGS[@]}" -F "$FREQ" \
            -o "$W/$tag.data" -- "${wrapped[@]}" >"$log" 2>&1 ;;
  esac || die "$name run failed, see $log"
  V_WALL=$(tfield "$inner" 1)
  V_WORK_CPU=$(cpu_of "$inner")
  V_PROF_CPU=$(sub "$(cpu_of "$outer")" "$V_WORK_CPU")
  V_BYTES=0 V_SAMPLES=0
  if [[ $name == kprof ]]; then
    V_BYTES=$(filesize "$W/$tag.kprof"); V_SAMPLES=$(kprof_samples "$W/$tag.kprof")
  elif [[ $name == perf ]]; then
    V_BYTES=$(filesize "$W/$tag.data"); V_SAMPLES=$(perf_samples "$W/$tag.data")
  fi
}

# fixed_bytes TAG: sizes of a kprof and a perf profile of `true` (same
# PROFILE_FLAGS), as "KPROF_BYTES PERF_BYTES".
fixed_bytes() {
  "$KPROF" record "${KPROF_ARGS[@]}" "${PROFILE_FLAGS[@]}" -F "$FREQ" -o "$W/$1-true.kprof" -- true \
    >"$W/$1-true.log" 2>&1 || die "kprof record -- true failed, see $W/$1-true.log"
  perf record -e cpu-clock "${PERF_ARGS[@]}" "${PROFILE_FLAGS[@]}" -F "$FREQ" -o "$W/$1-true.data" -- true \
    >>"$W/$1-true.log" 2>&1 || die "perf record -- true failed, see $W/$1-true.log"
  echo "$(filesize "$W/$1-true.kprof") $(filesize "$W/$1-true.data")"
}

# The variants in rep I's order: rotated each rep, so no variant always runs
# right after another (the machine drifts within a run: caches, other load).
variants_for_rep() {
  local all=(bare kprof perf) k=$(( ($1 - 1) % 3 ))
  echo "${all[@]:k}" "${all[@]:0:k}"
}

# paired_slowdown METRIC_NAME: median over reps of kprof's slowdown relative
# to perf's in the same rep (> 1: the workload ran slower under kprof).
paired_slowdown() {
  local i ratios=()
  for ((i = 0; i < ${#M_kprof[@]}; i++)); do
    if [[ $1 == tps ]]; then
      ratios+=("$(ratio "${M_perf[i]}" "${M_kprof[i]}")")
    else
      ratios+=("$(ratio "${M_kprof[i]}" "${M_perf[i]}")")
    fi
  done
  median "${ratios[@]}"
}

# summarize WORKLOAD METRIC_NAME: reads arrays M_<variant> (metric per rep,
# higher = slower for "wall", higher = faster for "tps"), P_<variant> (profiler
# CPU), R_<variant> (file bytes), S_<variant> (samples), and FIXED ("KPROF_BYTES
# PERF_BYTES" from fixed_bytes), then adds rows.
summarize() {
  local workload=$1 metric=$2 v
  local bare; bare=$(eval median "\${M_bare[@]}")
  local perf_cpu; perf_cpu=$(eval median "\${P_perf[@]}")
  local fixed_kprof=${FIXED% *} fixed_perf=${FIXED#* }
  for v in bare kprof perf; do
    local m p r s slow fixed
    m=$(eval median "\${M_$v[@]}")
    p=$(eval median "\${P_$v[@]}")
    r=$(eval median "\${R_$v[@]}")
    s=$(eval median "\${S_$v[@]}")
    if [[ $metric == tps ]]; then slow=$(ratio "$bare" "$m"); else slow=$(ratio "$m" "$bare"); fi
    m=$(awk -v m="$m" 'BEGIN { printf "%.2f", m }')
    if [[ $v == bare ]]; then
      ROWS+=("$workload|$v|$m $metric|$slow|-|-|-|-|-")
      continue
    fi
    if [[ $v == kprof ]]; then fixed=$fixed_kprof; else fixed=$fixed_perf; fi
    if [[ $v == kprof ]]; then slow="$slow (paired vs perf $(paired_slowdown "$metric"))"; fi
    ROWS+=("$workload|$v|$m $metric|$slow|$p|$(ratio "$p" "$perf_cpu")|$s|$(ratio "$r" "$s")|$(ratio "$(sub "$r" "$fixed")" "$s") (fixed $fixed)")
  done
}

bench_compile() {
  local src=/usr/src/googletest b=$W/gtest-build
  [[ -f $src/CMakeLists.txt ]] || { echo "skip compile: $src missing"; return; }
  cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release >"$W/gtest-cmake.log" 2>&1 ||
    die "cmake of $src failed, see $W/gtest-cmake.log"
  PROFILE_FLAGS=()
  M_bare=() M_kprof=() M_perf=() P_bare=() P_kprof=() P_perf=()
  R_bare=() R_kprof=() R_perf=() S_bare=() S_kprof=() S_perf=()
  for ((i = 1; i <= REPS; i++)); do
    for v in $(variants_for_rep "$i"); do
      make -C "$b" clean >/dev/null 2>&1
      run_variant "$v" "compile-$v-$i" make -C "$b" -j2 "$GTEST_TARGET"
      eval "M_$v+=($V_WALL) P_$v+=($V_PROF_CPU) S_$v+=($V_SAMPLES)"
      eval "R_$v+=($V_BYTES)"
      echo "compile rep $i $v: wall ${V_WALL}s profiler-cpu ${V_PROF_CPU}s samples $V_SAMPLES bytes $V_BYTES"
    done
  done
  FIXED=$(fixed_bytes compile)
  summarize "compile ($GTEST_TARGET)" "s"
}

bench_pgbench() {
  [[ -x $PG_BIN/initdb ]] || { echo "skip pgbench: no $PG_BIN/initdb"; return; }
  need pgbench runuser
  PGDIR=$(mktemp -d /tmp/kprof-bench-pg.XXXXXX)
  chown postgres "$PGDIR"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDIR/data" -A trust -U postgres \
    >"$W/pg-initdb.log" 2>&1 || die "initdb failed, see $W/pg-initdb.log"
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w \
    -o "-k $PGDIR -c listen_addresses='' -c fsync=off -c synchronous_commit=off" start \
    >"$W/pg-start.log" 2>&1 || die "postgres did not start, see $W/pg-start.log"
  local pg=(-h "$PGDIR" -U postgres)
  pgbench "${pg[@]}" -i -s "$PG_SCALE" postgres >"$W/pg-init.log" 2>&1 ||
    die "pgbench -i failed, see $W/pg-init.log"
  # The server is not the profiler's child: record system-wide.
  PROFILE_FLAGS=(-a)
  M_bare=() M_kprof=() M_perf=() P_bare=() P_kprof=() P_perf=()
  R_bare=() R_kprof=() R_perf=() S_bare=() S_kprof=() S_perf=()
  for ((i = 1; i <= REPS; i++)); do
    for v in $(variants_for_rep "$i"); do
      run_variant "$v" "pgbench-$v-$i" pgbench "${pg[@]}" -c "$PG_CLIENTS" -j 2 -T "$PG_SECONDS" \
        $PG_ARGS postgres
      local tps
      tps=$(grep -oE 'tps = [0-9.]+' "$V_LOG" | head -1 | awk '{print $3}')
      [[ -n $tps ]] || die "no tps in $V_LOG"
      eval "M_$v+=($tps) P_$v+=($V_PROF_CPU) S_$v+=($V_SAMPLES)"
      eval "R_$v+=($V_BYTES)"
      echo "pgbench rep $i $v: tps $tps profiler-cpu ${V_PROF_CPU}s samples $V_SAMPLES bytes $V_BYTES"
    done
  done
  FIXED=$(fixed_bytes pgbench)
  summarize "pgbench ($PG_CLIENTS clients, ${PG_SECONDS}s, -a)" "tps"
  cleanup
  PGDIR=""
}

echo "kprof: $KPROF ${KPROF_ARGS[*]}  perf: $(perf --version) ${PERF_ARGS[*]}   -F $FREQ   reps $REPS   raw: $W"
case $WHAT in
  compile) bench_compile ;;
  pgbench) bench_pgbench ;;
  all) bench_compile; bench_pgbench ;;
  *) die "unknown workload '$WHAT' (compile, pgbench or all)" ;;
esac

{
  echo "# overhead, $(date -Is), $(uname -r), -F $FREQ, median of $REPS"
  printf '%s\n' "workload|variant|median|slowdown vs bare|profiler CPU s|CPU vs perf|samples|bytes/sample|marginal bytes/sample" \
    "${ROWS[@]}" | table
} | tee "$RESULT"
rm -rf "$W/gtest-build"
echo "written: $RESULT"
