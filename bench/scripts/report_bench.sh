#!/bin/sh
# report_bench.sh [BUILD_DIR] [RUNS] [SOURCE] - time netproof-report on a
# large VALID result set: bench/scripts/large_set.py copies a real set's
# runs (SOURCE, or a fresh `matrix quick`) into RUNS (default 500) runs
# with consistent ids, timeline and a summary the matrix runner writes, and
# fails unless the set passes its self-check.  Prints the median of 3
# renders and the self-check's time (best of 3) and peak RSS, beside the
# time of `gzip -dc | sha256sum` of the set packed as a bundle, measured
# alternating with it, and their ratio (of the bests, and of each round:
# median, min, max; ROUNDS in the environment, default 3).  Fails (exit 1) when the
# self-check is not clean.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
runs=${2:-500}
source=${3:-}
bin=$build/report/netproof-report
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-report-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$here/bench/scripts/large_set.py" "$build" "$tmp/set" --runs "$runs" \
  ${source:+--source "$source"}
n=$(find "$tmp/set/runs" -name 'rep-*.json' | wc -l)
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
# the self-check against merely reading the set's bytes as a bundle
# (`gzip -dc BUNDLE | sha256sum`), alternating, best of 3 each
"$build/archive/netproof-archive" pack "$tmp/set" -o "$tmp/b.tar.gz" >/dev/null
load0=$(cut -d' ' -f1-3 /proc/loadavg)
sc_s=999999; rd_s=999999; ratios=""
for i in $(seq "${ROUNDS:-3}"); do
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" --self-check --results "$tmp/set" \
    >"$tmp/check" 2>&1 || { cat "$tmp/check"; echo "report_bench: self-check not clean" >&2; exit 1; }
  read -r s sc_kb <"$tmp/time"
  last_sc=$s
  sc_s=$(awk -v d="$s" -v b="$sc_s" 'BEGIN {print (d<b)?d:b}')
  /usr/bin/time -f '%e' -o "$tmp/time" sh -c 'gzip -dc "$1" | sha256sum >/dev/null' sh "$tmp/b.tar.gz"
  read -r s <"$tmp/time"
  ratios="$ratios $(awk -v a="$last_sc" -v b="$s" 'BEGIN {printf "%.3f", a/b}')"
  rd_s=$(awk -v d="$s" -v b="$rd_s" 'BEGIN {print (d<b)?d:b}')
done
ratio=$(awk -v a="$sc_s" -v b="$rd_s" 'BEGIN {printf "%.2f", a/b}')
rounds=$(echo "$ratios" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{r[NR] = $1}
  END {printf "median %.2f, min %.2f, max %.2f of %d rounds",
       (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2, r[1], r[NR], NR}')
echo "report_bench: $n runs, $charts charts: render median ${med} s (runs:$times); self-check ${sc_s} s (best of 3), peak RSS $((sc_kb / 1024)) MiB; gzip -dc | sha256sum of its bundle ${rd_s} s, ratio ${ratio} (round by round: $rounds); targets: self-check <= 1.5 s for 2,000 runs; load $load0 -> $(cut -d' ' -f1-3 /proc/loadavg)"
