#!/usr/bin/env bash
# study.sh — run a strong or weak scaling study of `clash run` over
# ranks x threads, with one launcher: local, srun, mpirun or likwid.
#
# Every configuration (R ranks, T threads) is run REPS times on the
# `cluttered` preset and leaves a run report (YAML, `clash run --report`)
# named STUDY-rR-tT-kK.yaml in OUT; jobs/collect.sh turns those into one CSV
# and a plot.  Strong: the same scene (--objects N) for every configuration.
# Weak: N x R x T objects (N per worker), the same density.  The cluttered
# preset's objects all head for its centre, so contacts grow faster than the
# object count (400 objects: 81,367 pairs over 20 steps; 3,200: 1.88 M, 23x
# for 8x): the work per worker is not constant here.  For a weak study with
# constant work per worker use tiles: `clash bench scaling --weak`
# (jobs/weak-decomposed.sh; also over threads: --ranks 1 --thread-list ...).
#
# Binding: threads get OMP_NUM_THREADS=T, OMP_PLACES=cores,
# OMP_PROC_BIND=close; ranks are bound to T cores each (srun --cpu-bind,
# mpirun --map-by slot:PE=T --bind-to core, likwid-mpirun pins itself).
#
# The Slurm and PBS templates (slurm-*.sbatch, pbs-*.pbs) and the local
# runner (local.sh) call this script; --dry-run prints the commands only.
#
# usage: study.sh --study strong|weak [--launcher local|srun|mpirun|likwid]
#                 [--ranks "1 2"] [--threads "1 2 4"] [--objects N] [--steps S]
#                 [--reps K] [--out DIR] [--clash PATH] [--likwid-group G]
#                 [--max-workers P] [--dry-run]
# --max-workers P skips configurations with R x T > P (the allocation's cores).
set -euo pipefail

study=""
launcher="local"
ranks="1"
threads="1 2"
objects=""
steps=50
reps=3
out=""
clash="${CLASH:-clash}"
group="${LIKWID_GROUP:-MEM}"
dry=0
maxw=0

die() { echo "study.sh: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --study) study="${2:-}"; shift 2 ;;
        --launcher) launcher="${2:-}"; shift 2 ;;
        --ranks) ranks="${2:-}"; shift 2 ;;
        --threads) threads="${2:-}"; shift 2 ;;
        --objects) objects="${2:-}"; shift 2 ;;
        --steps) steps="${2:-}"; shift 2 ;;
        --reps) reps="${2:-}"; shift 2 ;;
        --out) out="${2:-}"; shift 2 ;;
        --clash) clash="${2:-}"; shift 2 ;;
        --likwid-group) group="${2:-}"; shift 2 ;;
        --max-workers) maxw="${2:-}"; shift 2 ;;
        --dry-run) dry=1; shift ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) die "unknown option '$1'" ;;
    esac
done

case "$study" in
    strong) objects="${objects:-200}" ;;
    weak) objects="${objects:-50}" ;;
    *) die "--study: expected strong or weak, got '$study'" ;;
esac
case "$launcher" in local|srun|mpirun|likwid) ;; *) die "--launcher: expected local, srun, mpirun or likwid" ;; esac
case "$maxw" in ''|*[!0-9]*) die "--max-workers: expected an integer, got '$maxw'" ;; esac
for n in $ranks $threads $objects $steps $reps; do
    case "$n" in ''|*[!0-9]*) die "expected positive integers, got '$n'" ;; esac
    [ "$n" -ge 1 ] || die "expected positive integers, got '$n'"
done
out="${out:-results-$study-$(date +%Y%m%d-%H%M%S)}"

run() {
    # Prints the command; runs it unless --dry-run.
    printf '%s\n' "$*"
    if [ "$dry" -eq 0 ]; then
        "$@"
    fi
}

if [ "$dry" -eq 0 ]; then
    mkdir -p "$out"
fi
export OMP_PLACES=cores OMP_PROC_BIND=close

for r in $ranks; do
    for t in $threads; do
        if [ "$maxw" -gt 0 ] && [ $((r * t)) -gt "$maxw" ]; then
            continue
        fi
        n="$objects"
        if [ "$study" = weak ]; then
            n=$((objects * r * t))
        fi
        for k in $(seq 1 "$reps"); do
            report="$out/$study-r$r-t$t-k$k.yaml"
            args=(run --preset cluttered --objects "$n" --seed 1 --steps "$steps" --threads "$t" --quiet --report "$report")
            case "$launcher" in
                local)
                    if [ "$r" -eq 1 ]; then
                        run env OMP_NUM_THREADS="$t" OMP_PLACES=cores OMP_PROC_BIND=close "$clash" "${args[@]}"
                    else
                        run mpirun -n "$r" --map-by "slot:PE=$t" --bind-to core -x OMP_NUM_THREADS="$t" \
                            -x OMP_PLACES -x OMP_PROC_BIND "$clash" "${args[@]}"
                    fi ;;
                srun)
                    run env OMP_NUM_THREADS="$t" srun --ntasks="$r" --cpus-per-task="$t" --cpu-bind=cores \
                        "$clash" "${args[@]}" ;;
                mpirun)
                    run mpirun -n "$r" --map-by "slot:PE=$t" --bind-to core -x OMP_NUM_THREADS="$t" \
                        -x OMP_PLACES -x OMP_PROC_BIND "$clash" "${args[@]}" ;;
                likwid)
                    run likwid-mpirun -np "$r" -t "$t" -omp gnu -g "$group" -m "$clash" "${args[@]}" ;;
            esac
        done
    done
done
echo "study.sh: reports in $out (collect with: jobs/collect.sh $out)" >&2
