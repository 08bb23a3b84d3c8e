#!/usr/bin/env bash
# test_faults.sh — how the `clash` command fails: interrupted, or fed a
# missing or broken input.  Every case runs under `timeout`, so a hang is a
# failure, not a stuck CI job.
#
#   test_faults.sh CLASH_BIN MESH_DATA_DIR
#
# Checked, each against the contract (src/cli/REFERENCE.md, "Exit status"):
#   - SIGINT or SIGTERM in the middle of a long run: exit status 130 or 143
#     (128 + the signal, as shells and batch systems expect), the message
#     "interrupted after step N of M; no output written", and no file left in the
#     output folder (neither the pairs/report files nor their temporaries);
#   - a missing scene file, a scene naming a missing mesh file, a scene that
#     is not JSON, a scene with a bad key, a scene whose mesh file is corrupt,
#     an output path in a missing folder, a value out of float range, a law
#     of motion leaving float range over the steps, an unknown key: exit
#     status 2, one line "clash: error: ..." naming the file, no output file;
# The MPI cases (a rank fails, a rank dies) are in test_faults_mpi.sh.
set -u
BIN=${1:?usage: test_faults.sh CLASH_BIN MESH_DATA_DIR}
MESH=${2:?usage: test_faults.sh CLASH_BIN MESH_DATA_DIR}
W=$(mktemp -d "${TMPDIR:-/tmp}/clash-faults.XXXXXX")
trap 'rm -rf "$W"' EXIT
checks=0 failed=0
check() { # check COND_STATUS MESSAGE
  checks=$((checks + 1))
  if [ "$1" != 0 ]; then failed=$((failed + 1)); echo "FAIL: $2" >&2; fi
}
empty_dir() { [ -z "$(ls -A "$1")" ]; }

# ---- SIGINT / SIGTERM mid-run --------------------------------------------------
# interrupt_case SIG WANT_STATUS: the same clean stop for both signals, and the
# status shells and batch systems expect (128 + the signal: 130, 143)
interrupt_case() {
  local sig=$1 want=$2 d="$W/$1"
  mkdir -p "$d"
  "$BIN" run --preset ktk94-table1 --steps 100000000 --progress --pairs "$d/pairs.csv" \
    --report "$d/report.yaml" 2>"$d.err" &
  local pid=$!
  # wait (at most 10 s) until the run is inside its step loop: its progress
  # line shows a step (read from the start only: the line never ends while
  # the run goes on, and grep would read it to its end)
  for _ in $(seq 100); do
    head -c 4096 "$d.err" 2>/dev/null | grep -q 'step [0-9]' && break
    sleep 0.1
  done
  kill "-$sig" "$pid"
  # wait at most 10 s for it to stop
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"; check 1 "$sig: still running 10 s after the signal"
  fi
  wait "$pid"; local st=$?
  check $((st == want ? 0 : 1)) "$sig: exit status $st, want $want"
  grep -Eq '^clash: error: interrupted after step [0-9]+ of 100000000; no output written$' "$d.err"
  check $? "$sig: message names the step: $(cat "$d.err")"
  empty_dir "$d"; check $? "$sig: files left behind: $(ls "$d")"
}
interrupt_case INT 130
interrupt_case TERM 143

# `clash profile` re-running itself under valgrind: a SIGTERM to the parent
# (what a batch system sends) reaches the child, which stops cleanly; the
# parent passes 143 on and removes its temporary folder.
if "$BIN" info | grep -Eq '^ +callgrind +works'; then
  mkdir -p "$W/prof" "$W/proftmp"
  TMPDIR="$W/proftmp" "$BIN" profile --counters callgrind --preset ktk94-table1 --steps 100000000 --progress \
    --report "$W/prof/report.yaml" >/dev/null 2>"$W/prof.err" &
  pid=$!
  for _ in $(seq 300); do head -c 4096 "$W/prof.err" 2>/dev/null | grep -q 'step [0-9]' && break; sleep 0.1; done
  kill -TERM "$pid"
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"; check 1 "profile TERM: still running 20 s after the signal"
  fi
  wait "$pid"; st=$?
  check $((st == 143 ? 0 : 1)) "profile TERM: exit status $st, want 143 ($(cat "$W/prof.err"))"
  grep -Eq '^clash: error: interrupted after step [0-9]+ of 100000000; no output written$' "$W/prof.err"
  check $? "profile TERM: the child's message: $(cat "$W/prof.err")"
  empty_dir "$W/prof"; check $? "profile TERM: files left behind: $(ls "$W/prof")"
  empty_dir "$W/proftmp"; check $? "profile TERM: temporary folder left: $(ls "$W/proftmp")"
fi

