#!/usr/bin/env bash
# test_faults_mpi.sh — faults of a multi-rank run: every rank must stop with a
# clear message and a non-zero status within seconds, never hang.
#
#   test_faults_mpi.sh CLASH_BIN MESH_DATA_DIR
#
# Cases (each under `timeout`, so a hang fails the test instead of the CI):
#   - a bad scene on one rank only (MPMD launch: rank 0 gets a good scene,
#     rank 1 a broken one): non-zero status, "clash: error:" naming the file;
#   - a missing scene file on one rank only, and on all ranks;
#   - a missing mesh file named by the scene;
#   - a refusal every rank meets (a value out of range, a missing file, a law
#     leaving float range, an unknown option) is printed once, by rank 0; one
#     met by one rank only is printed by that rank with its number;
#   - a rank killed (SIGKILL) in the middle of a long run: the launcher and
#     the surviving rank exit non-zero, and no final output file exists;
#     with the scene decomposed over the ranks (--decompose objects, the
#     default on more than one rank) and with it replicated.
# The whole job must end within LIMIT seconds of the fault.
#
# Skips (exit 77) when mpirun is missing, when the build has no MPI, or when
# a 2-rank run reports "ranks: 1" (clash not yet rank-aware: sched/ranks.c).
set -u
BIN=${1:?usage: test_faults_mpi.sh CLASH_BIN MESH_DATA_DIR}
MESH=${2:?usage: test_faults_mpi.sh CLASH_BIN MESH_DATA_DIR}
LIMIT=${CLASH_FAULT_LIMIT:-20}
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
"$BIN" info | grep -q 'mpi yes' || { echo "SKIP: clash built without MPI"; exit 77; }
MPIRUN=(mpirun --oversubscribe)
# Under AddressSanitizer (CI's Debug ASan tree) Open MPI's own allocations
# at exit are reported as leaks and turn every rank's status into 1: the
# memory errors stay checked, the leak check is left to the one-rank tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
[ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)
W=$(mktemp -d "${TMPDIR:-/tmp}/clash-faults-mpi.XXXXXX")
trap 'rm -rf "$W"' EXIT

timeout -k 5 60 "${MPIRUN[@]}" -n 2 "$BIN" run --preset ktk94-table1 --steps 2 --quiet \
  --report "$W/probe.yaml" >"$W/probe.out" 2>&1
if ! grep -q 'ranks: 2' "$W/probe.yaml" 2>/dev/null; then
  echo "SKIP: a 2-rank run does not report ranks: 2 (clash not rank-aware yet)"; exit 77
fi
rm -f "$W/probe.yaml"

checks=0 failed=0
check() { checks=$((checks + 1)); if [ "$1" != 0 ]; then failed=$((failed + 1)); echo "FAIL: $2" >&2; fi; }

# expect_fail NAME PATTERN MPIRUN-ARGS...: non-zero, in time, message, no output
expect_fail() {
  local name=$1 pat=$2; shift 2
  rm -rf "$W/out"; mkdir -p "$W/out"
  local t0=$SECONDS
  timeout -k 5 "$LIMIT" "${MPIRUN[@]}" "$@" >"$W/$name.log" 2>&1
  local st=$? dt=$((SECONDS - t0))
  check $((st != 0 && st != 124 && st != 137 ? 0 : 1)) "$name: status $st after ${dt} s (124/137: hung)"
  grep -Eq "clash: error: .*$pat" "$W/$name.log"
  check $? "$name: no message matching '$pat': $(head -c 2000 "$W/$name.log")"
  [ -z "$(ls -A "$W/out")" ]; check $? "$name: files left behind: $(ls "$W/out")"
}
OUTS=(--quiet --pairs "$W/out/pairs.csv" --report "$W/out/report.yaml")

cat >"$W/good.json" <<'EOF'
{"format": "clash-scene/1", "steps": 5, "meshes": {"s": {"sphere": {"faces": 168}}},
 "objects": [{"mesh": "s", "position": [0, 0, 0]}, {"mesh": "s", "position": [1.5, 0, 0]}]}
EOF
printf '{"format": "clash-scene/1", "meshes": {' >"$W/bad.json"
cat >"$W/missing_mesh.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"m": {"file": "no/such/mesh.obj"}}, "objects": [{"mesh": "m"}]}
EOF

expect_fail bad_scene_one_rank "bad.json" \
  -n 1 "$BIN" run "$W/good.json" "${OUTS[@]}" : -n 1 "$BIN" run "$W/bad.json" "${OUTS[@]}"
# the same with every rank holding the whole scene (the default is --decompose objects)
expect_fail bad_scene_one_rank_replicated "bad.json" \
  -n 1 "$BIN" run "$W/good.json" "${OUTS[@]}" --decompose replicated : \
  -n 1 "$BIN" run "$W/bad.json" "${OUTS[@]}" --decompose replicated
expect_fail missing_scene_one_rank "nope.json" \
  -n 1 "$BIN" run "$W/good.json" "${OUTS[@]}" : -n 1 "$BIN" run "$W/nope.json" "${OUTS[@]}"
expect_fail missing_scene_all "nope.json" -n 2 "$BIN" run "$W/nope.json" "${OUTS[@]}"
expect_fail missing_mesh "no/such/mesh.obj" -n 2 "$BIN" run "$W/missing_mesh.json" "${OUTS[@]}"

