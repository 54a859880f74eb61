#!/bin/sh
# test_report_cli.sh NETPROOF_REPORT FIXTURE [FIXTURE_ISOLATION] - exit
# codes and output lines of the command: --version; clean self-check 0, tampered copy
# 1 with "file: /ptr: reason" lines, unreadable folder 2, usage errors 2,
# report written with relative chart links and no absolute paths; a set
# that fails its self-check is refused (exit 1, problems printed, nothing
# written) unless --force, which stamps it; --label; --format csv,json;
# --pages-format mdx with front matter and a label that cannot break MDX
# (check_mdx.py, python3-yaml).
set -u
bin=$1 fx=$2 iso=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-test-report-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" --self-check --results "$fx" >"$tmp/out" 2>&1 || fail "clean fixture: $(cat "$tmp/out")"
cp -r "$fx" "$tmp/bad"
run=$(ls "$tmp/bad/runs" | head -1)
rm "$tmp/bad/runs/$run/rep-1.cmd.txt"
sed -i 's/"server_replied": /"server_replied": 9/' "$tmp/bad/runs/$run/rep-2.json"
"$bin" --self-check --results "$tmp/bad" >"$tmp/out" 2>/dev/null
[ $? -eq 1 ] || fail "tampered copy should exit 1"
[ "$(wc -l <"$tmp/out")" -ge 2 ] || fail "every problem listed: $(cat "$tmp/out")"
grep -q "^bad/runs/$run/rep-1.cmd.txt: /: missing" "$tmp/out" || fail "missing-file line: $(cat "$tmp/out")"
grep -q "^bad/runs/$run/rep-2.json: /counters/lost_at_server: " "$tmp/out" || fail "pointer line: $(cat "$tmp/out")"
"$bin" --self-check --results "$tmp/nonexistent" >/dev/null 2>&1
[ $? -eq 2 ] || fail "unreadable folder should exit 2"
"$bin" --results "$fx" >/dev/null 2>&1
[ $? -eq 2 ] || fail "missing --output should exit 2"
"$bin" --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option should exit 2"
# --version: the identity every program prints, this source tree's hash
"$bin" --version >"$tmp/out" 2>&1 || fail "--version should exit 0"
head -1 "$tmp/out" | grep -q '^netproof-report [0-9]' || fail "--version: $(cat "$tmp/out")"
want=$(sh "$here/../../scripts/source-hash.sh")
grep -qx "source-sha256: $want" "$tmp/out" || fail "--version source hash, want $want: $(cat "$tmp/out")"
want=$(sh "$here/../../scripts/source-hash.sh" --measuring)
grep -qx "measuring-source-sha256: $want" "$tmp/out" || fail "--version measuring hash, want $want: $(cat "$tmp/out")"
"$bin" --results "$fx" --output "$tmp/report" </dev/null 2>/dev/null || fail "report"
[ -f "$tmp/report/index.md" ] && [ -f "$tmp/report/report.json" ] || fail "outputs"
grep -q '](assets/.*\.svg)' "$tmp/report/index.md" || fail "relative chart links"
if grep -rq "$tmp" "$tmp/report"; then fail "absolute path in output"; fi

# a set failing its self-check is not rendered ...
"$bin" --results "$tmp/bad" --output "$tmp/refused" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "failing set should exit 1"
grep -q "^bad/runs/$run/rep-2.json: /counters/lost_at_server: " "$tmp/out" || fail "problems printed: $(cat "$tmp/out")"
grep -q "^netproof-report: bad: self-check found [0-9]* problems; not rendering it (--force" "$tmp/err" || fail "refusal line: $(cat "$tmp/err")"
[ -e "$tmp/refused" ] && fail "nothing written for a refused set"
# ... unless --force, which stamps every page and chart
"$bin" --results "$tmp/bad" --output "$tmp/forced" --force >/dev/null 2>"$tmp/err" || fail "--force: $(cat "$tmp/err")"
grep -q '^> \*\*Self-check failed: bad.\*\*' "$tmp/forced/index.md" || fail "banner"
for f in "$tmp"/forced/assets/*.svg; do
  grep -q "SELF-CHECK FAILED" "$f" || grep -q '&#x53;&#x45;&#x4c;&#x46;&#x2d;&#x43;&#x48;&#x45;&#x43;&#x4b;' "$f" || fail "stamp in $f"
done
"$bin" --pages --results "$tmp/bad" --output "$tmp/fpages" >/dev/null 2>&1
[ $? -eq 1 ] || fail "pages of a failing set should exit 1"

# --label names a set; it follows its --results
"$bin" --results "$fx" --label "first run" --results "$fx" --label second --output "$tmp/two" </dev/null 2>"$tmp/err" || fail "two labels: $(cat "$tmp/err")"
grep -q "^## Throughput and latency: first run" "$tmp/two/index.md" || fail "label heading"
grep -q "^## Throughput and latency: second" "$tmp/two/index.md" || fail "label heading 2"
[ -f "$tmp/two/assets/first_run-io-throughput-p1024-c16-w1.svg" ] || fail "label slug in file names: $(ls "$tmp/two/assets")"
"$bin" --label x --results "$fx" --output "$tmp/x" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--label before --results should exit 2"
grep -q "^netproof-report: --label x: give it after the --results it names" "$tmp/err" || fail "label line: $(cat "$tmp/err")"

# --format: CSV of every table, the compact JSON summary
"$bin" --results "$fx" --output "$tmp/csv" --format csv,json </dev/null 2>/dev/null || fail "--format csv,json"
[ -f "$tmp/csv/index.md" ] && fail "--format csv,json writes no index.md"
head -1 "$tmp/csv/tables/fixture-throughput_latency_cpu.csv" | grep -q "roundtrips.median \[1/s\]" || fail "csv header: $(head -1 "$tmp/csv/tables/fixture-throughput_latency_cpu.csv")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']=='netproof/report-summary/1', d; assert len(d['sets'][0]['results'])==3" "$tmp/csv/report-summary.json" || fail "report-summary.json"
[ "$(wc -l <"$tmp/csv/report-summary.json")" -eq 1 ] || fail "the summary is one line"
"$bin" --results "$fx" --output "$tmp/y" --format xml >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--format xml should exit 2"
grep -q "^netproof-report: --format xml: expected md, csv, json or html" "$tmp/err" || fail "format line"
"$bin" --results "$fx" --output "$tmp/y" --pages-format mdx >/dev/null 2>&1
[ $? -eq 2 ] || fail "--pages-format without --pages should exit 2"

# --pages-format mdx: front matter, and a label with MDX-sensitive text
if [ -n "$iso" ]; then
  "$bin" --pages --pages-format mdx --results "$iso" --label 'iso {x} <b>' --results "$fx" --output "$tmp/mdx" </dev/null 2>"$tmp/err" || fail "mdx: $(cat "$tmp/err")"
  [ -f "$tmp/mdx/udp.mdx" ] || fail "udp.mdx"
  python3 "$here/check_mdx.py" "$tmp/mdx/udp.mdx" "UDP loopback performance: vm" || fail "mdx page"
  grep -q 'iso \\{x\\} &lt;b&gt;' "$tmp/mdx/udp.mdx" || fail "label escaped"
  "$bin" --pages --pages-format html --results "$fx" --output "$tmp/z" >/dev/null 2>&1
  [ $? -eq 2 ] || fail "--pages-format html should exit 2"
fi
echo "test_report_cli: ok"
