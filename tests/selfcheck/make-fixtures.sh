#!/bin/sh
# make-fixtures.sh BUILD_DIR - regenerate the self-check corpus's real
# result sets with `netproof-bench matrix` (a few seconds each, loopback
# only), then replace the temporary folders by RESULTS and the build
# folder by BUILD everywhere, as tests/report/make-rudp-fixtures.sh does:
#   udp              3 configurations x 2 repetitions, one expected to fail
#                    (the overflow probe), complete
#   udp-interrupted  the same plan, SIGINT after the second repetition
#   udp-resumed      udp-interrupted finished by --resume (two sessions)
#   udp-killed       the same plan, the runner SIGKILLed while its third
#                    repetition runs (partial files, no summary.json)
#   udp-partial      --only the raw backend (status "partial")
#   rudp             ARQ only vs adaptive FEC through the relay's random
#                    profile, 2 rounds, one repetition each
#   udp-timeout      one repetition that finishes and one killed at the
#                    plan's 1 s timeout (the runner writes its record)
#   udp-stable       until_stable (5 to 6 repetitions, a 0.5 % target the
#                    runs miss or just meet): summary.json with intervals,
#                    outlier flags and until_stable per configuration
#   rudp-window      sliding-window FEC (--fec window) through the random
#                    profile, 2 rounds, one repetition
# `make-fixtures.sh BUILD_DIR udp-stable` (or rudp-window) regenerates that
# set alone.
# New fixtures mean new expected lines: run the corpus test and update
# tests/selfcheck/corpus.txt on purpose.
set -eu
build=${1:?usage: make-fixtures.sh BUILD_DIR [udp-stable]}
only=${2:-}
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/bench/netproof-bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-make-fixtures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/udp.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "selfcheck-udp",
 "description": "Self-check corpus: 1024 B x 4 clients on both backends, and the overflow probe (expected to fail), 2 repetitions of 0.2 s after 0.1 s warm-up.",
 "protocol": "udp", "repetitions": 2, "timeout_seconds": 20,
 "base": {"payload": 1024, "clients": 4, "window": 1, "warmup": 0.1,
          "seconds": 0.2},
 "configurations": [
   {"io-model": "single", "backend": "uv"},
   {"io-model": "single", "backend": "raw"},
   {"io-model": "single", "backend": "uv", "payload": 16384, "clients": 16,
    "window": 64, "udp-server-receive-buffer": 4194304}],
 "expectations": [
   {"match": {"payload": 16384}, "expect": "fail",
    "reason": "overflow probe: 16 clients x 64 x 16 KiB outstanding overflow the server's receive buffer"}]}
PLAN
cat > "$tmp/rudp.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "selfcheck-rudp",
 "description": "Self-check corpus: ARQ only vs adaptive FEC through the random profile, 1024 B x 4 clients, window 16, 2 rounds of 0.3 s after 0.1 s warm-up.",
 "protocol": "rudp", "repetitions": 1, "timeout_seconds": 30,
 "base": {"payload": 1024, "clients": 4, "window": 16, "warmup": 0.1,
          "seconds": 0.3, "rounds": 2, "profile": "random"},
 "dimensions": {"fec": ["none", "adaptive"]},
 "compare": ["fec"]}
PLAN
cat > "$tmp/rudp-window.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "selfcheck-rudp-window",
 "description": "Self-check corpus: sliding-window FEC through the random profile, 1024 B x 4 clients, window 16, 2 rounds of 0.3 s after 0.1 s warm-up.",
 "protocol": "rudp", "repetitions": 1, "timeout_seconds": 30,
 "base": {"payload": 1024, "clients": 4, "window": 16, "warmup": 0.1,
          "seconds": 0.3, "rounds": 2, "profile": "random"},
 "dimensions": {"fec": ["window"]}}
PLAN
cat > "$tmp/udp-timeout.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "selfcheck-timeout",
 "description": "Self-check corpus: a repetition killed at its timeout (the runner writes its record) and one that finishes.",
 "protocol": "udp", "repetitions": 1, "timeout_seconds": 1,
 "base": {"payload": 1024, "clients": 4, "window": 1, "warmup": 0.1},
 "configurations": [{"seconds": 0.2}, {"seconds": 3}]}
PLAN
cat > "$tmp/udp-stable.json" <<'PLAN'
{"schema": "netproof/plan/1", "suite": "selfcheck-stable",
 "description": "Self-check corpus: 1024 B x 4 clients on both backends, repetitions until the 95 % interval of the median round trips/s is within 0.5 % (5 to 6), 0.2 s after 0.1 s warm-up.",
 "protocol": "udp", "timeout_seconds": 20,
 "until_stable": {"ci_percent": 0.5, "min_repetitions": 5,
                  "max_repetitions": 6},
 "base": {"payload": 1024, "clients": 4, "window": 1, "warmup": 0.1,
          "seconds": 0.2},
 "configurations": [{"io-model": "single", "backend": "uv"},
                    {"io-model": "single", "backend": "raw"}]}
PLAN
# wait_for FILE: until FILE exists (at most 30 s)
wait_for() {
  i=0
  while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
run() { "$bin" matrix "$@" --quiet; }
# install_sets NAME...: move the temporary sets into place, paths replaced
install_sets() {
  for f in "$@"; do
    rm -rf "$here/fixture-$f"
    mv "$tmp/$f" "$here/fixture-$f"
    find "$here/fixture-$f" -type f -exec sed -i \
      -e "s|$tmp/$f|RESULTS|g" -e "s|$tmp/|PLANS/|g" -e "s|$build|BUILD|g" {} +
  done
}
if [ "$only" = rudp-window ]; then
  run "$tmp/rudp-window.json" --output "$tmp/rudp-window" || true
  install_sets rudp-window
  echo "regenerated $here/fixture-rudp-window"
  exit 0
fi
run "$tmp/udp-stable.json" --output "$tmp/udp-stable" || true
if [ "$only" = udp-stable ]; then
  install_sets udp-stable
  echo "regenerated $here/fixture-udp-stable"
  exit 0
fi
run "$tmp/udp.json" --output "$tmp/udp" || true
run "$tmp/rudp.json" --output "$tmp/rudp" || true
run "$tmp/rudp-window.json" --output "$tmp/rudp-window" || true
run "$tmp/udp-timeout.json" --output "$tmp/udp-timeout" || true
"$bin" matrix "$tmp/udp.json" --output "$tmp/udp-interrupted" --quiet &
pid=$!
wait_for "$tmp/udp-interrupted/runs/udp-p1024-c4-w1-single-raw/rep-1.json"
kill -INT $pid
wait $pid || true
cp -r "$tmp/udp-interrupted" "$tmp/udp-resumed"
run "$tmp/udp.json" --output "$tmp/udp-resumed" --resume || true
"$bin" matrix "$tmp/udp.json" --output "$tmp/udp-killed" --quiet &
pid=$!
wait_for "$tmp/udp-killed/runs/udp-p1024-c4-w1-single-raw/rep-1.cmd.txt"
sleep 0.15
kill -KILL $pid
wait $pid || true
sleep 0.3
run "$tmp/udp.json" --output "$tmp/udp-partial" --only 'udp-*-raw' || true
install_sets udp udp-interrupted udp-resumed udp-killed udp-partial rudp \
  udp-timeout udp-stable rudp-window
echo "regenerated $here/fixture-*"
