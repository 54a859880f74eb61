#!/usr/bin/env bash
# rudp_targets.sh - issue 7's benchmark targets for `netproof-bench rudp`,
# side by side with what this machine measures.  Release build; each case
# is one invocation with --rounds 3 (seeds 42, 43, 44): median, min and max
# come from the record's /rudp/summary.
#
#   bench/scripts/rudp_targets.sh [BUILD_DIR] [OUT_DIR]
#
# Targets (issue 7):
#   none profile, 1024 B, 4 clients, window 16, single: >= 100,000 rt/s, p99 <= 1 ms
#   random profile, ARQ only (fec none):                  >= 1,500 rt/s
#   random profile: spurious retransmits < 1 % of retransmits
# Exit status: 0 when every case ran and every record passed its checks
# (targets missed are reported, not failed: they are measurements).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-rudp-release}
OUT=${2:-$BUILD/rudp-targets}
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target netproof-bench -j2 >/dev/null
BENCH=$BUILD/bench/netproof-bench
COMMON=(--payload 1024 --clients 4 --window 16 --io-model single
        --io-threads 1 --fec none --seconds 3 --warmup 2 --rounds 3 --seed 42)

status=0
run_case() { # name, extra args...
  local name=$1; shift
  local rc=0
  "$BENCH" rudp "${COMMON[@]}" "$@" --output "$OUT/$name.json" \
    2>"$OUT/$name.stderr" || rc=$?
  echo "$rc" >"$OUT/$name.exit"
  if [ "$rc" -ne 0 ]; then
    echo "$name: exit $rc (see $OUT/$name.stderr)" >&2
    status=1
  fi
}

run_case none-bbr --profile none --cc bbr
run_case random-bbr --profile random --cc bbr
run_case random-newreno --profile random --cc newreno
run_case random-none --profile random --cc none

spread() { # file, summary key, scale
  jq -r --arg k "$2" --argjson s "$3" \
    '.rudp.summary[$k] | "\(.median*$s|.*10|round/10) [\(.min*$s|.*10|round/10) .. \(.max*$s|.*10|round/10)]"' "$1"
}
pooled_spurious() { # spurious % of retransmits pooled over the rounds
  jq -r '[.rudp.rounds[].arq] | (map(.spurious_retransmits)|add) as $s
         | (map(.retransmits)|add) as $r
         | "\($s) of \($r) = \(if $r > 0 then ($s*1000/$r|round)/10 else 0 end) %"' "$1"
}

printf '%-16s %-8s %-30s %-30s %-26s %s\n' case status \
  "round trips/s med [min..max]" "p99 ms med [min..max]" \
  "retx/1000 med [min..max]" "spurious (pooled)"
for f in "$OUT"/*.json; do
  n=$(basename "$f" .json)
  printf '%-16s %-8s %-30s %-30s %-26s %s\n' "$n" "$(jq -r .status "$f")" \
    "$(spread "$f" roundtrips_per_sec 1)" "$(spread "$f" rtt_p99_us 0.001)" \
    "$(spread "$f" retransmits_per_1000_roundtrips 1)" "$(pooled_spurious "$f")"
done
echo
echo "targets: none-bbr >= 100000 rt/s and p99 <= 1 ms; random-* >= 1500 rt/s;"
echo "         spurious < 1 % of retransmits under random"
echo "machine: $(nproc) logical cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
