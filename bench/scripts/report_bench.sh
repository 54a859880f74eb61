#!/bin/sh
# report_bench.sh [BUILD_DIR] - time netproof-report on a synthetic 500-run
# result set (tests/report/synth_results.py: 167 configurations x 3
# repetitions = 501 runs).  Target: under 2 s wall on the 2-core dev machine.
# Prints the median of 3 renders and the self-check time.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
bin=$build/report/netproof-report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/tests/report/synth_results.py" "$tmp/set" --configs 167 --reps 3
runs=$(find "$tmp/set/runs" -name 'rep-*.json' | wc -l)
times=""
for i in 1 2 3; do
  rm -rf "$tmp/out"
  s=$(date +%s.%N)
  "$bin" --results "$tmp/set" --output "$tmp/out" </dev/null 2>/dev/null
  e=$(date +%s.%N)
  times="$times $(echo "$e - $s" | bc)"
done
charts=$(ls "$tmp/out/assets" | wc -l)
med=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
s=$(date +%s.%N)
"$bin" --self-check --results "$tmp/set" >/dev/null 2>&1 || true
e=$(date +%s.%N)
echo "report_bench: $runs runs, $charts charts: render median ${med} s (runs:$times); self-check $(echo "$e - $s" | bc) s; target < 2 s"
