#!/bin/sh
# The cost of two processes: `netproof-bench udp --connect` against
# `netproof-bench serve` vs the in-process `udp` run with the same client
# settings, alternating A and B, medians (min-max) of round trips/s and
# p99, with the load average before and after.  Loopback only; serve is
# bounded by --max-seconds and stopped at the end.
#   bench/scripts/connect_cost.sh BUILD_DIR [ROUNDS [SECONDS [UDP OPTIONS...]]]
# Defaults: 5 rounds of 1 s, --clients 16 --window 1 --payload 1024.
set -eu
BUILD=${1:?usage: connect_cost.sh BUILD_DIR [ROUNDS [SECONDS [OPTIONS...]]]}
ROUNDS=${2:-5}
SECS=${3:-1}
[ $# -ge 3 ] && shift 3 || shift $#
[ $# -eq 0 ] && set -- --clients 16 --window 1 --payload 1024
BENCH=$BUILD/bench/netproof-bench
TMP=$(mktemp -d "${TMPDIR:-/tmp}/np-connect-cost.XXXXXX")
trap 'kill "$SRV" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$TMP"' EXIT
"$BENCH" serve --listen 127.0.0.1:0 --max-seconds $((ROUNDS * (SECS + 3) * 2 + 30)) \
  --record "$TMP/serve.json" 2>"$TMP/serve.err" &
SRV=$!
i=0
until grep -q "listening on" "$TMP/serve.err"; do
  i=$((i + 1)); [ $i -gt 250 ] && { echo "serve did not start" >&2; exit 3; }
  sleep 0.02
done
PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/serve.err")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); options: $*; $ROUNDS rounds of $SECS s"
r=1
while [ $r -le "$ROUNDS" ]; do
  "$BENCH" udp "$@" --seconds "$SECS" --quiet --output "$TMP/a$r.json" || true
  "$BENCH" udp "$@" --seconds "$SECS" --connect "127.0.0.1:$PORT" --quiet \
    --output "$TMP/b$r.json" || true
  r=$((r + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$TMP" "$ROUNDS" <<'PY'
import json, statistics, sys
tmp, n = sys.argv[1], int(sys.argv[2])
def col(p, key):
    v = []
    for r in range(1, n + 1):
        d = json.load(open("%s/%s%d.json" % (tmp, p, r)))
        m = d["measurement"]
        v.append(m["roundtrips_per_sec"] if key == "rps" else m["rtt_us"]["p99"] or 0)
    return v
for key, unit in (("rps", "round trips/s"), ("p99", "p99 us")):
    a, b = col("a", key), col("b", key)
    print("%-14s in-process udp %10.0f [%.0f-%.0f]   --connect to serve %10.0f [%.0f-%.0f]   B/A %.2f"
          % (unit, statistics.median(a), min(a), max(a), statistics.median(b),
             min(b), max(b), statistics.median(b) / statistics.median(a)))
PY
