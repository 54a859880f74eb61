#!/bin/sh
# Keeps the committed evidence true (issue 9):
#   selfcheck  every results/<set>/ passes netproof-report --self-check
#   bundle     every set packs into a bundle that netproof-archive verifies
#   pages      docs/performance/ regenerated from results/ is byte-identical
#              to the committed pages (hand-written *.reading.md included)
# usage: check_results.sh BUILD_DIR SOURCE_DIR selfcheck|bundle|pages
set -eu
build=$1
root=$2
what=$3
report="$build/report/netproof-report"
archive="$build/archive/netproof-archive"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

set --
for d in "$root"/results/*/; do
  [ -f "$d/suite.json" ] && set -- "$@" "${d%/}"
done
if [ $# -eq 0 ]; then
  echo "no result sets under $root/results" >&2
  exit 1
fi

fail=0
case "$what" in
selfcheck)
  for d in "$@"; do
    if "$report" --self-check --results "$d" >"$tmp/out" 2>&1; then
      echo "ok: $(basename "$d")"
    else
      echo "FAIL: $(basename "$d")"; cat "$tmp/out"; fail=1
    fi
  done
  ;;
bundle)
  for d in "$@"; do
    b="$tmp/$(basename "$d").tar.gz"
    if "$archive" pack "$d" -o "$b" >"$tmp/out" 2>&1 &&
       "$archive" verify "$b" >>"$tmp/out" 2>&1; then
      echo "ok: $(basename "$d") ($(wc -c <"$b") bytes)"
    else
      echo "FAIL: $(basename "$d")"; cat "$tmp/out"; fail=1
    fi
    rm -f "$b"
  done
  ;;
pages)
  mkdir -p "$tmp/pages"
  for f in "$root"/docs/performance/*.reading.md; do
    [ -f "$f" ] && cp "$f" "$tmp/pages/"
  done
  args=""
  for d in "$@"; do args="$args --results $d"; done
  # shellcheck disable=SC2086
  "$report" --pages $args --plans "$root/bench/plans" --output "$tmp/pages" \
    </dev/null >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; exit 1; }
  if diff -r "$root/docs/performance" "$tmp/pages" >"$tmp/diff"; then
    echo "ok: docs/performance regenerates byte for byte"
  else
    echo "FAIL: docs/performance differs from a regeneration (scripts/regen-pages.sh):"
    head -40 "$tmp/diff"; fail=1
  fi
  ;;
*)
  echo "unknown check $what" >&2; exit 2 ;;
esac
exit $fail
