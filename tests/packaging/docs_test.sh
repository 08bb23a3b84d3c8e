#!/usr/bin/env bash
# docs_test.sh — the documents say what the code does.
#
#   docs_test.sh bench-csv SOURCE_DIR   every column of every CSV header the
#       bench suites write (the string literals "a,b,c,...\n" in bench/*.c,
#       adjacent literals joined) is documented, as `name`, in bench/README.md's
#       "CSV columns" section;
#   docs_test.sh reference SOURCE_DIR CLASH   every key of the scene parser's key
#       tables (the `keys[]` arrays of src/io/scene_json.c) has a row in the
#       "Scene file keys" table of src/cli/REFERENCE.md, every option of the
#       command's table (`known_options[]` of src/cli/options.c) a row in its
#       "Options of run and profile" table, and appears in `CLASH --help`;
#   docs_test.sh results SOURCE_DIR     bench/RESULTS.md holds results, their
#       commands and dates, not notes on working conditions: none of the
#       words below, and every "## " section has a date and a command.
set -u
mode=${1:?usage: docs_test.sh bench-csv|results|reference SOURCE_DIR [CLASH]}
src=${2:?usage: docs_test.sh bench-csv|results|reference SOURCE_DIR [CLASH]}
checks=0 failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

if [ "$mode" = bench-csv ]; then
  section=$(awk '/^## CSV columns/ {on = 1; next} on && /^## / {exit} on' "$src/bench/README.md")
  [ -n "$section" ] || fail "bench/README.md has no '## CSV columns' section"
  # the headers: literals of 4 or more comma-separated lower-case names ending in \n
  headers=$(cat "$src"/bench/*.c | tr '\n' ' ' | sed 's/"[[:space:]]*"//g' |
            grep -oE '"[a-z][a-z0-9_]*(,[a-z][a-z0-9_]*){3,}\\n"' | tr -d '"' | sed 's/\\n$//' | sort -u)
  [ "$(printf '%s\n' "$headers" | grep -c .)" -ge 10 ] || fail "found only these CSV headers in bench/*.c: $headers"
  for h in $headers; do
    for col in $(printf '%s\n' "$h" | tr ',' ' '); do
      checks=$((checks + 1))
      printf '%s\n' "$section" | grep -qF "\`$col\`" || fail "bench CSV column '$col' (header $h) is not in bench/README.md"
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
elif [ "$mode" = reference ]; then
  ref="$src/src/cli/REFERENCE.md"
  clash=${3:?usage: docs_test.sh reference SOURCE_DIR CLASH}
  [ -f "$ref" ] || fail "no $ref"
  # the string literals of a C array initialiser `NAME[] = { ... };` (NAME matching $2) in file $1
  c_array() {
    awk -v pat="$2" '$0 ~ "static const char \\*const " pat "\\[\\] *=" {on = 1}
                     on {print; if ($0 ~ /};/) on = 0}' "$1" | grep -oE '"[^"]*"' | tr -d '"'
  }
  # the first cells of the rows of the table under the heading $1
  table_keys() {
    awk -v h="$1" '$0 == h {on = 1; next} on && /^#/ {exit} on && /^\| `/' "$ref" | cut -d'|' -f2 |
      grep -oE '`[^`]*`' | tr -d '`'
  }
  keys=$(c_array "$src/src/io/scene_json.c" '[a-z_]*keys' | sort -u)
  [ "$(printf '%s\n' "$keys" | grep -c .)" -ge 15 ] || fail "found only these keys in scene_json.c: $keys"
  documented=$(table_keys '### Scene file keys')
  for k in $keys; do
    checks=$((checks + 1))
    # a row whose key path ends in the key: `k`, `a.k`, `a[].k`
    printf '%s\n' "$documented" | grep -qE "(^|[].])$k\$" ||
      fail "scene key '$k' (src/io/scene_json.c) has no row in REFERENCE.md's 'Scene file keys'"
  done
  opts=$(c_array "$src/src/cli/options.c" 'known_options' | sort -u)
  [ "$(printf '%s\n' "$opts" | grep -c .)" -ge 30 ] || fail "found only these options in options.c: $opts"
  documented=$(table_keys '### Options of run and profile')
  help=$("$clash" --help 2>&1) || fail "'$clash --help' failed"
  for o in $opts; do
    checks=$((checks + 2))
    printf '%s\n' "$documented" | grep -qxF -- "$o" ||
      fail "option '$o' (src/cli/options.c) has no row in REFERENCE.md's 'Options of run and profile'"
    [ "$o" = --help ] || printf '%s\n' "$help" | grep -qE -- "$o([^a-z-]|\$)" ||
      fail "option '$o' is missing from 'clash --help'"
  done
  # and no row for an option or key the code does not have
  for o in $documented; do
    checks=$((checks + 1))
    printf '%s\n' "$opts" | grep -qxF -- "$o" || fail "REFERENCE.md lists '$o', which options.c does not know"
  done
else
  echo "docs_test.sh: unknown mode '$mode'" >&2
  exit 2
fi
echo "docs_test $mode: $checks checks, $failed failed"
[ "$failed" = 0 ]
