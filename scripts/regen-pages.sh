#!/bin/sh
# regen-pages.sh [BUILD_DIR] - regenerate docs/performance/ from every
# committed result set under results/ (issue 9).  Generated pages and
# assets are removed first so a set that left results/ leaves no stale
# chart; the hand-written docs/performance/*.reading.md are kept and
# embedded verbatim.  Byte-identical on regeneration: CI runs this and
# fails on `git diff --exit-code docs/performance`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
report="$build/report/netproof-report"
out="$root/docs/performance"
[ -x "$report" ] || { echo "regen-pages: $report not built" >&2; exit 2; }
set --
for d in "$root"/results/*/; do
  [ -f "$d/suite.json" ] && set -- "$@" --results "${d%/}"
done
[ $# -gt 0 ] || { echo "regen-pages: no result sets under $root/results" >&2; exit 2; }
mkdir -p "$out"
find "$out" -mindepth 1 ! -name '*.reading.md' -delete
"$report" --self-check "$@"
# --plans: the headline of a plan (bench/plans/<plan>.json) for sets run
# before the plan named one
"$report" --pages "$@" --plans "$root/bench/plans" --output "$out" </dev/null
