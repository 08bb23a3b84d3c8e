#!/usr/bin/env bash
# debug_build.sh SRC WORK CC — a Debug (-O0) tree of SRC builds with -Werror
# and runs: `clash run` (the default scene), the oracle test on 60 scenes and
# the frames tests (test_ccd_frames, test_ccd_contacts; they skip where
# ../shared/data is missing), on the CPU's own instruction-set level and,
# for `clash run`, on every level the CPU runs.
#
# At -O0 nothing is inlined unless asked for, so a kernel compiled for one
# target that calls a helper compiled for another crosses a vector ABI
# boundary: the crash this test was written for took only the Debug build
# on an AVX-512 machine, while Release and the rest of the suite passed.
set -uo pipefail
src=${1:?usage: debug_build.sh SRC WORK CC}
work=${2:?}
cc=${3:-cc}
tree="$work/debug-tree"
mkdir -p "$tree"
fail=0
bad() { echo "debug_build: FAIL: $*"; fail=1; }
cmake -S "$src" -B "$tree" -DCMAKE_BUILD_TYPE=Debug -DCLASH_WERROR=ON -DCMAKE_C_COMPILER="$cc" >"$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log"; echo "debug_build: FAIL: configure"; exit 1; }
cmake --build "$tree" -j "$(nproc)" --target clash_cli test_pipeline_oracle test_ccd_frames test_ccd_contacts \
  >"$work/build.log" 2>&1 || { grep -E "error|warning" "$work/build.log" | head -20; echo "debug_build: FAIL: build"; exit 1; }
grep -q -- "-O0\|Debug" <(CLASH_ISA= "$tree/bin/clash" info) || bad "the tree is not a Debug build"
best=$(CLASH_ISA= "$tree/bin/clash" info | sed -n 's/^isa: .*this CPU.s best: \([a-z0-9]*\)).*/\1/p')
case "$best" in
  avx512) levels="portable avx2 avx512" ;; avx2) levels="portable avx2" ;; *) levels="portable" ;;
esac
for l in $levels; do
  CLASH_ISA=$l "$tree/bin/clash" run --steps 20 --report "$work/run-$l.yaml" >"$work/run-$l.txt" 2>&1; rc=$?
  [ $rc = 0 ] || { bad "clash run (default scene, $l): status $rc"; tail -3 "$work/run-$l.txt"; continue; }
  grep -E '^pairs_(total|checksum)' "$work/run-$l.yaml" >"$work/pairs-$l.txt"
  cmp -s "$work/pairs-portable.txt" "$work/pairs-$l.txt" || bad "clash run ($l): pairs differ from portable's"
done
echo "debug_build: clash run on $levels: $(tr '\n' ' ' <"$work/pairs-portable.txt")"
CLASH_ORACLE_SCENES=60 "$tree/bin/test_pipeline_oracle" >"$work/oracle.txt" 2>&1 || { bad "oracle (60 scenes)"; tail -5 "$work/oracle.txt"; }
tail -1 "$work/oracle.txt"
for t in test_ccd_frames test_ccd_contacts; do
  "$tree/bin/$t" >"$work/$t.txt" 2>&1; rc=$?
  case $rc in 0) tail -1 "$work/$t.txt" ;; 77) echo "debug_build: $t skipped: $(tail -1 "$work/$t.txt")" ;;
    *) bad "$t: status $rc"; tail -5 "$work/$t.txt" ;; esac
done
[ $fail = 0 ] && echo "debug_build: the Debug tree builds and passes"
exit $fail
