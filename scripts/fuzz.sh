#!/bin/sh
# Build the libFuzzer targets with clang into build-fuzz and run each for
# SECONDS (default 60) from its seed corpus tests/fuzz/corpus/<name>/ (an
# empty start when there is none) with tests/fuzz/<name>.dict if present.
# Seeds are copied to build-fuzz/corpus/ so the committed corpus never
# grows; crashes land in build-fuzz/artifacts/.  Exit non-zero on a crash.
#   scripts/fuzz.sh [SECONDS [NAME...]]    NAME: json schema archive_verify
#                                          agent_msg
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-60}
[ $# -gt 0 ] && shift
NAMES=${*:-json schema archive_verify agent_msg}
B=build-fuzz
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
SAN="$SAN -fno-sanitize-recover=undefined"
mkdir -p "$B"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DNP_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS="$SAN" >"$B/configure.log" 2>&1 ||
  { cat "$B/configure.log"; exit 1; }
targets=""
for n in $NAMES; do targets="$targets fuzz_$n"; done
# shellcheck disable=SC2086
cmake --build "$B" --target $targets -j2
mkdir -p "$B/artifacts"
status=0
for n in $NAMES; do
  work="$B/corpus/$n"
  mkdir -p "$work"
  if [ -d "tests/fuzz/corpus/$n" ]; then
    cp tests/fuzz/corpus/"$n"/* "$work"/
  fi
  dict=""
  [ -f "tests/fuzz/$n.dict" ] && dict="-dict=tests/fuzz/$n.dict"
  maxlen=4096
  [ "$n" = archive_verify ] && maxlen=16384 # bundles need room
  echo "fuzz_$n: ${SECS}s"
  # shellcheck disable=SC2086
  if ! "$B/tests/fuzz/fuzz_$n" -max_total_time="$SECS" -max_len="$maxlen" \
      -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 $dict \
      -artifact_prefix="$B/artifacts/$n-" "$work" >"$B/fuzz_$n.log" 2>&1; then
    status=1
    echo "fuzz_$n: FAILED, see $B/fuzz_$n.log and $B/artifacts/"
  fi
  grep -E 'DONE|^stat::number_of_executed_units|^stat::peak_rss' \
    "$B/fuzz_$n.log" || true
done
exit $status
