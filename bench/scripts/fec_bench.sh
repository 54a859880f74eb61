#!/bin/sh
# fec_bench.sh - FEC encode/decode throughput and CPU per datagram.
#   bench/scripts/fec_bench.sh [BUILD_DIR] [SECONDS] [OUT_JSON]
# Defaults: build-fec-rel (configured Release if new), 2 s per measurement,
# no JSON file.  Runs fec-bench for an 8+2 group of 1,194 B datagrams
# (1,196 B shards; the parity datagram is 1,200 B, the protocol MTU) with
# 2 data shards lost and rebuilt per group on the decode side, and prints:
#   rs_encode / rs_decode         bare ISA-L codec, MB/s of data (per wall
#                                 second and per process-CPU second)
#   endpoint_send / endpoint_input whole np_fec path per datagram
# with wall and process-CPU ns per datagram.  Needs jq for the table;
# the raw JSON (machine-independent keys) goes to OUT_JSON when given.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-fec-rel}
seconds=${2:-2}
out=${3:-}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target fec-bench -j 2 >/dev/null
tmp=$(mktemp "${TMPDIR:-/tmp}/np-fec-bench.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$build/bench/fec/fec-bench" --k 8 --m 2 --shard 1194 --lose 2 \
  --seconds "$seconds" >"$tmp"
echo "FEC 8+2, 1194 B datagrams, 2 lost per group on decode;" \
  "$(nproc) CPUs, $(uname -m), build $(basename "$build")"
jq -r '.results[] | [.name, (.mb_per_s | floor), (.mb_per_cpu_s | floor),
        (.wall_ns_per_datagram * 10 | floor / 10),
        (.cpu_ns_per_datagram * 10 | floor / 10), .datagrams]
       | @tsv' "$tmp" |
  awk 'BEGIN { printf "%-15s %9s %11s %11s %10s %10s\n", "measure",
               "MB/s", "MB/cpu-s", "wall ns/dg", "cpu ns/dg", "datagrams" }
       { printf "%-15s %9s %11s %11s %10s %10s\n", $1, $2, $3, $4, $5, $6 }'
if [ -n "$out" ]; then
  cp "$tmp" "$out"
fi