# ---- bad inputs: exit 2, one clear message naming the file, no output -------
# expect_input_error NAME PATTERN ARGS...
expect_input_error() {
  local name=$1 pat=$2; shift 2
  rm -rf "$W/out"; mkdir -p "$W/out"
  timeout -k 5 30 "$BIN" run "$@" --quiet --pairs "$W/out/pairs.csv" --report "$W/out/report.yaml" \
    >"$W/$name.out" 2>"$W/$name.err"
  local st=$?
  check $((st == 2 ? 0 : 1)) "$name: exit status $st, want 2 ($(cat "$W/$name.err"))"
  grep -Eq "^clash: error: .*$pat" "$W/$name.err"
  check $? "$name: message should match '$pat': $(cat "$W/$name.err")"
  check $(($(wc -l <"$W/$name.err") == 1 ? 0 : 1)) "$name: want one line of error, got $(wc -l <"$W/$name.err")"
  empty_dir "$W/out"; check $? "$name: files left behind: $(ls "$W/out")"
}

expect_input_error missing_scene "$W/nope.json" "$W/nope.json"

cat >"$W/missing_mesh.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"m": {"file": "no/such/mesh.obj"}}, "objects": [{"mesh": "m"}]}
EOF
# the scene file and the key that named the mesh, then the mesh file (issue 20)
expect_input_error missing_mesh "missing_mesh.json: meshes\.m\.file: .*no/such/mesh\.obj: cannot open" \
  "$W/missing_mesh.json"

printf '{"format": "clash-scene/1", "meshes": {' >"$W/truncated.json"
expect_input_error not_json "truncated.json" "$W/truncated.json"

cat >"$W/bad_key.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"c": {"box": {}}}, "objects": [{"mesh": "c", "velocity": [1, 2]}]}
EOF
expect_input_error bad_key "bad_key.json.*velocity" "$W/bad_key.json"

cp "$MESH/bad/obj_nan.obj" "$W/corrupt.obj"
cat >"$W/corrupt_mesh.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"m": {"file": "corrupt.obj"}}, "objects": [{"mesh": "m"}]}
EOF
expect_input_error corrupt_mesh "corrupt_mesh.json: meshes\.m\.file: .*corrupt\.obj" "$W/corrupt_mesh.json"

# values outside float range, and laws of motion that leave it over the steps
# (the scene's own steps, or more of them asked with --steps): the key named
cat >"$W/far.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"c": {"box": {}}}, "objects": [{"mesh": "c", "position": [1e39, 0, 0]}]}
EOF
expect_input_error out_of_range "far.json: objects\[0\]\.position\[0\]: 1e\+39 is out of range" "$W/far.json"
cat >"$W/fly.json" <<'EOF'
{"format": "clash-scene/1", "steps": 4, "meshes": {"c": {"box": {}}},
 "objects": [{"mesh": "c"}, {"mesh": "c", "position": [0, 0, 1e38], "velocity": [0, 0, 1e38]}]}
EOF
expect_input_error overflow "fly.json: objects\[1\]: z reaches 5e\+38 at step 4 .*out of float range" "$W/fly.json"
sed 's/"steps": 4/"steps": 1/' "$W/fly.json" >"$W/fly1.json"
expect_input_error overflow_steps "fly1.json: objects\[1\]: z reaches 1\.1e\+39 at step 10 .*out of float range" \
  "$W/fly1.json" --steps 10
cat >"$W/spin.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"c": {"box": {}}}, "objects": [{"mesh": "c", "positon": [1, 0, 0]}]}
EOF
expect_input_error unknown_key \
  "spin.json: objects\[0\]\.positon: unknown key \(known: mesh, scale, position, .*\); did you mean 'position'\?" \
  "$W/spin.json"

# a triangle with a repeated vertex index: the scene's key, the mesh file and the face
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 2 2 3\n' >"$W/repeated.obj"
cat >"$W/repeated.json" <<'EOF'
{"format": "clash-scene/1", "meshes": {"m": {"file": "repeated.obj"}}, "objects": [{"mesh": "m"}]}
EOF
expect_input_error repeated_index "repeated.json: meshes\.m\.file: .*repeated\.obj: face 1 .*repeated vertex index 1" \
  "$W/repeated.json"

rm -rf "$W/out"; mkdir -p "$W/out"
timeout -k 5 30 "$BIN" run --preset ktk94-table1 --steps 2 --quiet --pairs "$W/out/missing-dir/pairs.csv" \
  2>"$W/outdir.err"
st=$?
check $((st == 2 ? 0 : 1)) "output in a missing folder: exit status $st, want 2"
grep -q "^clash: error: .*missing-dir/pairs.csv" "$W/outdir.err"
check $? "output in a missing folder: message: $(cat "$W/outdir.err")"

echo "test_faults: $checks checks, $failed failed"
[ "$failed" = 0 ]
