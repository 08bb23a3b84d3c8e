#!/usr/bin/env bash
# docs_test.sh — the documents say what the code does (issue 20).
#
#   docs_test.sh bench-csv SOURCE_DIR   every column of every CSV header the
#       bench suites write (the string literals "a,b,c,...\n" in bench/*.c,
#       adjacent literals joined) is documented, as `name`, in the README's
#       "Bench CSV columns" section;
#   docs_test.sh results SOURCE_DIR     bench/RESULTS.md holds results, their
#       commands and dates, not notes on working conditions: none of the
#       words below, and every "## " section has a date and a command.
set -u
mode=${1:?usage: docs_test.sh bench-csv|results SOURCE_DIR}
src=${2:?usage: docs_test.sh bench-csv|results SOURCE_DIR}
checks=0 failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

if [ "$mode" = bench-csv ]; then
  section=$(awk '/^### Bench CSV columns/ {on = 1; next} on && /^##/ {exit} on' "$src/README.md")
  [ -n "$section" ] || fail "README.md has no '### Bench CSV columns' section"
  # the headers: literals of 4 or more comma-separated lower-case names ending in \n
  headers=$(cat "$src"/bench/*.c | tr '\n' ' ' | sed 's/"[[:space:]]*"//g' |
            grep -oE '"[a-z][a-z0-9_]*(,[a-z][a-z0-9_]*){3,}\\n"' | tr -d '"' | sed 's/\\n$//' | sort -u)
  [ "$(printf '%s\n' "$headers" | grep -c .)" -ge 10 ] || fail "found only these CSV headers in bench/*.c: $headers"
  for h in $headers; do
    for col in $(printf '%s\n' "$h" | tr ',' ' '); do
      checks=$((checks + 1))
      printf '%s\n' "$section" | grep -qF "\`$col\`" || fail "bench CSV column '$col' (header $h) is not in the README"
    done
  done
elif [ "$mode" = results ]; then
  f="$src/bench/RESULTS.md"
  # prose about the machine's load and the team's sessions, not results
  for w in 'session' 'steal time' 'load average' '(load ' 'other developers' 'heavily loaded' 'overloaded' \
           'oversubscribed during' 'lent to this task' 'can_start_another' 'idle machine' 'quiet machine' \
           'this vm' 'noisy' 'under load' 'helper'; do
    checks=$((checks + 1))
    if grep -inF -- "$w" "$f" >/dev/null; then fail "RESULTS.md speaks of '$w': $(grep -inF -- "$w" "$f" | head -3)"; fi
  done
  # every "## " section: a date and a command
  awk '/^## / {if (name != "") print name "\t" date "\t" cmd; name = $0; date = 0; cmd = 0}
       /20[0-9][0-9]-[0-1][0-9]-[0-3][0-9]/ {date = 1}
       /(clash|\.sh|mpirun|valgrind|ctest|cmake)[ `]/ {cmd = 1}
       END {if (name != "") print name "\t" date "\t" cmd}' "$f" > "${TMPDIR:-/tmp}/docs_test.$$"
  while IFS="$(printf '\t')" read -r name date cmd; do
    checks=$((checks + 1))
    [ "$date" = 1 ] || fail "RESULTS.md: '$name' gives no date"
    [ "$cmd" = 1 ] || fail "RESULTS.md: '$name' gives no command"
  done < "${TMPDIR:-/tmp}/docs_test.$$"
  rm -f "${TMPDIR:-/tmp}/docs_test.$$"
else
  echo "docs_test.sh: unknown mode '$mode'" >&2
  exit 2
fi
echo "docs_test $mode: $checks checks, $failed failed"
[ "$failed" = 0 ]
