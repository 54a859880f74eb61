#!/bin/sh
# regen-goldens.sh BUILD_DIR - rewrite tests/report/golden/ (index report
# of the quick fixture) and tests/report/golden-pages/ (performance pages
# of the limits, isolation and quick fixtures) from the committed
# fixtures.  Run only when an output change is intended, and review the
# diff (look at the charts) before committing it.  golden-pages/
# udp.reading.md is hand-written and kept.
set -eu
build=${1:?usage: regen-goldens.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/golden"
# The label "fixture" matches what test_report_golden passes.
"$build/report/netproof-report" --results "$here/fixture" --output "$here/golden" </dev/null
find "$here/golden-pages" -mindepth 1 ! -name '*.reading.md' -delete 2>/dev/null || true
"$build/report/netproof-report" --pages --results "$here/fixture-limits" \
  --results "$here/fixture-isolation" --results "$here/fixture" \
  --output "$here/golden-pages" </dev/null
echo "regenerated $here/golden and $here/golden-pages"
# Reliable UDP: index report and rudp page of fixture-rudp + fixture-rudp-pw
# (the test writes them with --write, then compares).
rm -rf "$here/golden-rudp"
"$build/tests/report/test_report_rudp" "$here/fixture-rudp" \
  "$here/fixture-rudp-pw" "$here/golden-rudp" --write </dev/null >/dev/null
echo "regenerated $here/golden-rudp"
