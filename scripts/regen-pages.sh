#!/bin/sh
# regen-pages.sh [BUILD_DIR [OUT_DIR]] - regenerate docs/performance/ (or
# OUT_DIR) from every committed result set under results/ (issue 9), and
# one comparison per bundle under results/previous/ (issue 21).
#
# Generated pages and assets are removed first so a set that left results/
# leaves no stale chart; the hand-written docs/performance/*.reading.md are
# kept (copied into OUT_DIR when it is another folder) and embedded with
# their references expanded from the sets (docs/report.md, "Figures in
# readings").  Byte-identical on regeneration: CI (tests/results) runs this
# into a temporary folder and fails on any difference.
#
# Each page names the measuring hash its sets carry; in a git checkout the
# script also passes --measuring-changes (below), so a page whose sets
# were measured by other code than this tree's lists the measuring files
# changed since.
#
# results/previous/<set>.tar.gz are the sets of the previous release,
# stored as verified bundles (netproof-archive) to keep results/ small.
# Each is verified, unpacked into a temporary folder and compared with the
# current set of the same suite (`netproof-report compare`, written to
# OUT_DIR/compare/<suite>/); a comparison that finds a regression (exit 1)
# or cannot conclude at its run counts (inconclusive, exit 5 without
# --allow-inconclusive) is a page like any other, not a failure of this
# script.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/docs/performance}
report="$build/report/netproof-report"
archive="$build/archive/netproof-archive"
[ -x "$report" ] || { echo "regen-pages: $report not built" >&2; exit 2; }
set --
for d in "$root"/results/*/; do
  [ -f "$d/suite.json" ] && set -- "$@" --results "${d%/}"
done
[ $# -gt 0 ] || { echo "regen-pages: no result sets under $root/results" >&2; exit 2; }
mkdir -p "$out"
find "$out" -mindepth 1 ! -name '*.reading.md' -delete
if [ "$(cd "$out" && pwd)" != "$root/docs/performance" ]; then
  for f in "$root"/docs/performance/*.reading.md; do
    [ -f "$f" ] && cp "$f" "$out/"
  done
fi
"$report" --self-check "$@"

# --measuring-changes (docs/report.md, "Measuring code"): the tree's
# measuring hash and, for each distinct hash the sets carry (measuring,
# else a pre-0.3 set's source hash), the measuring files changed since
# the commit that has it - found among the 60 commits before the set
# started by recomputing the hash of each (scripts/source-hash.sh over
# git archive).  Without git (a source tarball) the pages only name the
# sets' hashes.
measuring_dirs="CMakeLists.txt cmake common schema model bench runner"
source_dirs="CMakeLists.txt Makefile cmake scripts common schema model resultset bench runner report archive tools"
tool_hash() { # FILE KEY: the suite's tool.KEY
  tr -d '\n\t ' <"$1" | sed -n "s/.*\"tool\":{[^}]*\"$2\":\"\([0-9a-f]*\)\".*/\1/p"
}
commit_of() { # HASH KIND(measuring|source) BEFORE: the commit, or nothing
  for c in $(git -C "$root" rev-list --before="$3" --max-count=60 HEAD); do
    w=$(mktemp -d "${TMPDIR:-/tmp}/np-regen-pages.XXXXXX")
    # shellcheck disable=SC2086
    paths=$(git -C "$root" ls-tree --name-only "$c" -- $source_dirs)
    # shellcheck disable=SC2086
    git -C "$root" archive "$c" -- $paths | tar -x -C "$w"
    if [ "$2" = measuring ]; then h=$(sh "$root/scripts/source-hash.sh" --measuring "$w")
    else h=$(sh "$root/scripts/source-hash.sh" "$w"); fi
    rm -rf "$w"
    [ "$h" = "$1" ] && { echo "$c"; return 0; }
  done
  return 0
}
changes=$(mktemp)
meas_opt=""
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  [ "$(git -C "$root" rev-parse --is-shallow-repository)" = true ] &&
    echo "regen-pages.sh: a shallow clone: sets whose commit is not in it get a '?' banner (git fetch --unshallow)" >&2
  echo "tree $(sh "$root/scripts/source-hash.sh" --measuring "$root")" >"$changes"
  tree=$(sed -n 's/^tree //p' "$changes")
  seen=" "
  for d in "$root"/results/*/; do
    [ -f "$d/suite.json" ] || continue
    h=$(tool_hash "$d/suite.json" measuring_source_sha256); kind=measuring
    [ -n "$h" ] || { h=$(tool_hash "$d/suite.json" source_sha256); kind=source; }
    case "$seen" in *" $h "*) continue ;; esac
    seen="$seen$h "
    [ "$kind" = measuring ] && [ "$h" = "$tree" ] && continue
    at=$(tr -d '\n\t ' <"$d/suite.json" | sed -n 's/.*"started_at":"\([^"]*\)".*/\1/p' | head -1)
    c=$(commit_of "$h" "$kind" "${at:-now}")
    if [ -z "$c" ]; then echo "$h ?" >>"$changes"; continue; fi
    # shellcheck disable=SC2086
    git -C "$root" diff --name-only "$c" -- $measuring_dirs | LC_ALL=C sort |
      sed "s|^|$h |" >>"$changes"
  done
  meas_opt="--measuring-changes $changes"
fi
# --plans: the headline of a plan (bench/plans/<plan>.json) for sets run
# before the plan named one
# shellcheck disable=SC2086
"$report" --pages "$@" --plans "$root/bench/plans" $meas_opt --output "$out" </dev/null
rm -f "$changes"

# the suite a set ran: suite.json's "suite" (indented or one line)
suite_of() {
  sed -n 's/^[[:space:]]*"suite":[[:space:]]*"\([^"]*\)".*/\1/p' "$1/suite.json" |
    head -1
}

ls "$root"/results/previous/*.tar.gz >/dev/null 2>&1 || exit 0
[ -x "$archive" ] || { echo "regen-pages: $archive not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-regen-pages.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for b in "$root"/results/previous/*.tar.gz; do
  name=$(basename "$b" .tar.gz)
  "$archive" verify "$b" >/dev/null
  mkdir "$tmp/$name"   # one empty folder per bundle: extract refuses a used one
  "$archive" extract "$b" -C "$tmp/$name" >/dev/null
  base="$tmp/$name/$name/data/$name"
  suite=$(suite_of "$base")
  new=""
  for d in "$root"/results/*/; do
    [ -f "$d/suite.json" ] && [ "$(suite_of "$d")" = "$suite" ] && new=${d%/}
  done
  if [ -z "$new" ]; then
    echo "regen-pages: $b: no current set of suite $suite to compare with" >&2
    exit 2
  fi
  rc=0
  "$report" compare "$base" "$new" --output "$out/compare/$suite" \
    --allow-inconclusive >/dev/null || rc=$?
  [ $rc -le 1 ] || exit $rc
done
