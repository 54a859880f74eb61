#!/bin/sh
# exec_examples.sh BUILD_DIR OUT_DIR - the two worked examples of
# docs/guides/any-benchmark.md, on programs netproof did not write:
#   1. iperf3 -J (UDP) against an iperf3 server: bench/plans/exec-iperf3.json
#   2. sockperf ping-pong (text, regex metrics): bench/plans/exec-sockperf.json
# Each plan starts its server on loopback (127.0.0.1:5201, :11111) as a
# suite service.  Runs each plan with the matrix, writes one report of both
# sets, runs the self-check (which re-derives every metric from the kept
# stdout) and packs and verifies one bundle per set.  A configuration whose
# checks failed does not stop the script: its records are evidence too.
set -eu
BUILD=$1
OUT=$2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=$BUILD/bench/netproof-bench
R=$BUILD/report/netproof-report
A=$BUILD/archive/netproof-archive
mkdir -p "$OUT"
for plan in exec-iperf3 exec-sockperf; do
  rm -rf "${OUT:?}/$plan"
  "$B" matrix "$SRC/bench/plans/$plan.json" --output "$OUT/$plan" ||
    [ $? -eq 1 ] # 1: a configuration failed its checks; kept, reported
done
"$R" --results "$OUT/exec-iperf3" --results "$OUT/exec-sockperf" \
     --output "$OUT/report" --title "Any benchmark as evidence: iperf3 and sockperf"
"$R" --self-check --results "$OUT/exec-iperf3" --results "$OUT/exec-sockperf"
for plan in exec-iperf3 exec-sockperf; do
  "$A" pack "$OUT/$plan" -o "$OUT/$plan.tar.gz"
  "$A" verify "$OUT/$plan.tar.gz"
done
