#!/bin/sh
# Run shipped suites on this machine into results/<machine>-<yyyymmdd>-<suite>/
# (the evidence sets that docs/performance/ is generated from).
#   scripts/run-evidence.sh BUILD_DIR SUITE...   e.g. build udp-io-models
# Each suite is one `netproof-bench matrix` call; an existing folder of the
# same suite is resumed, never overwritten.  Prints each suite's wall time.
set -eu
build=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
bench="$build/bench/netproof-bench"
machine=$(hostname -s | tr 'A-Z' 'a-z' | tr -c 'a-z0-9-\n' '-')
day=$(date -u +%Y%m%d)
for suite in "$@"; do
  plan="$root/bench/plans/$suite.json"
  dir="$root/results/$machine-$day-$suite"
  resume=""
  [ -f "$dir/suite.json" ] && resume="--resume"
  t0=$(date +%s)
  rc=0
  "$bench" matrix "$plan" --output "$dir" $resume --quiet || rc=$?
  echo "$suite: exit $rc, $(($(date +%s) - t0)) s wall -> $dir"
done
