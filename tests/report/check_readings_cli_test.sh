#!/bin/sh
# check_readings_cli_test.sh SOURCE_DIR REPORT - scripts/check-readings.sh
# (issue 33): the committed readings and README's published-results
# section pass; a bare measured figure, a figure changed by hand, an
# unresolvable reference and a reference in README each fail with a line
# naming file and line; a "Not measured here" block and a configuration
# value do not.
set -u
src=$1
export NP_REPORT=$2
chk="$src/scripts/check-readings.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-check-readings-cli-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

sh "$chk" "$src/docs/performance" "$src/README.md" >"$tmp/out" 2>&1 ||
  fail "committed readings: $(cat "$tmp/out")"

# one small set keeps the negative cases quick
mkdir -p "$tmp/results" "$tmp/pages"
ln -s "$src/results/vm-20261202-udp-size-limits" "$tmp/results/"
export NP_RESULTS="$tmp/results"
ref='{{udp-size-limits: udp-p65507-c16-w16-single-uv lost range}}'
printf 'Loses %s per run at 65,507 B, window 16.\n\n> **Not measured here.** 8 MiB holds 126 datagrams of 66,339 B.\n' \
  "$ref" >"$tmp/pages/udp-limits.reading.md"
sh "$chk" "$tmp/pages" >"$tmp/out" 2>&1 ||
  fail "a reference, a plan's payload and a quoted figure pass: $(cat "$tmp/out")"

# the same figure written by hand
printf 'Loses 130 per run\nat 65,507 B, about 1,300 echoes in all.\n' \
  >"$tmp/pages/udp-limits.reading.md"
sh "$chk" "$tmp/pages" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a bare figure must fail: $(cat "$tmp/out")"
grep -q "^$tmp/pages/udp-limits.reading.md:2: \"1,300\": bare measured-looking figure$" "$tmp/out" ||
  fail "line names file, line and figure: $(cat "$tmp/out")"
grep -q "^$tmp/pages/udp-limits.reading.md:1: \"130\": bare measured-looking figure$" "$tmp/out" ||
  fail "a count from 100 up is measured-looking: $(cat "$tmp/out")"
grep -q '"65,507' "$tmp/out" && fail "65,507 B is a payload of the plan: $(cat "$tmp/out")"
printf 'As RFC 8681 and issue 330 say, 16 clients at window 64 for 1 s.\n' \
  >"$tmp/pages/udp-limits.reading.md"
sh "$chk" "$tmp/pages" >"$tmp/out" 2>&1 ||
  fail "names and small configuration integers pass: $(cat "$tmp/out")"
for bad in '0.83x' '31.1 %' '54k' '~100 μs' '2.1 ms' '11.6 MiB'; do
  printf 'ARQ made %s here.\n' "$bad" >"$tmp/pages/udp-limits.reading.md"
  sh "$chk" "$tmp/pages" >"$tmp/out" 2>&1
  [ $? -eq 1 ] || fail "'$bad' is measured-looking: $(cat "$tmp/out")"
done

# a quoted block not marked "Not measured here" is prose like any other
printf '> The reference made 0.83x.\n' >"$tmp/pages/udp-limits.reading.md"
sh "$chk" "$tmp/pages" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "an unmarked quote must fail: $(cat "$tmp/out")"

# a reference that does not resolve
printf 'one\nLoses {{udp-size-limits: udp-p1-c16-w16-single-uv lost}}.\n' \
  >"$tmp/pages/udp-limits.reading.md"
sh "$chk" "$tmp/pages" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "an unresolvable reference must fail: $(cat "$tmp/out")"
grep -q "^$tmp/pages/udp-limits.reading.md:2: {{udp-size-limits: udp-p1-c16-w16-single-uv lost}}: no configuration 'udp-p1-c16-w16-single-uv' in vm-20261202-udp-size-limits$" "$tmp/out" ||
  fail "line names file, line, reference and reason: $(cat "$tmp/out")"

# README: plain Markdown, so a reference is never expanded there
printf '# x\n\n## Published results\n\nRaw made {{a: b rps}}.\n\n## Next\n\n9.9 ms\n' \
  >"$tmp/README.md"
sh "$chk" "$tmp/README.md" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a reference in README must fail: $(cat "$tmp/out")"
grep -q "README.md:5: a reference in plain Markdown is never expanded" "$tmp/out" ||
  fail "README reference line: $(cat "$tmp/out")"
grep -q '9.9' "$tmp/out" && fail "only the published-results section is checked: $(cat "$tmp/out")"

sh "$chk" >/dev/null 2>&1
[ $? -eq 2 ] || fail "usage error exits 2"
echo "check_readings_cli_test: ok"
