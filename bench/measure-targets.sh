#!/usr/bin/env bash
# measure-targets.sh — re-measures the speed targets of issues 4, 5 and 6 in
# one go, variants interleaved, medians of R runs; run it on an idle machine.
#
#   bench/measure-targets.sh [BUILD_DIR] [R] [all|4|5|6]   (default build, 5, all)
#
# Prints one line per figure, with the command behind it; bench/RESULTS.md's
# summary table is copied from this output.  Needs ../shared/data for the
# bunny (skipped with a message otherwise) and mpirun for the rank figures.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
R=${2:-5}
ONLY=${3:-all}   # all | 4 | 5 | 6
C=$B/clash
[ -x "$C" ] || { echo "measure-targets: no $C (build first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BUNNY=../shared/data/meshes/stanford-bunny.obj

s45() { awk '/^  mid:|^  narrow:/{for(i=1;i<=NF;i++) if($i=="{total_s:"){gsub(",","",$(i+1)); t+=$(i+1)}} END{printf "%.6f\n", t}' "$1"; }
med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
# paired EXTRACT CMD...: runs CMD W (W = 1, then 2, R times, interleaved), each
# writing $T/r.yaml; prints the medians of EXTRACT over the runs and their ratio.
paired() {
  local ex=$1 a b
  shift
  : >"$T/p.1"; : >"$T/p.2"
  for _ in $(seq "$R"); do
    for W in 1 2; do
      "$@" "$W"
      "$ex" "$T/r.yaml" >>"$T/p.$W"
    done
  done
  a=$(med <"$T/p.1") b=$(med <"$T/p.2")
  echo "1: $a s, 2: $b s, speed-up $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a/b}')"
}
echo "# measure-targets: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), R=$R"

if [ "$ONLY" = all ] || [ "$ONLY" = 4 ]; then
echo "## issue 4: two bunnies (clash bench bvh part 1 and 2; FCL OBBRSS query)"
if [ -f "$BUNNY" ]; then
  echo "\$ $C bench bvh --mesh $BUNNY --repeat $((2 * R + 1))"
  "$C" bench bvh --mesh "$BUNNY" --repeat $((2 * R + 1)) | grep -E "step|refit|build|boxes"
  if [ -x "$B/clash-peer-fcl-mesh" ]; then
    echo "\$ $B/clash-peer-fcl-mesh $BUNNY --repeat $((2 * R + 1)) --expect 2843"
    "$B/clash-peer-fcl-mesh" "$BUNNY" --repeat $((2 * R + 1)) --expect 2843 | tail -1
  fi
else
  echo "(skipped: $BUNNY not found)"
fi

fi
if [ "$ONLY" = all ] || [ "$ONLY" = 5 ]; then
echo "## issue 5: S1 face boxes on 10^7 faces against the copy bandwidth of the same run"
echo "\$ $C bench bbox --quick --faces 10000000 --threads 1,2 --repeat 7 --out $T/bbox"
"$C" bench bbox --quick --faces 10000000 --threads 1,2 --repeat 7 --out "$T/bbox" 2>&1 | grep -E "^(stream|S1) "
echo "## issue 5: S3 on cluttered 500 objects, 1 and 2 threads stepped side by side (clash bench cull)"
for self in "" --self; do
  echo "\$ $C bench cull --repeat $R $self"
  # shellcheck disable=SC2086 # $self is empty or one word
  "$C" bench cull --repeat "$R" $self | grep -E "T=|where"
done

fi
if [ "$ONLY" = all ] || [ "$ONLY" = 6 ]; then
echo "## issue 6: cluttered 500 objects, S4+S5 (mid + narrow total_s over 20 steps), medians of $R interleaved runs"
A=(--preset cluttered --objects 500 --seed 3 --steps 20 --quiet)
echo "\$ $C run ${A[*]} --threads T --schedule S --report r.yaml"
thrun() { "$C" run "${A[@]}" --threads "$1" --schedule "$sch" --report "$T/r.yaml"; }
for sch in dynamic stealing static-chunk static-stride producer-consumer; do
  echo "threads $sch: $(paired s45 thrun)"
done
if command -v mpirun >/dev/null && "$C" info | grep -q "mpi yes"; then
  echo "\$ mpirun -n N $C run ${A[*]} --threads 1 --schedule dynamic --report r.yaml"
  rkrun() { mpirun -n "$1" "$C" run "${A[@]}" --threads 1 --schedule dynamic --report "$T/r.yaml"; }
  echo "ranks dynamic: $(paired s45 rkrun)"
fi
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
