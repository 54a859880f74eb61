#!/bin/sh
# The main job behind `make run` (build folder as $1):
#   1. print each tool's identity and check the shipped schemas;
#   2. run the `quick` suite (bench/plans/quick.json), one process per run;
#   3. one short reliable-UDP run through the relay (random profile);
#   4. render the report of the quick suite and self-check it;
#   5. pack the suite into an evidence bundle and verify it;
#   6. print the headline table, where the outputs and the programs are,
#      and how to install them without root.
# Outputs go to out/; the previous run's out/ is
# kept as out.prev/ (one generation: an older out.prev/ is removed).
# Exit status: 0 when every step worked (the quick plan's expected-fail
# probe counts as confirmed).
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/out"
bench="$build/bench/netproof-bench"
report="$build/report/netproof-report"
archive="$build/archive/netproof-archive"
validate="$build/schema/netproof-validate"
start=$(date +%s)

if [ -e "$out" ]; then
  rm -rf "$out.prev"
  mv "$out" "$out.prev"
  echo "== the previous outputs are now in $out.prev/"
fi
mkdir -p "$out"

echo "== identity"
"$bench" --version | head -3

echo "== shipped schemas"
"$validate" --check-schemas "$root"/schema/*.schema.json

echo "== quick suite (UDP, bench/plans/quick.json)"
"$bench" matrix "$root/bench/plans/quick.json" --output "$out/quick"

if "$bench" --help | grep -q '^  rudp'; then
  echo "== reliable UDP, random profile (one short round)"
  rc=0
  "$bench" rudp --profile random --seconds 2 --warmup 1 --rounds 1 \
    --output "$out/rudp-random.json" 2>"$out/rudp-random.stderr.txt" || rc=$?
  tail -n 3 "$out/rudp-random.stderr.txt"
  [ "$rc" -eq 0 ] || echo "rudp run exited $rc (record kept in $out/rudp-random.json)"
fi

echo "== report"
"$report" --results "$out/quick" --output "$out/report"
"$report" --self-check --results "$out/quick"

if [ -x "$archive" ]; then
  echo "== evidence bundle"
  "$archive" pack "$out/quick" --output "$out/quick.tar.gz"
  "$archive" verify "$out/quick.tar.gz"
fi

echo
echo "== headline (medians of 3 runs; from $out/report/index.md)"
awk '/^### Throughput, latency and CPU/{on=1; next} on && /^\|/{print} on && /^$/ && n++>0{exit}' \
  "$out/report/index.md"
echo
echo "== outputs ($(($(date +%s) - start)) s)"
echo "  raw runs:   $out/quick/runs/ (records, stderr, commands, kernel snapshots)"
echo "  summary:    $out/quick/summary.json"
echo "  report:     $out/report/index.md (charts in $out/report/assets/)"
[ -f "$out/quick.tar.gz" ] && echo "  bundle:     $out/quick.tar.gz (verified)"
[ -f "$out/rudp-random.json" ] && echo "  rudp run:   $out/rudp-random.json"
[ -d "$out.prev" ] && echo "  previous:   $out.prev/ (the run before this one)"
echo
echo "== programs (built, not installed)"
for p in "$bench" "$report" "$archive" "$validate"; do
  if [ -x "$p" ]; then echo "  $p"; fi
done
echo "  install them: sudo make install (under /usr/local), or without root"
echo "  make install PREFIX=\$HOME/.local (then put \$HOME/.local/bin on PATH)"
exit 0
