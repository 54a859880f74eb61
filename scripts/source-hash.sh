#!/bin/sh
# Recompute netproof's source SHA-256 with coreutils only; it must equal the
# value `netproof-* --version` prints (tests/common check this).
#
#   scripts/source-hash.sh [--measuring] [ROOT]
#
# Recipe (same as cmake/source_hash_gen.cmake): take the set's top-level
# files and every file under its folders named *.c *.h *.json *.cmake *.sh
# *.py or CMakeLists.txt; sort the relative paths bytewise (LC_ALL=C); run
# sha256sum over them in that order; the SHA-256 of sha256sum's output is
# the hash.
#   source (default): CMakeLists.txt, Makefile; cmake/ scripts/ common/
#     schema/ model/ resultset/ bench/ runner/ report/ archive/ tools/
#   --measuring (tool.measuring_source_sha256, the code a record's figures
#     come from): CMakeLists.txt; cmake/ common/ schema/ model/ bench/
#     runner/ - not report/, archive/, resultset/, tools/, docs/, tests/
set -eu
top="CMakeLists.txt Makefile"
dirs="cmake scripts common schema model resultset bench runner report archive tools"
if [ "${1:-}" = --measuring ]; then
  top="CMakeLists.txt"
  dirs="cmake common schema model bench runner"
  shift
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
{
  for f in $top; do [ -f "$f" ] && echo "$f"; done
  for d in $dirs; do
    [ -d "$d" ] || continue
    find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.json' \
      -o -name '*.cmake' -o -name '*.sh' -o -name '*.py' \
      -o -name CMakeLists.txt \)
  done
} | LC_ALL=C sort -u | while IFS= read -r f; do sha256sum -- "$f"; done |
  sha256sum | cut -d' ' -f1
