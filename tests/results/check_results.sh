#!/bin/sh
# Keeps the committed evidence true (issue 9):
#   selfcheck  every results/<set>/ passes netproof-report --self-check
#   bundle     every set packs into a bundle that netproof-archive verifies,
#              and every results/previous/*.tar.gz verifies
#   pages      docs/performance/ regenerated from results/ (and the compare
#              pages from results/previous/) by scripts/regen-pages.sh is
#              byte-identical to the committed pages (hand-written
#              *.reading.md included)
# usage: check_results.sh BUILD_DIR SOURCE_DIR selfcheck|bundle|pages
set -eu
build=$1
root=$2
what=$3
report="$build/report/netproof-report"
archive="$build/archive/netproof-archive"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-check-results.XXXXXX")
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
  # the previous release's sets, kept as bundles for the compare pages
  for b in "$root"/results/previous/*.tar.gz; do
    [ -f "$b" ] || continue
    if "$archive" verify "$b" >"$tmp/out" 2>&1; then
      echo "ok: previous/$(basename "$b")"
    else
      echo "FAIL: previous/$(basename "$b")"; cat "$tmp/out"; fail=1
    fi
  done
  ;;
pages)
  # the same script a maintainer runs, into a temporary folder
  sh "$root/scripts/regen-pages.sh" "$build" "$tmp/pages" >"$tmp/out" 2>&1 ||
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
