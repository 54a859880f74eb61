#!/bin/sh
# Recompute netproof's source SHA-256 with coreutils only; it must equal the
# value `netproof-* --version` prints (tests/common check this).
#
# Recipe (same as cmake/source_hash_gen.cmake): take CMakeLists.txt,
# Makefile, and every file under cmake/ scripts/ common/ schema/
# resultset/ bench/ runner/ report/ archive/ tools/ named *.c *.h *.json
# *.cmake *.sh *.py
# or CMakeLists.txt; sort the relative paths bytewise (LC_ALL=C); run
# sha256sum over them in that order; the SHA-256 of sha256sum's output is
# the source hash.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
{
  for f in CMakeLists.txt Makefile; do [ -f "$f" ] && echo "$f"; done
  for d in cmake scripts common schema resultset bench runner report archive \
           tools; do
    [ -d "$d" ] || continue
    find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.json' \
      -o -name '*.cmake' -o -name '*.sh' -o -name '*.py' \
      -o -name CMakeLists.txt \)
  done
} | LC_ALL=C sort -u | while IFS= read -r f; do sha256sum -- "$f"; done |
  sha256sum | cut -d' ' -f1
