#!/bin/sh
# parallel-shards.sh PLAN N OUT [LOGINS] - GNU parallel: the N slices of
# PLAN over the machines LOGINS (parallel's --sshlogin list, e.g.
# "1/lab1,1/lab2,1/lab3,1/lab4": one slice at a time per machine; ":" is
# this machine, the default), each slice's folder brought back into
# OUT/shard-K (OUT relative: on the remote side it is under the login's
# home), then merged into OUT/merged.  Every machine needs netproof-bench
# on its PATH and run-shard.sh at RUN_SHARD (default
# /opt/netproof/run-shard.sh).  tests/fleet runs this script as it is.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: parallel-shards.sh PLAN N OUT [LOGINS]" >&2
  exit 2
fi
PLAN=$1 N=$2 OUT=$3 LOGINS=${4:-:}
RUN_SHARD=${RUN_SHARD:-/opt/netproof/run-shard.sh}
seq 0 $((N - 1)) |
  parallel --will-cite --sshlogin "$LOGINS" --halt now,fail=1 \
    --return "$OUT/shard-{}" --cleanup \
    sh "$RUN_SHARD" "$PLAN" {} "$N" "$OUT"
exec "${NETPROOF_REPORT:-netproof-report}" merge "$OUT"/shard-* \
  --output "$OUT/merged"
