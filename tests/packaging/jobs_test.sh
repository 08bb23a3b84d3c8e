#!/bin/sh
# jobs_test.sh — tests of the job scripts (registered by tests/packaging/jobs.cmake).
#   jobs_test.sh shellcheck JOBS_DIR
#   jobs_test.sh dry-run JOBS_DIR CLASH WORK_DIR
# Exit 0 pass, 1 fail, 77 skip.
set -u
mode="$1"
jobs="$2"
fail=0
check() { # check DESCRIPTION COMMAND... : fail when the command fails
    what="$1"; shift
    if ! "$@"; then echo "FAIL: $what"; fail=1; fi
}
scripts="$jobs/study.sh $jobs/collect.sh $jobs/local.sh $jobs/slurm-strong.sbatch $jobs/slurm-weak.sbatch $jobs/pbs-strong.pbs $jobs/pbs-weak.pbs $jobs/weak-decomposed.sh $jobs/slurm-weak-decomposed.sbatch $jobs/pbs-weak-decomposed.pbs"

if [ "$mode" = shellcheck ]; then
    if ! command -v shellcheck >/dev/null 2>&1; then
        echo "SKIP: shellcheck not installed"
        exit 77
    fi
    for s in $scripts; do
        check "shellcheck $s" shellcheck -x "$s"
    done
    exit "$fail"
fi

clash="$3"
work="$4"
rm -rf "$work"
mkdir -p "$work"
# Every script prints the commands it would run, and runs nothing.
for s in $jobs/slurm-strong.sbatch $jobs/slurm-weak.sbatch $jobs/pbs-strong.pbs $jobs/pbs-weak.pbs; do
    OUT="$work/dry" CLASH="$clash" bash "$s" --dry-run > "$work/out.txt" 2>&1
    check "$s --dry-run exits 0" test $? -eq 0
    check "$s --dry-run prints clash run commands" grep -q -- "run --preset cluttered" "$work/out.txt"
    check "$s --dry-run binds (srun --cpu-bind or mpirun --bind-to)" grep -q -e "--cpu-bind=cores" -e "--bind-to core" "$work/out.txt"
done
OUT="$work/dry" LAUNCHER=likwid bash "$jobs/slurm-strong.sbatch" --dry-run > "$work/out.txt" 2>&1
check "likwid variant prints likwid-mpirun" grep -q "^likwid-mpirun -np" "$work/out.txt"
check "weak study scales the objects" sh -c "OUT='$work/dry' bash '$jobs/slurm-weak.sbatch' --dry-run | grep -q -- '--objects 3200'"
CLASH="$clash" bash "$jobs/local.sh" --dry-run "$work/dry" > "$work/out.txt" 2>&1
check "local.sh --dry-run" grep -q "OMP_PROC_BIND=close" "$work/out.txt"
check "collect.sh --dry-run" sh -c "bash '$jobs/collect.sh' --dry-run '$work/dry' | grep -q gnuplot"
check "dry runs write nothing" test ! -e "$work/dry"
# The decomposed weak-scaling templates (issue 18), 1 to 64 nodes of 16 cores:
# the bench command with the rank counts 1, 2, 4, ... 16 N and the launcher.
for n in 1 2 3 4 8 16 32 64; do
    for s in $jobs/slurm-weak-decomposed.sbatch $jobs/pbs-weak-decomposed.pbs; do
        NODES=$n OUT="$work/dry" CLASH="$clash" bash "$s" --dry-run > "$work/out.txt" 2>&1
        check "$s --dry-run for $n nodes exits 0" test $? -eq 0
        last=$((16 * n))
        check "$s --dry-run for $n nodes runs bench scaling --weak up to $last ranks" \
            grep -Eq -- "bench scaling --weak --decompose objects --ranks 1(,[0-9]+)*,$last " "$work/out.txt"
        check "$s --dry-run binds" grep -q -e "--cpu-bind=cores" -e "--bind-to core" "$work/out.txt"
    done
done
NODES=65 bash "$jobs/slurm-weak-decomposed.sbatch" --dry-run > /dev/null 2>&1
check "slurm-weak-decomposed: 65 nodes exits 2" test $? -eq 2
# Bad options: exit 2.
bash "$jobs/study.sh" --study sideways > /dev/null 2>&1
check "study.sh: bad --study exits 2" test $? -eq 2
bash "$jobs/study.sh" --study strong --threads "1 x" > /dev/null 2>&1
check "study.sh: bad --threads exits 2" test $? -eq 2
# A tiny real study and its collection.
bash "$jobs/study.sh" --study strong --threads "1 2" --objects 6 --steps 3 --reps 2 --clash "$clash" --out "$work/real" > /dev/null 2>&1
check "tiny strong study runs" test -f "$work/real/strong-r1-t2-k2.yaml"
bash "$jobs/study.sh" --study weak --threads "1 2" --objects 4 --steps 3 --reps 1 --clash "$clash" --out "$work/real" > /dev/null 2>&1
check "tiny weak study runs" test -f "$work/real/weak-r1-t2-k1.yaml"
bash "$jobs/collect.sh" "$work/real" > /dev/null 2>&1
check "collect.sh exits 0" test $? -eq 0
check "runs.csv has 6 reports" test "$(tail -n +2 "$work/real/runs.csv" | wc -l)" -eq 6
check "scaling.csv has 4 configurations" test "$(tail -n +2 "$work/real/scaling.csv" | wc -l)" -eq 4
check "weak study at 2 workers ran 8 objects" grep -q "^weak,1,2,2,8," "$work/real/scaling.csv"
check "strong baseline speedup is 1" grep -q "^strong,1,1,1,6,2,[0-9.e-]*,1,1$" "$work/real/scaling.csv"
bash "$jobs/collect.sh" "$work/none" > /dev/null 2>&1
check "collect.sh: missing folder exits 2" test $? -eq 2
[ "$fail" -eq 0 ] && echo "jobs_test: all checks passed"
exit "$fail"