# ---- a refusal every rank meets is printed once, by rank 0 -----------------------
# expect_lines NAME PATTERN N MPIRUN-ARGS...: exit status 2 and exactly N lines "clash: error: ..."
# in the output, each matching PATTERN
expect_lines() {
  local name=$1 pat=$2 n=$3; shift 3
  timeout -k 5 "$LIMIT" "${MPIRUN[@]}" "$@" >"$W/$name.log" 2>&1
  local st=$? got
  got=$(grep -c '^clash: error:' "$W/$name.log")
  check $((got == n ? 0 : 1)) "$name: $got lines of error, want $n: $(grep '^clash: error:' "$W/$name.log")"
  check $(($(grep '^clash: error:' "$W/$name.log" | grep -Ecv "$pat") == 0 ? 0 : 1)) \
    "$name: a line does not match '$pat': $(grep '^clash: error:' "$W/$name.log")"
  check $((st == 2 ? 0 : 1)) "$name: status $st, want 2"
}
cat >"$W/far.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"c": {"box": {}}}, "objects": [{"mesh": "c", "position": [1e39, 0, 0]}]}
EOF
cat >"$W/fly.json" <<'EOF'
{"format": "clash-scene/1", "steps": 1, "meshes": {"c": {"box": {}}},
 "objects": [{"mesh": "c"}, {"mesh": "c", "position": [0, 0, 1e38], "velocity": [0, 0, 1e38]}]}
EOF
for dec in objects replicated; do
  expect_lines "out of range, $dec" '^clash: error: [^ ]*far.json: objects\[0\]\.position\[0\]: 1e\+39' 1 \
    -n 2 "$BIN" run "$W/far.json" --decompose $dec "${OUTS[@]}"
  expect_lines "missing scene, $dec" '^clash: error: [^ ]*nope.json: cannot open' 1 \
    -n 2 "$BIN" run "$W/nope.json" --decompose $dec "${OUTS[@]}"
  expect_lines "law past float range at --steps 10, $dec" '^clash: error: [^ ]*fly.json: objects\[1\]: z reaches' 1 \
    -n 2 "$BIN" run "$W/fly.json" --steps 10 --decompose $dec "${OUTS[@]}"
done
expect_lines "unknown option" "^clash: error: unknown option '--thread'; did you mean '--threads'\\?" 1 \
  -n 2 "$BIN" run --thread 2 "${OUTS[@]}"
# a refusal on one rank only is that rank's: printed by it, with its number
expect_lines "bad scene on rank 1 only" '^clash: error: rank 1: [^ ]*bad.json' 1 \
  -n 1 "$BIN" run "$W/good.json" "${OUTS[@]}" : -n 1 "$BIN" run "$W/bad.json" "${OUTS[@]}"
expect_lines "bad option on rank 1 only" "^clash: error: rank 1: unknown option '--thread'" 1 \
  -n 1 "$BIN" run "$W/good.json" "${OUTS[@]}" : -n 1 "$BIN" run "$W/good.json" --thread 2 "${OUTS[@]}"

# ---- a rank killed mid-run -------------------------------------------------
# kill_case NAME ARGS...: a long 2-rank run of ARGS, rank 1 killed after 1 s.
kill_case() {
local name=$1; shift
local key="$*"
rm -rf "$W/out"; mkdir -p "$W/out"
"${MPIRUN[@]}" -n 2 "$BIN" "$@" "${OUTS[@]}" >"$W/kill.log" 2>&1 &
launcher=$!
victim=""
for _ in $(seq 100); do # find rank 1 (at most 10 s)
  for p in $(pgrep -f -- "$BIN $key" || true); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -Eq '^(OMPI_COMM_WORLD_RANK|PMI_RANK|PMIX_RANK)=1$'; then
      victim=$p
    fi
  done
  [ -n "$victim" ] && break
  sleep 0.1
done
check $([ -n "$victim" ] && echo 0 || echo 1) "$name: rank 1 not found"
if [ -n "$victim" ]; then
  sleep 1
  kill -9 "$victim"
  t0=$SECONDS
  while kill -0 "$launcher" 2>/dev/null && [ $((SECONDS - t0)) -lt "$LIMIT" ]; do sleep 0.2; done
  if kill -0 "$launcher" 2>/dev/null; then
    check 1 "$name: job still running $LIMIT s after rank 1 died"
    kill -9 "$launcher"
  fi
  wait "$launcher"; st=$?
  check $((st != 0 ? 0 : 1)) "$name: launcher status $st, want non-zero"
  left=$(pgrep -f -- "$BIN $key" || true)
  check $([ -z "$left" ] && echo 0 || echo 1) "$name: ranks still alive: $left"
  [ -n "$left" ] && kill -9 $left 2>/dev/null
  # SIGKILL cannot be caught, so a killed rank may leave its temporary
  # (NAME.tmp.PID); the final files must not exist.
  [ ! -e "$W/out/pairs.csv" ] && [ ! -e "$W/out/report.yaml" ]
  check $? "$name: output files written: $(ls "$W/out")"
else
  kill -9 "$launcher" 2>/dev/null; wait "$launcher"
fi
}
kill_case "rank kill" run --preset ktk94-table1 --steps 100000000 --decompose replicated
# the same with the scene shared out over the ranks (issue 18, --decompose objects)
kill_case "rank kill, decomposed" run --preset cluttered --objects 60 --steps 100000000 --decompose objects
# (and there rank 0 removes even its temporary when the launcher ends it)
[ -z "$(ls -A "$W/out")" ]
check $? "rank kill, decomposed: files left behind: $(ls -A "$W/out")"

echo "test_faults_mpi: $checks checks, $failed failed"
[ "$failed" = 0 ]
