#!/usr/bin/env bash
# measure-threads.sh — strong scaling of the swept step on three generated
# scenes: each scene at each thread count, R runs, the thread counts in turn
# within a run so that every count sees the same machine.
#
#   bench/measure-threads.sh [BUILD_DIR] [R] [THREADS]
#       (default build, 2 runs, THREADS "1 2 4 8 12 16"; counts above the
#        machine's cores oversubscribe it)
#
# The scenes (SCENES="name:options;..." replaces them):
#   3.0M  --preset cluttered --objects 1000 --detail 3000 --density 0.1 --steps 20 --seed 1
#   0.9M  --preset cluttered --objects 300 --detail 3000 --density 0.1 --steps 10 --seed 1
#   0.9Ms --preset cluttered --objects 2000 --detail 500 --density 0.2 --steps 10 --seed 7
# Threads are pinned one a core (OMP_PLACES=cores OMP_PROC_BIND=close,
# unless the environment sets them).  One line a run (the stage medians over
# its steps, bench/stages.awk), then a table: per scene and thread count the
# median over the R runs of the step median and of S3 (cull), S4 (mid),
# S5 (narrow) and S6 (gather), in ms, and the speed-up against the first
# thread count.  Every run's pairs checksum must be its scene's first, or
# the script stops with status 1: the pairs do not depend on the threads.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
R=${2:-2}
TH=${3:-1 2 4 8 12 16}
C=$B/clash
[ -x "$C" ] || { echo "measure-threads: no $C (build first)" >&2; exit 2; }
case $R in '' | *[!0-9]* | 0) echo "measure-threads: R must be a positive integer, got '$R'" >&2; exit 2 ;; esac
for t in $TH; do
  case $t in *[!0-9]* | 0) echo "measure-threads: thread counts must be positive integers, got '$t'" >&2; exit 2 ;; esac
done
export OMP_PLACES=${OMP_PLACES:-cores} OMP_PROC_BIND=${OMP_PROC_BIND:-close}
SC=${SCENES:-3.0M:--preset cluttered --objects 1000 --detail 3000 --density 0.1 --steps 20 --seed 1;0.9M:--preset cluttered --objects 300 --detail 3000 --density 0.1 --steps 10 --seed 1;0.9Ms:--preset cluttered --objects 2000 --detail 500 --density 0.2 --steps 10 --seed 7}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
med() { sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "# measure-threads: $(date -u +%FT%TZ), $(nproc) CPUs, R=$R, threads $TH, $("$C" info 2>/dev/null | grep -m1 "^machine" || true)"
IFS=';' read -r -a scenes <<<"$SC"
for r in $(seq "$R"); do
  for s in "${scenes[@]}"; do
    name=${s%%:*}
    read -r -a opt <<<"${s#*:}"
    for t in $TH; do
      "$C" run "${opt[@]}" --threads "$t" --steps-csv "$T/s.csv" --report "$T/r.yaml" --quiet
      sum=$(grep -o 'pairs_checksum: "[0-9a-f]*"' "$T/r.yaml" | cut -d'"' -f2)
      [ -f "$T/ref.$name" ] || echo "$sum" >"$T/ref.$name"
      if [ "$sum" != "$(cat "$T/ref.$name")" ]; then
        echo "measure-threads: $name, $t threads, run $r: pairs checksum $sum, first run $(cat "$T/ref.$name")" >&2
        exit 1
      fi
      st=$(awk -f bench/stages.awk "$T/s.csv")
      echo "$name $t $(field step <<<"$st") $(field cull <<<"$st") $(field mid <<<"$st") $(field narrow <<<"$st") $(field gather <<<"$st")" >>"$T/runs"
      echo "$name T=$t run $r $sum $st"
    done
  done
done
echo "scene threads step(speed-up) S3 S4 S5 S6   (ms, medians over $R runs)"
for s in "${scenes[@]}"; do
  name=${s%%:*} one=""
  for t in $TH; do
    row=""
    for k in 3 4 5 6 7; do row="$row $(awk -v n="$name" -v t="$t" -v k="$k" '$1 == n && $2 == t { print $k }' "$T/runs" | med)"; done
    read -r st s3 s4 s5 s6 <<<"$row"
    [ -n "$one" ] || one=$st
    printf '%s %s %s(%.2f) %s %s %s %s\n' "$name" "$t" "$st" "$(awk -v a="$one" -v b="$st" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$s3" "$s4" "$s5" "$s6"
  done
  echo "$name pairs checksum $(cat "$T/ref.$name") at every thread count"
done
