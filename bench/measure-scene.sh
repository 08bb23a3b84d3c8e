#!/usr/bin/env bash
# measure-scene.sh — issue 17's 3.0 M-face step (1,000 cluttered spheres of
# 3,024 faces, density 0.1, swept, 20 steps) at 2 and at 1 thread, the two
# runs in turn in each of R rounds, so that both see the same machine.
#
#   bench/measure-scene.sh [BUILD_DIR] [R] [CLASH RUN OPTIONS...]
#       (default build, 5 rounds; options after R go to every run, e.g.
#        --backend pthreads; SCENE="..." replaces the scene's options)
#
# One line a round: per thread count the median over the 20 steps of each
# stage and of the step (ms), and the speed-up from 1 to 2 threads, from the
# step medians and from the sums of the 20 steps; then the medians over the
# rounds.  Every run's pairs checksum must be the first run's, or the script
# stops with status 1: the same pairs at 1 and 2 threads.  On a shared
# machine compare rounds, not single runs (bench/RESULTS.md, 2026-11-28).
#
# Each round also probes the two CPUs (PROBE=0: not): the scene's first 12
# steps at 1 thread twice at once, one run pinned to CPU 0 and one to CPU 1
# (taskset), before the round and after it; "cpu1/cpu0" is the ratio of
# their speeds (step times summed).  Two processes share nothing but the
# machine, so a ratio away from 1 is one CPU running slower than the other,
# not the program.  A probe is a snapshot: on the 2-core virtual machine of
# bench/RESULTS.md the ratio went from 0.74 to 1.42 within minutes and a
# round a few seconds later could be fast or slow whatever it read, so it
# shows that the machine moves, not which rounds to keep.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}/bin
R=${2:-5}
shift $(($# < 2 ? $# : 2))
C=$B/clash
[ -x "$C" ] || { echo "measure-scene: no $C (build first)" >&2; exit 2; }
case $R in '' | *[!0-9]* | 0) echo "measure-scene: R must be a positive integer, got '$R'" >&2; exit 2 ;; esac
read -r -a SC <<<"${SCENE:---preset cluttered --objects 1000 --detail 3000 --density 0.1 --steps 20}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# stages CSV: the median of every *_s column over the steps (ms) and the sum
# of step_s, "name=value" pairs on one line (bench/stages.awk)
stages() { awk -f bench/stages.awk "$1"; }
# The CPUs' speed ratio: CPU 1's over CPU 0's, two pinned 1-thread runs at once.
probe() {
  [ "${PROBE:-1}" = 0 ] || [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null && { echo "-"; return; }
  local p=(--preset cluttered --objects 1000 --detail 3000 --density 0.1 --steps 12 --threads 1 --quiet)
  taskset -c 0 "$C" run "${p[@]}" --steps-csv "$T/p0.csv" &
  taskset -c 1 "$C" run "${p[@]}" --steps-csv "$T/p1.csv"
  wait
  awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "step_s") c = i; next }
           { s[FILENAME == ARGV[1]] += $c }
           END { printf "%.3f", (s[0] > 0 ? s[1] / s[0] : 0) }' "$T/p0.csv" "$T/p1.csv"
}
field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
med() { sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "# measure-scene: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), R=$R: clash run ${SC[*]} $*"
ref="" s1="" s2=""
for r in $(seq "$R"); do
  pb=$(probe)
  line="round $r"
  for th in 2 1; do
    "$C" run "${SC[@]}" --threads "$th" --steps-csv "$T/s.csv" --report "$T/r.yaml" --quiet "$@"
    sum=$(grep -o 'pairs_checksum: "[0-9a-f]*"' "$T/r.yaml" | cut -d'"' -f2)
    [ -z "$ref" ] && ref=$sum
    if [ "$sum" != "$ref" ]; then
      echo "measure-scene: round $r, $th threads: pairs checksum $sum, first run $ref" >&2
      exit 1
    fi
    st=$(stages "$T/s.csv")
    if [ "$th" = 2 ]; then s2=$st; else s1=$st; fi
    line="$line | ${th}T $st"
  done
  a=$(field step <<<"$s1") b=$(field step <<<"$s2") sa=$(field sum <<<"$s1") sb=$(field sum <<<"$s2")
  pa=$(probe)
  echo "$a $b $sa $sb $pb $pa" >>"$T/rounds"
  echo "$line | 1->2 $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') (sums $(awk -v a="$sa" -v b="$sb" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')) | cpu1/cpu0 $pb, $pa"
done
m2=$(cut -d' ' -f2 "$T/rounds" | med) m1=$(cut -d' ' -f1 "$T/rounds" | med)
sp=$(awk '{ printf "%.4f\n", ($2 > 0 ? $1 / $2 : 0) }' "$T/rounds" | med) ss=$(awk '{ printf "%.4f\n", ($4 > 0 ? $3 / $4 : 0) }' "$T/rounds" | med)
echo "medians over $R rounds: step 2T $m2 ms, 1T $m1 ms, 1->2 $sp (sums $ss); pairs checksum $ref at 1 and 2 threads"
if [ "$(cut -d' ' -f5 "$T/rounds" | head -1)" != "-" ]; then
  echo "cpu1/cpu0 over the rounds' probes: $(cut -d' ' -f5,6 "$T/rounds" | tr ' ' '\n' | sort -g | sed -n '1p;$p' | paste -sd' ' | sed 's/ / to /')"
fi
