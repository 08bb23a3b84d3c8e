#!/usr/bin/env bash
# checksums.sh CLASH [SRC] — the pairs checksums of every preset (swept and
# static), of a self-collision run and of bench/scenes/*.json, one line each,
# for checking that a change leaves behaviour as it was: run it with the
# binary before and after the change and diff the outputs.
#   bench/checksums.sh build/bin/clash > after.txt
set -euo pipefail
clash=${1:?usage: checksums.sh CLASH [SOURCE_DIR]}
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
clash=$(cd "$(dirname "$clash")" && pwd)/$(basename "$clash")
rep=$(mktemp "${TMPDIR:-/tmp}/checksums.XXXXXX")
trap 'rm -f "$rep"' EXIT
row() { # label, then clash run arguments
  local label=$1
  shift
  "$clash" run "$@" --quiet --report "$rep" >/dev/null
  echo "$label $(grep -E '^pairs_(total|checksum)' "$rep" | tr '\n' ' ')"
}
for p in default ktk94-table1 ktak94-table1 cluttered; do
  for m in swept static; do row "preset $p $m" --preset "$p" --mode "$m" --threads 2; done
done
row "preset cluttered-300-seed4 self" --preset cluttered --objects 300 --seed 4 --self
cd "$src"
for s in bench/scenes/*.json; do
  # (scenes of the shared meshes: skipped, and said, where ../shared/data is missing)
  if grep -q 'shared/data' "$s" && [ ! -d "$src/../shared/data/meshes" ]; then
    echo "checksums: $s skipped: $src/../shared/data/meshes is missing" >&2
    continue
  fi
  row "scene $s" "$s"
done
