#!/bin/sh
# regen-goldens.sh BUILD_DIR - rewrite tests/report/golden/ from the
# committed fixture.  Run only when an output change is intended, and
# review the diff (look at the charts) before committing it.
set -eu
build=${1:?usage: regen-goldens.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/golden"
# The label "fixture" matches what test_report_golden passes.
"$build/report/netproof-report" --results "$here/fixture" --output "$here/golden" </dev/null
echo "regenerated $here/golden"
