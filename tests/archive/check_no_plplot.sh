#!/bin/sh
# check_no_plplot.sh ARCHIVE_BIN REPORT_BIN - netproof-archive builds on
# np_results, not on the report library: its shared libraries (ldd) must
# not include plplot.  netproof-report, which does draw charts, is the
# control that proves the pattern would catch it.  Exit 77 (ctest: skipped)
# when ldd is missing.
archive=$1
report=$2
if ! command -v ldd >/dev/null 2>&1; then
  echo "SKIP: ldd not found; cannot list shared libraries"
  exit 77
fi
a=$(ldd "$archive") || { echo "FAIL: ldd $archive failed"; exit 1; }
r=$(ldd "$report") || { echo "FAIL: ldd $report failed"; exit 1; }
if ! echo "$a" | grep -q 'libarchive\.so'; then
  echo "FAIL: ldd $archive does not list libarchive: $a"
  exit 1
fi
if ! echo "$r" | grep -qi 'plplot'; then
  echo "FAIL: control: ldd $report lists no plplot: $r"
  exit 1
fi
if echo "$a" | grep -i 'plplot'; then
  echo "FAIL: $archive links plplot (it must link np_results, not np_report)"
  exit 1
fi
echo "ok: $archive links no plplot"
