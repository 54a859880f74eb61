#!/bin/sh
# relay_latency.sh - measure the relay's own added latency with zero
# impairment (sequential ping-pongs, direct vs through the relay, loopback).
#   bench/scripts/relay_latency.sh [BUILD_DIR] [SAMPLES] [PAYLOAD]
# Defaults: build, 20000 round trips each way, 1024 B.  Builds the
# measuring program (tests/relay/test_relay_latency.c) if needed and prints
# one summary line: RTT p50/p99 direct and via the relay, and the added
# latency per relay traversal at p50/p99.
set -eu
build=${1:-build}
samples=${2:-20000}
payload=${3:-1024}
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target test_relay_latency -j 2 >/dev/null
exec "$build/tests/relay/test_relay_latency" "$samples" "$payload"
