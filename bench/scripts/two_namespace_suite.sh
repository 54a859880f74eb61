#!/bin/sh
# two_namespace_suite.sh BUILD_DIR OUT_DIR [udp|rudp] - a two-host suite
# on one machine: two network namespaces joined by a veth pair stand in
# for two hosts with separate network stacks.  udp (the default) runs
# udp-two-namespace, rudp the plan bench/scripts/rudp-two-namespace.json.
#
#   host a (namespace np2h-PID-a, 10.231.250.1/30) runs the matrix: the
#     clients of every repetition, `udp --agent 10.231.250.2:7000` (or
#     `rudp --agent ...`);
#   host b (np2h-PID-b, 10.231.250.2/30) runs `netproof-bench agent`, which
#     starts the echo server of each repetition and sends back its kernel
#     and socket counters (for rudp: the server endpoint, rudp-serve, and
#     the relay in front of it, and their records).
#
# Addresses are assigned on the two veths this script creates, nothing is
# routed anywhere else; both namespaces (and so the veths) and the agent
# are removed on exit, also on failure or interruption.  The agent has a
# time bound (--max-seconds 900).  Needs root (ip netns).  The plan (with
# the token file of this run, a temporary file) is kept in suite.json; the
# matrix exit status is the script's.
set -eu
build=$1
out=$2
kind=${3:-udp}
case $kind in udp|rudp) ;; *) echo "two_namespace_suite: '$kind': udp or rudp" >&2; exit 2 ;; esac
bench="$build/bench/netproof-bench"
[ "$(id -u)" -eq 0 ] || { echo "two_namespace_suite: needs root (ip netns)" >&2; exit 3; }
a="np2h-$$-a"
b="np2h-$$-b"
work=$(mktemp -d "${TMPDIR:-/tmp}/np-two-namespace.XXXXXX")
agent=""
cleanup() {
  [ -n "$agent" ] && kill "$agent" 2>/dev/null && wait "$agent" 2>/dev/null
  ip netns del "$a" 2>/dev/null || true
  ip netns del "$b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$a"
ip netns add "$b"
ip -n "$a" link set lo up
ip -n "$b" link set lo up
# created inside the namespaces: never in the caller's network stack
ip link add "np2h$$a" netns "$a" type veth peer name "np2h$$b" netns "$b"
ip -n "$a" addr add 10.231.250.1/30 dev "np2h$$a"
ip -n "$b" addr add 10.231.250.2/30 dev "np2h$$b"
ip -n "$a" link set "np2h$$a" up
ip -n "$b" link set "np2h$$b" up

umask 077
openssl rand -hex 32 >"$work/token"
ip netns exec "$b" "$bench" agent --listen 10.231.250.2:7000 \
  --token-file "$work/token" --max-seconds 900 >"$work/agent.log" 2>&1 &
agent=$!
# ready when its port accepts a connection (at most 10 s)
i=0
until ip netns exec "$a" timeout 1 bash -c ': </dev/tcp/10.231.250.2/7000' 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 50 ] || { echo "two_namespace_suite: agent not ready:" >&2; cat "$work/agent.log" >&2; exit 3; }
  sleep 0.2
done

mkdir -p "$(dirname "$out")"
if [ "$kind" = rudp ]; then
  # the shipped plan with this run's agent and token filled in
  plan="$work/rudp-two-namespace.json"
  sed -e 's|"AGENT"|"10.231.250.2:7000"|' -e "s|\"TOKEN\"|\"$work/token\"|" \
    "$(dirname "$0")/rudp-two-namespace.json" >"$plan"
  rc=0
  ip netns exec "$a" "$bench" matrix "$plan" --output "$out" --quiet || rc=$?
  exit $rc
fi
plan="$work/udp-two-namespace.json"
cat >"$plan" <<EOF
{
  "schema": "netproof/plan/1",
  "suite": "udp-two-namespace",
  "description": "UDP echo across two network stacks: clients in one network namespace, the echo server started by an authenticated netproof-bench agent in another, joined by a veth pair (10.231.250.1 -> 10.231.250.2, addresses on those veths only); both hosts' kernel and socket counters in every record, loss attributed per leg and per host. 64 and 1,024 B x 1 and 16 clients, window 1, one loop each side, 1 s after 0.25 s warm-up. bench/scripts/two_namespace_suite.sh builds the namespaces and runs it.",
  "protocol": "udp",
  "repetitions": 3,
  "base": {"agent": "10.231.250.2:7000", "token-file": "$work/token",
           "window": 1, "warmup": 0.25, "seconds": 1},
  "dimensions": {"payload": [64, 1024], "clients": [1, 16]}
}
EOF
rc=0
ip netns exec "$a" "$bench" matrix "$plan" --output "$out" --quiet || rc=$?
exit $rc
