#!/usr/bin/env bash
# collect.sh — turn a scaling study's run reports into one CSV and a plot.
#
# Reads every STUDY-rR-tT-kK.yaml (run reports written by `clash run
# --report`, as jobs/study.sh names them) in DIR and writes:
#   DIR/runs.csv     one row per report: study, ranks, threads, workers,
#                    objects, steps, wall_s, pairs_checksum, ranks_reported
#   DIR/scaling.csv  one row per study and configuration: the median wall_s
#                    over repetitions, speedup t(1)/t(p) and efficiency
#                    (strong: speedup/p; weak: t(1)/t(p))
#   DIR/scaling.png  speedup (strong) and efficiency (weak) against workers,
#                    when gnuplot is installed (else a message, no plot)
# The checksums of a strong study must all agree (clash is deterministic
# across ranks and threads); a disagreement is reported and exits 1.
#
# usage: collect.sh [--dry-run] DIR
set -euo pipefail

dry=0
dir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1; shift ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        -*) echo "collect.sh: error: unknown option '$1'" >&2; exit 2 ;;
        *) dir="$1"; shift ;;
    esac
done
[ -n "$dir" ] || { echo "collect.sh: error: name the study folder" >&2; exit 2; }

run() {
    printf '%s\n' "$*"
    if [ "$dry" -eq 0 ]; then
        "$@"
    fi
}

if [ "$dry" -eq 1 ]; then
    echo "# would read $dir/{strong,weak}-r*-t*-k*.yaml and write $dir/runs.csv, $dir/scaling.csv"
    echo "gnuplot $dir/scaling.gp"
    exit 0
fi
[ -d "$dir" ] || { echo "collect.sh: error: $dir: no such folder" >&2; exit 2; }

shopt -s nullglob
reports=("$dir"/strong-r*-t*-k*.yaml "$dir"/weak-r*-t*-k*.yaml)
[ "${#reports[@]}" -gt 0 ] || { echo "collect.sh: error: $dir: no run reports (STUDY-rR-tT-kK.yaml)" >&2; exit 2; }

tmp="$dir/runs.csv.tmp.$$"
echo "study,ranks,threads,workers,objects,steps,wall_s,pairs_checksum,ranks_reported" > "$tmp"
for f in "${reports[@]}"; do
    base="$(basename "$f" .yaml)"
    study="${base%%-*}"
    r="${base#*-r}"; r="${r%%-*}"
    t="${base#*-t}"; t="${t%%-*}"
    awk -v study="$study" -v r="$r" -v t="$t" '
        /^scene:/   { if (match($0, /objects: [0-9]+/)) objects = substr($0, RSTART + 9, RLENGTH - 9) }
        /^machine:/ { if (match($0, /ranks: [0-9]+/)) rr = substr($0, RSTART + 7, RLENGTH - 7) }
        /^steps:/   { steps = $2 }
        /^wall_s:/  { wall = $2 }
        /^pairs_checksum:/ { sum = $2; gsub(/"/, "", sum) }
        END { if (wall == "") exit 1
              printf "%s,%d,%d,%d,%s,%s,%s,%s,%s\n", study, r, t, r * t, objects, steps, wall, sum, rr }
    ' "$f" >> "$tmp" || { echo "collect.sh: error: $f: not a clash run report" >&2; rm -f "$tmp"; exit 2; }
done
mv "$tmp" "$dir/runs.csv"

# Median per (study, ranks, threads); speedup and efficiency against 1 x 1.
tmp="$dir/scaling.csv.tmp.$$"
tail -n +2 "$dir/runs.csv" | sort -t, -k1,1 -k4,4n -k2,2n -k3,3n -k7,7g | awk -F, '
    function flush() {
        if (n == 0) return
        m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        if (w == 1 && rk == 1) base[st] = m
        b = (st in base) ? base[st] : m
        sp = b / m
        eff = (st == "strong") ? sp / w : sp
        printf "%s,%d,%d,%d,%s,%d,%.6g,%.4g,%.4g\n", st, rk, th, w, obj, n, m, sp, eff
        n = 0
    }
    BEGIN { print "study,ranks,threads,workers,objects,reps,median_wall_s,speedup,efficiency" }
    { key = $1 "," $2 "," $3
      if (key != last) { flush(); last = key }
      st = $1; rk = $2; th = $3; w = $4; obj = $5; v[++n] = $7 }
    END { flush() }' > "$tmp"
mv "$tmp" "$dir/scaling.csv"

# Determinism: one checksum per strong study.
sums="$(awk -F, '$1 == "strong" { print $8 }' "$dir/runs.csv" | sort -u | wc -l)"
if [ "$sums" -gt 1 ]; then
    echo "collect.sh: error: the strong study's checksums disagree (see $dir/runs.csv)" >&2
    exit 1
fi

cat > "$dir/scaling.gp" <<'EOF'
set terminal pngcairo size 1000,450
set output 'scaling.png'
set datafile separator ','
set multiplot layout 1,2
set grid
set xlabel 'workers (ranks x threads)'
set title 'strong scaling: speedup'
set key top left
plot x with lines dt 2 lc rgb 'gray' title 'ideal', \
     'scaling.csv' using 4:(strcol(1) eq 'strong' ? $8 : 1/0) with linespoints lw 2 pt 7 title 'clash'
set title 'weak scaling: efficiency t(1)/t(p)'
set yrange [0:1.2]
set key bottom left
plot 1 with lines dt 2 lc rgb 'gray' title 'ideal', \
     'scaling.csv' using 4:(strcol(1) eq 'weak' ? $9 : 1/0) with linespoints lw 2 pt 7 title 'clash'
unset multiplot
EOF
if command -v gnuplot >/dev/null 2>&1; then
    (cd "$dir" && run gnuplot scaling.gp)
    echo "collect.sh: $dir/runs.csv, $dir/scaling.csv, $dir/scaling.png" >&2
else
    echo "collect.sh: gnuplot not found; plot skipped ($dir/scaling.gp left for later)" >&2
fi
