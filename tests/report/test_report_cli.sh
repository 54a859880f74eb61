#!/bin/sh
# test_report_cli.sh NETPROOF_REPORT FIXTURE - exit codes and output lines of
# the command: clean self-check 0, tampered copy 1 with "file: /ptr: reason"
# lines, unreadable folder 2, usage errors 2, report written with relative
# chart links and no absolute paths.
set -u
bin=$1 fx=$2
tmp=$(mktemp -d) || exit 1
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
"$bin" --results "$fx" --output "$tmp/report" </dev/null 2>/dev/null || fail "report"
[ -f "$tmp/report/index.md" ] && [ -f "$tmp/report/report.json" ] || fail "outputs"
grep -q '](assets/.*\.svg)' "$tmp/report/index.md" || fail "relative chart links"
if grep -rq "$tmp" "$tmp/report"; then fail "absolute path in output"; fi
echo "test_report_cli: ok"
