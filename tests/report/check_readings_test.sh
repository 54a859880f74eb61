#!/bin/sh
# check_readings_test.sh SOURCE_DIR - the hand-written readings of
# docs/performance agree with their generated tables (check_readings.py),
# and the checker catches the contradiction issue 14 found: a reading that
# called the 4 MiB isolation loss "identical across repetitions" while its
# table shows 655 (655-656).
set -u
src=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$here/check_readings.py" "$src/docs/performance" >"$tmp/out" 2>&1 ||
  fail "committed readings contradict their tables: $(cat "$tmp/out")"

mkdir -p "$tmp/pages/assets"
cp "$src/docs/performance/assets/udp-report.json" "$tmp/pages/assets/"
cat >"$tmp/pages/udp.reading.md" <<'TXT'
**Receive-buffer isolation** has the reference's shape: 16 KiB x window 64
loses 933 / 838 / 655 echoes per run with a 1 / 2 / 4 MiB request (the
reference: 959 / 895 / 767), identical across repetitions; window 16,
window 1 and 1,472 B lose nothing.
TXT
python3 "$here/check_readings.py" "$tmp/pages" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "the old reading should be refused: $(cat "$tmp/out")"
grep -q '^udp.reading.md: "655": stated the same in every repetition, but .*srb4m lost ranges 655-656$' "$tmp/out" ||
  fail "line names the number and the range: $(cat "$tmp/out")"
grep -q '"933"' "$tmp/out" && fail "933 is identical in every run: $(cat "$tmp/out")"
python3 "$here/check_readings.py" >/dev/null 2>&1
[ $? -eq 2 ] || fail "usage error exits 2"
echo "check_readings_test: ok"
