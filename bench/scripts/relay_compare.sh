#!/bin/sh
# relay_compare.sh - the standalone relay's added latency (p50/p99) and
# forwarding rate at zero impairment, against the direct path, side by
# side in alternating blocks (tools/bench/relay_compare.c).
#   bench/scripts/relay_compare.sh [BUILD_DIR] [SAMPLES] [PAYLOAD] [WINDOW]
# Defaults: build, 20000 round trips per path, 1024 B, window 16.  Starts
# `netproof-bench relay` on loopback for the measurement, stops it with
# SIGTERM and prints its batching (datagrams per recvmmsg / sendmmsg) from
# its record.  A shared machine's load moves both paths alike; run it on
# a quiet one for figures.
set -eu
build=${1:-build}
samples=${2:-20000}
payload=${3:-1024}
window=${4:-16}
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target netproof-bench np_relay_compare -j 2 >/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-relay-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
port() { python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
echo_port=$(port)
relay_port=$(port)
"$build/bench/netproof-bench" relay --listen "127.0.0.1:$relay_port" \
  --forward "127.0.0.1:$echo_port" --max-seconds 600 --quiet \
  --record "$tmp/relay.json" &
relay=$!
sleep 0.3
"$build/tools/np_relay_compare" --via "127.0.0.1:$relay_port" \
  --echo-port "$echo_port" --samples "$samples" --payload "$payload" \
  --window "$window" --seconds 10 --blocks 10
kill -TERM "$relay"
wait "$relay" || true
python3 - "$tmp/relay.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["relay"]
io, t = r["io"], r["timer"]
print("relay batching: %d datagrams in %d recvmmsg (%.2f per call), %d in "
      "%d sendmmsg (%.2f per call); release lateness mean %.1f us, max %.1f "
      "us" % (io["recv_datagrams"], io["recv_calls"],
              io["recv_datagrams"] / max(io["recv_calls"], 1),
              io["send_datagrams"], io["send_calls"],
              io["send_datagrams"] / max(io["send_calls"], 1),
              t["late_mean_ns"] / 1e3, t["late_max_ns"] / 1e3))
PY
