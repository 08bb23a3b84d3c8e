#!/usr/bin/env bash
# tsan_mpi.sh — multi-rank, multi-thread runs of a ThreadSanitizer build of
# clash (CI, issue 9): zero TSan reports, and the pairs of every run equal to
# the 1-rank file.
#
#   tsan_mpi.sh CLASH_BIN [MESH_DATA_DIR]
#
# CLASH_BIN must be built with -fsanitize=thread, with MPI and without OpenMP
# (libgomp is not TSan-instrumented), so the threads are the pthreads pool's.
# Runs `mpirun -n 2` and `mpirun -n 3 --oversubscribe` of `clash run --threads 2
# --backend pthreads` for four schedules, then tests/mpi/test_faults_mpi.sh (a bad
# scene on one rank, a rank killed, ...) with the same binary.  Every rank runs
# with TSAN_OPTIONS halt_on_error=1 exitcode=66, so a report fails the rank and
# mpirun's status, and writes the report to a log file (log_path), which this
# script prints and fails on even where the launcher's status cannot tell (the
# fault cases expect non-zero).  Suppressions: tests/mpi/tsan_mpi.supp (Open MPI's
# own internals only).
set -u
BIN=${1:?usage: tsan_mpi.sh CLASH_BIN [MESH_DATA_DIR]}
HERE=$(cd "$(dirname "$0")" && pwd)
MESH=${2:-$HERE/../fixtures/mesh}
command -v mpirun >/dev/null || { echo "tsan_mpi: mpirun not found" >&2; exit 1; }
"$BIN" info | grep -q 'mpi yes' || { echo "tsan_mpi: $BIN was built without MPI" >&2; exit 1; }
"$BIN" info | grep -q 'fsanitize=thread' || { echo "tsan_mpi: $BIN was not built with -fsanitize=thread" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/clash-tsan-mpi.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir "$W/tsan"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 log_path=$W/tsan/report suppressions=$HERE/tsan_mpi.supp"
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
args=(run --preset cluttered --objects 120 --seed 7 --steps 8 --quiet)

"$BIN" "${args[@]}" --threads 1 --pairs "$W/ref.csv" || fail "1-rank run: status $?"
[ "$(wc -l <"$W/ref.csv" 2>/dev/null || echo 0)" -ge 2 ] || fail "the 1-rank run found no pairs: the comparison could not fail"

for n in 2 3; do
  for sch in dynamic static-stride stealing producer-consumer; do
    out=$W/r${n}_$sch
    timeout -k 5 300 mpirun --oversubscribe -n "$n" "$BIN" "${args[@]}" --threads 2 --backend pthreads \
      --decompose replicated --schedule "$sch" --pairs "$out.csv" --report "$out.yaml" >"$out.log" 2>&1
    st=$?
    if [ "$st" != 0 ]; then
      fail "mpirun -n $n $sch: status $st (66: a TSan report, printed below): $(tail -c 1500 "$out.log")"
    elif ! grep -q "ranks: $n, threads: 2" "$out.yaml"; then
      fail "mpirun -n $n $sch: the report does not say ranks: $n, threads: 2"
    elif ! cmp -s "$W/ref.csv" "$out.csv"; then
      fail "mpirun -n $n $sch: pairs differ from the 1-rank file"
    else
      echo "tsan_mpi: ranks $n x threads 2, $sch: no report, pairs identical"
    fi
  done
done

# The scene shared out over the ranks (issue 18): each rank's part in its own
# one-rank run on 2 threads; pairs equal to the 1-rank file.
for n in 2 3; do
  out=$W/dec$n
  timeout -k 5 300 mpirun --oversubscribe -n "$n" "$BIN" "${args[@]}" --threads 2 --backend pthreads \
    --decompose objects --pairs "$out.csv" --report "$out.yaml" >"$out.log" 2>&1
  st=$?
  if [ "$st" != 0 ]; then
    fail "mpirun -n $n --decompose objects: status $st (66: a TSan report): $(tail -c 1500 "$out.log")"
  elif ! cmp -s "$W/ref.csv" "$out.csv"; then
    fail "mpirun -n $n --decompose objects: pairs differ from the 1-rank file"
  else
    echo "tsan_mpi: ranks $n x threads 2, --decompose objects: no report, pairs identical"
  fi
done

# The MPI fault scenarios with the TSan binary (their own pass/fail, plus no report).
"$HERE/test_faults_mpi.sh" "$BIN" "$MESH" || fail "test_faults_mpi.sh under TSan: status $?"

if [ -n "$(ls -A "$W/tsan")" ]; then
  for f in "$W"/tsan/*; do echo "---- $f" >&2; cat "$f" >&2; done
  fail "ThreadSanitizer reports (above)"
fi
echo "tsan_mpi: $failed failed"
[ "$failed" = 0 ]
