#!/bin/sh
# regen-goldens.sh BUILD_DIR - rewrite tests/model/golden/<kind>.json, one
# run record of each kind built from fixed inputs (test_golden_records.c).
# Run only when a record's bytes are meant to change, and review the diff
# (git diff --word-diff tests/model/golden) before committing it.
set -eu
build=${1:?usage: regen-goldens.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
"$build/tests/model/test_golden_records" "$here/golden" --write
echo "regenerated $here/golden"
