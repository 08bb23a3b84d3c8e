#!/usr/bin/env bash
# weak-decomposed.sh — weak scaling of clash with the scene shared out over
# the ranks (issue 18): `clash bench scaling --weak` on 1 to NODES nodes.
#
# The bench runs p = R ranks x 1 thread on p tiles of the cluttered preset
# (OBJECTS per tile, one tile per rank), each configuration with
# `clash run --decompose objects`, repetitions alternated, and writes
# OUT/scaling_weak_objects.csv (time per step, efficiency, candidates per
# worker, bytes sent per step, imbalance, peak memory).  Rank counts: 1, 2,
# 4, ... up to NODES x RANKS_PER_NODE (and that count itself).  The ranks of
# each configuration are started by the launcher given to the bench in
# CLASH_MPIRUN: "srun --cpu-bind=cores" (Slurm) or "mpirun --map-by core
# --bind-to core" (PBS, or any machine with Open MPI).  OUT must be on a file
# system every node sees (the tiled scenes are written there).
#
# The Slurm and PBS templates (slurm-weak-decomposed.sbatch,
# pbs-weak-decomposed.pbs) call this script; --dry-run prints the command
# only and writes nothing.
#
# usage: weak-decomposed.sh --nodes N [--ranks-per-node P] [--launcher srun|mpirun]
#                           [--objects N] [--steps S] [--reps K] [--out DIR]
#                           [--clash PATH] [--dry-run]
set -euo pipefail

nodes=""
per_node=16
launcher=srun
objects=1000
steps=20
reps=5
out=""
clash="${CLASH:-clash}"
dry=0

die() { echo "weak-decomposed.sh: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --nodes) nodes="${2:-}"; shift 2 ;;
        --ranks-per-node) per_node="${2:-}"; shift 2 ;;
        --launcher) launcher="${2:-}"; shift 2 ;;
        --objects) objects="${2:-}"; shift 2 ;;
        --steps) steps="${2:-}"; shift 2 ;;
        --reps) reps="${2:-}"; shift 2 ;;
        --out) out="${2:-}"; shift 2 ;;
        --clash) clash="${2:-}"; shift 2 ;;
        --dry-run) dry=1; shift ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) die "unknown option '$1'" ;;
    esac
done

for n in "$nodes" "$per_node" "$objects" "$steps" "$reps"; do
    case "$n" in ''|*[!0-9]*) die "expected positive integers, got '$n'" ;; esac
    [ "$n" -ge 1 ] || die "expected positive integers, got '$n'"
done
[ "$nodes" -le 64 ] || die "--nodes: at most 64 (the templates are written for 1 to 64 nodes), got $nodes"
[ "$objects" -ge 2 ] || die "--objects: at least 2 per worker"
case "$launcher" in
    srun) mpi="srun --cpu-bind=cores" ;;
    mpirun) mpi="mpirun --map-by core --bind-to core" ;;
    *) die "--launcher: expected srun or mpirun, got '$launcher'" ;;
esac
out="${out:-results-weak-decomposed-$(date +%Y%m%d-%H%M%S)}"

total=$((nodes * per_node))
ranks="1"
r=1
while [ $((r * 2)) -le "$total" ]; do
    r=$((r * 2))
    ranks="$ranks,$r"
done
[ "$r" -eq "$total" ] || ranks="$ranks,$total"

cmd=(env "CLASH_MPIRUN=$mpi" OMP_NUM_THREADS=1 "$clash" bench scaling --weak --decompose objects
     --ranks "$ranks" --thread-list 1 --objects "$objects" --steps "$steps" --reps "$reps" --out "$out" --quiet)
printf '%s\n' "${cmd[*]}"
if [ "$dry" -eq 0 ]; then
    "${cmd[@]}"
    echo "weak-decomposed.sh: results in $out/scaling_weak_objects.csv" >&2
fi
