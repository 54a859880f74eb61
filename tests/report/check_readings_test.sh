#!/bin/sh
# check_readings_test.sh SOURCE_DIR - the hand-written readings of
# docs/performance agree with their generated tables (check_readings.py),
# and the checker catches the contradiction issue 14 found (a reading that
# called a loss "identical across repetitions" while its table shows a
# range): a count of the committed tables that varies is refused, one that
# does not is not.
set -u
src=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-check-readings-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$here/check_readings.py" "$src/docs/performance" >"$tmp/out" 2>&1 ||
  fail "committed readings contradict their tables: $(cat "$tmp/out")"

mkdir -p "$tmp/pages/assets"
cp "$src/docs/performance/assets/udp-report.json" "$tmp/pages/assets/"
# a count of the committed tables that varies across repetitions, and one
# that does not (whatever the current sets are), claimed "identical"
pick() {
  python3 - "$tmp/pages/assets/udp-report.json" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want_vary = sys.argv[2] == "vary"
keys = {"lost", "kernel_drops", "udp_rcvbuf_errors_delta"}
def walk(o, k=None):
    if isinstance(o, dict):
        if k in keys and {"median", "min", "max"} <= o.keys():
            yield o
            return
        for kk, v in o.items():
            yield from walk(v, kk)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v, k)
meds = {}
for t in doc.get("tables", []):
    for o in walk(t.get("rows", [])):
        if all(isinstance(o[x], (int, float)) for x in ("median", "min", "max")) and o["median"] >= 100:
            meds.setdefault(int(o["median"]), set()).add(o["min"] != o["max"])
for m in sorted(meds):
    if meds[m] == {want_vary}:
        print(m)
        break
PY
}
vary=$(pick vary)
same=$(pick same)
[ -n "$vary" ] && [ -n "$same" ] || fail "no varying and no steady count in udp-report.json ($vary/$same)"
cat >"$tmp/pages/udp.reading.md" <<TXT
**A made-up reading**: this configuration loses $vary echoes per run and
that one $same, identical across repetitions.
TXT
python3 "$here/check_readings.py" "$tmp/pages" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a varying count called identical should be refused: $(cat "$tmp/out")"
grep -q "^udp.reading.md: \"$vary\": stated the same in every repetition, but .* ranges " "$tmp/out" ||
  fail "line names the number and the range: $(cat "$tmp/out")"
grep -q "\"$same\"" "$tmp/out" && fail "$same is identical in every run: $(cat "$tmp/out")"
python3 "$here/check_readings.py" >/dev/null 2>&1
[ $? -eq 2 ] || fail "usage error exits 2"
echo "check_readings_test: ok"
