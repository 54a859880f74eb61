#!/bin/sh
# run-shard.sh PLAN K N OUT - one machine's part of a fleet run: slice K
# (0-based) of N of PLAN into OUT/shard-K.  Every recipe of
# docs/guides/fleets.md (GNU parallel, the Slurm job array, the Kubernetes
# Indexed Job) runs this one line, and tests/fleet runs it the same way.
# NETPROOF_BENCH names the program when it is not on PATH.
set -eu
if [ $# -ne 4 ]; then
  echo "usage: run-shard.sh PLAN K N OUT" >&2
  exit 2
fi
mkdir -p "$4"
exec "${NETPROOF_BENCH:-netproof-bench}" matrix "$1" --shard "$2/$3" \
  --output "$4/shard-$2" --quiet
