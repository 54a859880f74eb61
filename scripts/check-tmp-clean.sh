#!/bin/sh
# check-tmp-clean.sh - does a command (a test suite) leave files in /tmp?
#
#   scripts/check-tmp-clean.sh -- COMMAND [ARGS...]
#       List /tmp, run COMMAND with TMPDIR set to a fresh private folder,
#       list /tmp again.  A leftover is a new /tmp entry whose name matches
#       a pattern (default: np-* netproof-* tmp*; NP_TMP_PATTERNS overrides)
#       or anything left in the private TMPDIR.  Other processes on the
#       machine may create /tmp entries meanwhile: only the patterns count,
#       and an entry already gone by the second listing is not one.
#   scripts/check-tmp-clean.sh --compare BEFORE AFTER
#       The same judgement on two listings made earlier (`ls -1A /tmp`).
#
# Prints "leftover: PATH" per leftover and a last line with the count.
# Exit: COMMAND's own status when it failed; else 1 when anything was
# left over, 0 when nothing was; 2 for a usage error.
set -u
patterns=${NP_TMP_PATTERNS:-"np-* netproof-* tmp*"}

usage() {
  echo "usage: check-tmp-clean.sh -- COMMAND [ARGS...] | --compare BEFORE AFTER" >&2
  exit 2
}

# Names in $2 (a listing) not in $1 that match a pattern; $3 is skipped.
new_names() {
  sort -u "$1" > "$1.sorted"
  sort -u "$2" | comm -13 "$1.sorted" - | while IFS= read -r name; do
    [ "$name" = "${3:-}" ] && continue
    for p in $patterns; do
      # shellcheck disable=SC2254
      case "$name" in $p) echo "$name"; break ;; esac
    done
  done
  rm -f "$1.sorted"
}

report() { # $1 = number of leftovers
  if [ "$1" -eq 0 ]; then
    echo "check-tmp-clean: nothing left in /tmp"
  else
    echo "check-tmp-clean: $1 leftover(s) in /tmp"
  fi
}

[ $# -ge 1 ] || usage
case "$1" in
  --compare)
    [ $# -eq 3 ] && [ -r "$2" ] && [ -r "$3" ] || usage
    work=$(mktemp -d) || exit 3
    cp "$2" "$work/before"
    n=0
    for name in $(new_names "$work/before" "$3"); do
      echo "leftover: /tmp/$name"
      n=$((n + 1))
    done
    rm -rf "$work"
    report "$n"
    [ "$n" -eq 0 ]
    exit $?
    ;;
  --) shift ;;
  *) usage ;;
esac
[ $# -ge 1 ] || usage

private=$(mktemp -d /tmp/np-tmpcheck-XXXXXX) || exit 3
mkdir "$private/tmp" || exit 3
ls -1A /tmp > "$private/before"
rc=0
TMPDIR="$private/tmp" "$@" || rc=$?
ls -1A /tmp > "$private/after"
n=0
for name in $(new_names "$private/before" "$private/after" \
                "$(basename "$private")"); do
  [ -e "/tmp/$name" ] || continue
  echo "leftover: /tmp/$name"
  n=$((n + 1))
done
for path in "$private/tmp"/* "$private/tmp"/.[!.]*; do
  [ -e "$path" ] || continue
  echo "leftover: $path (in the command's TMPDIR)"
  n=$((n + 1))
done
rm -rf "$private"
report "$n"
[ "$rc" -ne 0 ] && exit "$rc"
[ "$n" -eq 0 ]
