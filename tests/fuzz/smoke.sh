#!/usr/bin/env bash
# smoke.sh — a short fuzz run of every target, for CI (at most ~60 s in all).
#
#   tests/fuzz/smoke.sh BUILD_DIR [TOTAL_SECONDS]     (default 50)
#
# BUILD_DIR is a tree configured with clang and -DCLASH_FUZZ=ON, e.g.
#   CC=clang cmake -S . -B build-fuzz -DCLASH_FUZZ=ON -DCLASH_BUILD_TESTS=OFF
#   cmake --build build-fuzz -j
# Each target first replays the committed regression inputs (regress/) and
# then fuzzes for TOTAL/5 seconds from a scratch copy of its seed corpus, so
# the repository is never written to.  Any crash, leak, sanitizer report,
# timeout (10 s per input) or broken reader contract fails the script; the
# reproducer is kept in BUILD_DIR/fuzz-smoke/<target>/ and printed.
set -u
B=${1:?usage: smoke.sh BUILD_DIR [TOTAL_SECONDS]}
TOTAL=${2:-50}
HERE=$(cd "$(dirname "$0")" && pwd)
targets="obj ply stl off scene"
per=$((TOTAL / 5)); [ "$per" -ge 1 ] || per=1
fail=0
for t in $targets; do
  bin=$B/bin/fuzz_$t
  [ -x "$bin" ] || { echo "smoke: $bin missing (configure with CC=clang -DCLASH_FUZZ=ON)"; exit 1; }
  w=$B/fuzz-smoke/$t
  rm -rf "$w"; mkdir -p "$w/corpus"
  cp "$HERE/corpus/$t/"* "$w/corpus/"
  case $t in scene) ext=json ;; *) ext=$t ;; esac
  regress=$(ls "$HERE/regress/"*."$ext" 2>/dev/null || true)
  if [ -n "$regress" ]; then
    # shellcheck disable=SC2086
    if ! "$bin" -timeout=10 -rss_limit_mb=2048 $regress >"$w/regress.log" 2>&1; then
      echo "smoke: fuzz_$t fails on a regression input:"; tail -30 "$w/regress.log"; fail=1; continue
    fi
  fi
  if "$bin" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$w/" "$w/corpus" >"$w/log.txt" 2>&1; then
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$w/log.txt" | grep -Eo '[0-9]+$')
    cov=$(grep -Eo 'cov: [0-9]+' "$w/log.txt" | tail -1)
    echo "smoke: fuzz_$t ok: ${runs:-?} inputs in ${per} s, $cov"
  else
    echo "smoke: fuzz_$t FAILED; reproducer(s): $(ls "$w"/crash-* "$w"/leak-* "$w"/timeout-* "$w"/oom-* 2>/dev/null)"
    grep -E 'ERROR|SUMMARY|#[0-9]+ 0x' "$w/log.txt" | head -30
    fail=1
  fi
done
exit $fail
