#!/usr/bin/env bash
# rudp_vs.sh - issue 30's comparison: netproof's ARQ against KCP (kcp-go,
# the implementation kcptun uses) through ONE `netproof-bench relay`
# process and profile, same workload, transports alternating, one row per
# transport and delivery mode, printed with the load average.
#
#   bench/scripts/rudp_vs.sh [BUILD_DIR] [OUT_DIR]
#   env: ROUNDS (3), SECONDS_PER_ROUND (5), WARMUP (2), PROFILE (random),
#        KCP_FEC ("10/3 4/2": kcp-go Reed-Solomon DATA/PARITY settings,
#        one row each), EXTRA (options for every netproof case)
#
# Workload (the issue's): 1,024 B x 4 clients x window 16, every reply's
# bytes checked by both harnesses.  netproof runs `netproof-bench rudp
# --relay ... --relay-stats ...` (its record goes to OUT_DIR); KCP runs
# bench/scripts/kcp_echo (built offline by its build.sh against Debian's
# golang-github-xtaci-kcp-dev) in fast mode: nodelay 1, interval 10 ms,
# resend 2, no congestion window, an ack flush after every input.  The
# relay forwards to one port; each case's server binds it in turn.  Round
# r runs every case once before round r + 1, so load from other users
# falls on all of them alike; median [min..max] over the rounds.
# "wire dgrams/rt" is what the relay received per round trip (both ways,
# retransmissions, acks and parity included) over each whole run: the
# same meter for both.  netproof's retransmissions are both sides' in the
# measured window (its record); kcp-go's are the client side's over the
# run (its process-wide counters), per measured round trip.
# Exit status: 0 when every run passed its own checks, 1 otherwise, 3 when
# a tool is missing.  Everything is bounded: the relay by --max-seconds,
# each server by its own --max-seconds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-rudp-release}
OUT=${2:-$BUILD/rudp-vs}
ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_ROUND:-5}
WARMUP=${WARMUP:-2}
PROFILE=${PROFILE:-random}
read -r -a KCP_FECS <<<"${KCP_FEC:-10/3 4/2}"
read -r -a EXTRA_ARGS <<<"${EXTRA:-}"
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.stderr "$OUT"/*.jsonl "$OUT"/*.meter
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target netproof-bench -j2 >/dev/null
BENCH=$BUILD/bench/netproof-bench
KCP=$OUT/kcp_echo
"$ROOT/bench/scripts/kcp_echo/build.sh" "$KCP" || exit 3

# case name | kind | options (the -nohead row is the ordered ARQ without
# the head-of-line window, the -dup2copy1 row the window as it was before
# --head-dupthresh 1 and --head-copies 2: what each adds, measured beside)
CASES=(
  "netproof-arq-ordered|np|--delivery ordered"
  "netproof-arq-ordered-dup2copy1|np|--delivery ordered --head-dupthresh 2 --head-copies 1"
  "netproof-arq-ordered-nohead|np|--delivery ordered --reo-wnd-head-ms 0"
  "netproof-arq-unordered|np|--delivery unordered"
  "netproof-fecadaptive-ordered|np|--delivery ordered --fec adaptive"
  "netproof-fecwindow-ordered|np|--delivery ordered --fec window"
  "kcp-fast|kcp|--fec none"
)
for f in "${KCP_FECS[@]}"; do
  CASES+=("kcp-fast-fec${f/\//+}|kcp|--fec $f")
done

free_port() {
  python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
LPORT=$(free_port)
FPORT=$(free_port)
while [ "$FPORT" = "$LPORT" ]; do FPORT=$(free_port); done
LISTEN=127.0.0.1:$LPORT
FORWARD=127.0.0.1:$FPORT
STATS=$OUT/relay.jsonl
per_case=$(awk -v w="$WARMUP" -v s="$SECS" 'BEGIN { printf "%d", w + s + 15 }')
budget=$((ROUNDS * ${#CASES[@]} * per_case + 30))
"$BENCH" relay --listen "$LISTEN" --forward "$FORWARD" --profile "$PROFILE" \
  --max-seconds "$budget" --stats-lines "$STATS" --stats-interval 0.2 \
  --route-idle-seconds 2 --max-routes 4096 --quiet \
  --record "$OUT/relay.json" 2>"$OUT/relay.stderr" &
RELAY=$!
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  kill "$RELAY" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 50); do [ -s "$STATS" ] && break; sleep 0.1; done
[ -s "$STATS" ] || { echo "rudp_vs.sh: the relay wrote no stats line" >&2; exit 3; }

# the relay's received-datagram counter, from its newest stats line
meter() {
  sleep 0.3
  tail -n 1 "$STATS" | python3 -c 'import json, sys; print(json.load(sys.stdin)["io"]["recv_datagrams"])'
}

status=0
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < ROUNDS; r++)); do
  for c in "${CASES[@]}"; do
    name=${c%%|*}
    rest=${c#*|}
    kind=${rest%%|*}
    read -r -a opts <<<"${rest#*|}"
    out=$OUT/$name.r$r.json
    m0=$(meter)
    rc=0
    if [ "$kind" = np ]; then
      "$BENCH" rudp --relay "$LISTEN" --relay-stats "$STATS" --payload 1024 \
        --clients 4 --window 16 --io-model single --cc bbr "${opts[@]}" \
        "${EXTRA_ARGS[@]}" --seconds "$SECS" --warmup "$WARMUP" --rounds 1 \
        --seed $((42 + r)) --output "$out" 2>"$OUT/$name.r$r.stderr" || rc=$?
    else
      "$KCP" server --listen "$FORWARD" --max-seconds "$per_case" \
        "${opts[@]}" 2>"$OUT/$name.r$r.server.stderr" &
      SERVER=$!
      sleep 0.2
      "$KCP" client --connect "$LISTEN" --clients 4 --window 16 --payload 1024 \
        --warmup "$WARMUP" --seconds "$SECS" "${opts[@]}" >"$out" \
        2>"$OUT/$name.r$r.stderr" || rc=$?
      kill "$SERVER" 2>/dev/null || true
      wait "$SERVER" 2>/dev/null || true
      SERVER=
    fi
    m1=$(meter)
    echo "$((m1 - m0))" >"$OUT/$name.r$r.meter"
    if [ "$rc" -ne 0 ]; then
      echo "$name round $r: exit $rc (see $OUT/$name.r$r.stderr)" >&2
      status=1
    fi
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

python3 "$ROOT/bench/scripts/rudp_vs_table.py" "$OUT"
echo "rounds: $ROUNDS per case, alternating through one relay ($PROFILE);" \
  "${SECS} s measured after ${WARMUP} s warm-up"
echo "machine: $(nproc) logical cores; load average before $load0, after $load1"
exit $status
