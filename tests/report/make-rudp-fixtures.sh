#!/bin/sh
# make-rudp-fixtures.sh BUILD_DIR - regenerate the real reliable-UDP
# fixtures (fixture-rudp: ARQ only vs adaptive FEC under profiles none and
# random, 3 rounds each; fixture-rudp-pw: 64 / 4096 B x ARQ only / adaptive
# FEC, window 4, sustained profile, 2 rounds) with `netproof-bench matrix`,
# then replace the temporary results folder by RESULTS everywhere.  New records mean
# new goldens: run regen-goldens.sh afterwards and look at the charts.
set -eu
build=${1:?usage: make-rudp-fixtures.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-make-rudp-fixtures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plans"
cat > "$tmp/plans/rudp.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "rudp-fixture",
 "description": "Report fixture: ARQ only vs adaptive FEC, profiles none and random, 1024 B, 4 clients, window 16, 3 rounds of 0.3 s after 0.2 s warm-up.",
 "protocol": "rudp", "repetitions": 1, "timeout_seconds": 30,
 "base": {"payload": 1024, "clients": 4, "window": 16, "warmup": 0.2,
          "seconds": 0.3, "rounds": 3},
 "dimensions": {"profile": ["none", "random"], "fec": ["none", "adaptive"]},
 "compare": ["fec"]}
PLAN
cat > "$tmp/plans/rudp-pw.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "rudp-fixture-pw",
 "description": "Report fixture: 64 and 4096 B x ARQ only / adaptive FEC, window 4, sustained profile, 2 rounds of 0.5 s after 0.2 s warm-up (enough samples for a p99).",
 "protocol": "rudp", "repetitions": 1, "timeout_seconds": 30,
 "base": {"clients": 4, "window": 4, "profile": "sustained", "warmup": 0.2,
          "seconds": 0.5, "rounds": 2},
 "dimensions": {"payload": [64, 4096], "fec": ["none", "adaptive"]},
 "compare": ["fec"]}
PLAN
for f in rudp rudp-pw; do
  rm -rf "$here/fixture-$f"
  "$build/bench/netproof-bench" matrix "$tmp/plans/$f.json" --output "$tmp/$f" --quiet
  mv "$tmp/$f" "$here/fixture-$f"
  # the folder appears in commands, suite.json and the records' own
  # config.command (the --output path)
  find "$here/fixture-$f" -type f -exec sed -i \
    -e "s|$tmp/plans/|PLANS/|g" -e "s|$tmp/$f|RESULTS|g" {} +
done
echo "regenerated $here/fixture-rudp and $here/fixture-rudp-pw"
