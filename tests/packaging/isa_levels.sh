#!/usr/bin/env bash
# isa_levels.sh CLASH SRC DATA BIN — every instruction-set level this CPU runs
# gives the portable level's results, bit for bit.
#
# For each CLASH_ISA level the CPU has (portable always, then avx2 and
# avx512 where `clash info` says the CPU runs them): the pairs checksums of
# every preset and bench/scene (bench/checksums.sh), the pairs and contacts
# of both shared frames scenes with --ccd (skipped, with a message, where
# DATA lacks them), the pairs digest of the oracle test on 60 scenes, and
# the kernel, CCD and frames tests run under that level.  Any difference
# from the portable level, or a failing test, fails the script.  A level the
# CPU lacks must be refused with status 2.
set -uo pipefail
clash=${1:?usage: isa_levels.sh CLASH SRC DATA BIN}
src=${2:?}
data=${3:?}
bin=${4:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/clash-isa.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "isa_levels: FAIL: $*"; fail=1; }

best=$(CLASH_ISA= "$clash" info | sed -n 's/^isa: .*this CPU.s best: \([a-z0-9]*\)).*/\1/p')
case "$best" in
  portable) levels="portable" ;;
  avx2) levels="portable avx2" ;;
  avx512) levels="portable avx2 avx512" ;;
  *) echo "isa_levels: cannot read the CPU's best level from 'clash info'"; exit 1 ;;
esac
echo "isa_levels: this CPU runs $levels"
# a level above the CPU's, and an unknown one, are refused with status 2
for l in avx2 avx512; do
  case " $levels " in *" $l "*) continue ;; esac
  CLASH_ISA=$l "$clash" run --quiet 2>"$work/err"; rc=$?
  [ $rc = 2 ] && grep -q "CLASH_ISA=$l" "$work/err" || bad "CLASH_ISA=$l on a CPU without it: status $rc"
done
CLASH_ISA=sse9 "$clash" run --quiet 2>"$work/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown instruction-set level" "$work/err" || bad "CLASH_ISA=sse9: status $rc"

frames_json() { # scene first-frame
  printf '{"format": "clash-scene/1", "name": "%s", "steps": 1, "mode": "swept", "self_collision": true,\n' "$1"
  printf ' "frames": {"files": ["%s/ccd-frames/%s/frames/%d.ply", "%s/ccd-frames/%s/frames/%d.ply"]}}\n' \
    "$data" "$1" "$2" "$data" "$1" $(($2 + 1))
}
have_frames=1
[ -f "$data/ccd-frames/cloth-funnel/frames/227.ply" ] && [ -f "$data/ccd-frames/armadillo-rollers/frames/326.ply" ] ||
  { have_frames=0; echo "isa_levels: $data/ccd-frames missing: the frames scenes are skipped"; }
[ $have_frames = 1 ] && { frames_json cloth-funnel 227 >"$work/cloth.json"; frames_json armadillo-rollers 326 >"$work/arma.json"; }

for l in $levels; do
  out="$work/$l"
  mkdir -p "$out"
  [ "$(CLASH_ISA=$l "$clash" info | sed -n 's/^isa: *\([a-z0-9]*\) .*/\1/p')" = "$l" ] || bad "$l: clash info does not say it runs $l"
  CLASH_ISA=$l bash "$src/bench/checksums.sh" "$clash" "$src" >"$out/checksums.txt" || bad "$l: checksums.sh failed"
  if [ $have_frames = 1 ]; then
    for s in cloth arma; do
      CLASH_ISA=$l "$clash" run "$work/$s.json" --ccd --contacts "$out/$s-contacts.csv" --quiet \
        --report "$out/$s.yaml" >/dev/null || bad "$l: frames scene $s failed"
      grep -q "isa: $l" "$out/$s.yaml" || bad "$l: the report of $s does not say isa: $l"
      grep -E '^pairs_(total|checksum)' "$out/$s.yaml" >"$out/$s-pairs.txt"
    done
  fi
  CLASH_ORACLE_SCENES=60 CLASH_ISA=$l "$bin/test_pipeline_oracle" >"$out/oracle.txt" 2>&1 || bad "$l: oracle test failed"
  grep '^oracle: pairs digest' "$out/oracle.txt" >"$out/oracle-digest.txt"
  for t in test_kernels test_tritri8 test_fdop test_ccd_kernel test_ccd_planes test_ccd_queries test_ccd_frames \
           test_ccd_contacts; do
    [ -x "$bin/$t" ] || { bad "$l: $bin/$t missing"; continue; }
    CLASH_ISA=$l "$bin/$t" >"$out/$t.txt" 2>&1; rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] || { bad "$l: $t failed (status $rc)"; tail -5 "$out/$t.txt"; }
  done
  if [ "$l" != portable ]; then
    for f in checksums.txt oracle-digest.txt $([ $have_frames = 1 ] && echo cloth-contacts.csv arma-contacts.csv \
             cloth-pairs.txt arma-pairs.txt); do
      cmp -s "$work/portable/$f" "$out/$f" || { bad "$l: $f differs from the portable level's"; \
        diff "$work/portable/$f" "$out/$f" | head -5; }
    done
  fi
  echo "isa_levels: $l: $(wc -l <"$out/checksums.txt") checksum rows, $(cat "$out/oracle-digest.txt")$(
    [ $have_frames = 1 ] && echo ", contacts $(($(wc -l <"$out/cloth-contacts.csv") - 1)) cloth, $(($(wc -l \
    <"$out/arma-contacts.csv") - 1)) armadillo")"
done
[ -s "$work/portable/checksums.txt" ] || bad "no checksums were written"
[ $fail = 0 ] && echo "isa_levels: every level gives the portable level's results" 
exit $fail
