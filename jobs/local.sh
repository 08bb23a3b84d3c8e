#!/usr/bin/env bash
# local.sh — the scaling studies on this machine: strong and weak, over
# thread counts 1, 2, 4, ... up to the cores (and ranks when mpirun is
# found and RANKS is given), then collects them into one CSV and plot.
#
#   jobs/local.sh [--dry-run] [OUT]        default OUT: results-local-DATE
#   RANKS="1 2" THREADS="1 2" OBJECTS=60 STEPS=30 REPS=3 jobs/local.sh
#
# Uses build/bin/clash unless CLASH names another executable.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dry=()
out=""
for a in "$@"; do
    case "$a" in
        --dry-run) dry=(--dry-run) ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        -*) echo "local.sh: error: unknown option '$a'" >&2; exit 2 ;;
        *) out="$a" ;;
    esac
done
out="${out:-results-local-$(date +%Y%m%d-%H%M%S)}"
cores="$(nproc)"
threads=""
t=1
while [ "$t" -le "$cores" ]; do threads="$threads $t"; t=$((t * 2)); done
case " $threads " in *" $cores "*) ;; *) threads="$threads $cores" ;; esac
clash="${CLASH:-$here/build/bin/clash}"
common=(--launcher local --ranks "${RANKS:-1}" --threads "${THREADS:-$threads}" --steps "${STEPS:-30}"
        --reps "${REPS:-3}" --clash "$clash" --out "$out" "${dry[@]}")
"$here/jobs/study.sh" --study strong --objects "${OBJECTS:-60}" "${common[@]}"
"$here/jobs/study.sh" --study weak --objects "$(( ${OBJECTS:-60} / 2 ))" "${common[@]}"
"$here/jobs/collect.sh" "${dry[@]}" "$out"
