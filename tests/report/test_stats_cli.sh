#!/bin/sh
# test_stats_cli.sh NETPROOF_REPORT STABLE_FIXTURE UDP_FIXTURE AA_A AA_B
# [NETPROOF_BENCH] -
# the statistics of issue 18 through the command line:
#   --error-bars: the default is ci95 for a set whose every configuration
#   has >= 5 runs (the until-stable fixture) and minmax otherwise; the
#   caption and report.json say which; a bar's ci95 is the interval
#   summary.json states; the double dagger of a missed until-stable target;
#   a bad value exits 2 with one line naming the option;
#   compare: identical sets exit 0 with no change; the committed A/A pair
#   (tests/report/fixture-aa-a/-b, docs/statistics.md) exits 1 on its
#   p99 regression and 0 with --threshold 20; --check clean, then 1 on an
#   edited compare.json; a set failing its self-check exits 1; NEW lacking
#   BASE's configurations (nothing compared) exits 1 with both reasons; bad options
#   and folders exit 2; too few runs a side (2, and the committed 3-run
#   io-models set raw against uv) make the gate inconclusive: exit 5, said
#   first, 0 with --allow-inconclusive, an edit to "pass" caught by --check;
#   the shipped plan udp-stable is valid (--dry-run).
set -u
bin=$1 st=$2 udp=$3 aa=$4 bb=$5 bench=${6:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-test-stats-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
jq_py() { f=$1 c=$2; shift 2; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $c" "$f" "$@"; }

# ---- --error-bars ----------------------------------------------------------
"$bin" --results "$st" --output "$tmp/r1" >/dev/null 2>&1 || fail "report of the stable fixture"
jq_py "$tmp/r1/report.json" '
ch=[c for c in d["charts"] if "throughput" in c["file"]][0]
assert ch.get("error_bars")=="ci95", "default error bars: "+str(ch.get("error_bars"))
assert "percentile-bootstrap" in ch["caption"], ch["caption"]
s=json.load(open(sys.argv[2]+"/summary.json"))
want={c["id"]:c["stats"]["roundtrips_per_sec"]["ci95"] for c in s["configurations"]}
for b in ch["series"]:
    w=want[b["config"]]
    assert abs(b["ci95"]["lo"]-w["lo"])<1e-6*w["lo"] and abs(b["ci95"]["hi"]-w["hi"])<1e-6*w["hi"], (b["ci95"], w)
    assert b["min"]<=b["ci95"]["lo"] and b["ci95"]["hi"]<=b["max"], b
    assert b.get("target_missed") is True, b   # both missed 0.5 %
' "$st" 2>"$tmp/err" || fail "ci95 chart: $(cat "$tmp/err")"
grep -q "| 95 % interval |" "$tmp/r1/index.md" || fail "ci95 table column"
grep -q "‡ interval target missed" "$tmp/r1/index.md" || fail "double dagger note"
grep -q "5 to 6 repetitions, until the 95 % interval" "$tmp/r1/index.md" || fail "until-stable suite row"
"$bin" --results "$st" --output "$tmp/r2" --error-bars minmax >/dev/null 2>&1 || fail "--error-bars minmax"
jq_py "$tmp/r2/report.json" '
ch=[c for c in d["charts"] if "throughput" in c["file"]][0]
assert "error_bars" not in ch and "min/max" in ch["caption"], ch["caption"]
assert all("ci95" not in b for b in ch["series"])
' 2>"$tmp/err" || fail "minmax chart: $(cat "$tmp/err")"
grep -q "| 95 % interval |" "$tmp/r2/index.md" && fail "minmax: no interval column"
"$bin" --results "$udp" --output "$tmp/r3" >/dev/null 2>&1 || fail "report of the 2-run fixture"
jq_py "$tmp/r3/report.json" '
assert all("error_bars" not in c for c in d["charts"]), "2 runs: min/max by default"
' 2>"$tmp/err" || fail "default for < 5 runs: $(cat "$tmp/err")"
"$bin" --results "$udp" --output "$tmp/r4" --error-bars ci95 >/dev/null 2>&1 || fail "--error-bars ci95 on 2 runs"
jq_py "$tmp/r4/report.json" '
ch=[c for c in d["charts"] if "throughput" in c["file"]][0]
assert ch["error_bars"]=="ci95" and "fewer than 5" in ch["caption"], ch["caption"]
assert all(b["ci95"] is None for b in ch["series"]), "no interval below 5 runs"
' 2>"$tmp/err" || fail "ci95 below 5 runs: $(cat "$tmp/err")"
"$bin" --results "$st" --output "$tmp/r5" --error-bars sd >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "--error-bars sd should exit 2"
[ "$(grep -c -- '--error-bars sd' "$tmp/out")" -eq 1 ] || fail "one line naming --error-bars: $(cat "$tmp/out")"

# ---- compare ----------------------------------------------------------------
"$bin" compare "$st" "$st" --output "$tmp/c1" >/dev/null 2>&1 || fail "identical sets should exit 0"
grep -q "2 no significant change" "$tmp/c1/compare.md" || fail "identical: no change"
for f in compare.md compare.csv compare.json assets/compare-roundtrips_per_sec.svg \
         assets/compare-roundtrips_per_sec-ratio.svg; do
  [ -s "$tmp/c1/$f" ] || fail "compare wrote $f"
done
"$bin" compare "$aa" "$bb" --output "$tmp/c2" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "A/A pair: p99 regression should exit 1: $(cat "$tmp/out")"
jq_py "$tmp/c2/compare.json" '
v={(c["id"]):c["metrics"]["rtt_p99_us"]["verdict"] for c in d["configurations"]}
assert v["udp-p1024-c4-w1-single-uv"]=="slower", v
r={(c["id"]):c["metrics"]["roundtrips_per_sec"]["verdict"] for c in d["configurations"]}
assert set(r.values())=={"no significant change"}, r
' 2>"$tmp/err" || fail "A/A verdicts: $(cat "$tmp/err")"
"$bin" compare "$aa" "$bb" --check "$tmp/c2" >"$tmp/out" 2>&1 || fail "check of a fresh comparison: $(cat "$tmp/out")"
# the verdict only: a totals key renamed too would be a duplicate member
# name, refused as unreadable input (exit 2) before any check
sed -i 's/"verdict":\(\s*\)"slower"/"verdict":\1"no significant change"/' "$tmp/c2/compare.json"
"$bin" compare "$aa" "$bb" --check "$tmp/c2" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "edited compare.json should fail its check"
grep -q "verdict" "$tmp/out" || fail "check names the verdict: $(cat "$tmp/out")"
"$bin" compare "$aa" "$bb" --threshold 20 --output "$tmp/c3" >/dev/null 2>&1 || fail "--threshold 20: within the noise threshold, exit 0"
cp -r "$st" "$tmp/bad"
sed -i "s/\"roundtrips_per_sec\":\t/\"roundtrips_per_sec\":\t9/" \
  "$tmp/bad/runs/udp-p1024-c4-w1-single-uv/rep-2.json"
"$bin" compare "$st" "$tmp/bad" --output "$tmp/c4" >/dev/null 2>&1
[ $? -eq 1 ] || fail "a set failing its self-check should exit 1"
"$bin" compare "$st" "$st" --alpha 2 --output "$tmp/c5" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--alpha 2 should exit 2"
"$bin" compare "$st" "$tmp/nonexistent" --output "$tmp/c6" >/dev/null 2>&1
[ $? -eq 2 ] || fail "unreadable NEW should exit 2"
# the gate also fails when BASE's configurations are missing from NEW, and
# when nothing is compared (here: NEW filtered down to nothing)
"$bin" compare "$st" "$st" --new-only 'no-such-id*' --output "$tmp/c7" >/dev/null 2>&1
[ $? -eq 1 ] || fail "NEW without BASE's configurations should exit 1"
grep -q "of base missing from new" "$tmp/c7/compare.md" || fail "gate reason: missing from new"
grep -q "no configuration compared" "$tmp/c7/compare.md" || fail "gate reason: nothing compared"
grep -q '"gate_reasons"' "$tmp/c7/compare.json" || fail "gate_reasons in compare.json"
# a gate that cannot fail does not pass (issue 26 item 5): with 2 runs a
# side (fixture-udp) no U test can reach 0.05, so the gate is
# inconclusive - exit 5, said first in compare.md, compare.json and on
# stderr - and --allow-inconclusive turns only the exit code into 0
"$bin" compare "$udp" "$udp" --output "$tmp/i1" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 5 ] || fail "2 runs a side: the gate should be inconclusive (exit 5): $(cat "$tmp/err")"
head -1 "$tmp/err" | grep -q "gate inconclusive" || fail "stderr starts with the gate: $(head -1 "$tmp/err")"
sed -n 3p "$tmp/i1/compare.md" | grep -q '^\*\*Gate: inconclusive' || fail "compare.md: gate line first: $(sed -n 3p "$tmp/i1/compare.md")"
jq_py "$tmp/i1/compare.json" '
assert list(d)[:4]==["schema","gate","gate_reasons","gate_inconclusive"], list(d)[:4]
assert d["gate"]=="inconclusive" and d["gate_reasons"]==[], d["gate"]
assert d["gate_inconclusive"] and all("need \u2265 " in l for l in d["gate_inconclusive"]), d["gate_inconclusive"]
for c in d["configurations"]:
    for m in c["metrics"].values():
        assert m["p_floor"]>=0.05 and m["verdict"].startswith("inconclusive (2 runs a side cannot detect a change at \u03b1 = 0.05"), m
        assert m["regression"] is False
assert d["totals"]["inconclusive"]==2*d["totals"]["compared"], d["totals"]
' 2>"$tmp/err" || fail "inconclusive compare.json: $(cat "$tmp/err")"
"$bin" compare "$udp" "$udp" --output "$tmp/i2" --allow-inconclusive >/dev/null 2>&1 || fail "--allow-inconclusive should exit 0"
cmp -s "$tmp/i1/compare.json" "$tmp/i2/compare.json" || fail "--allow-inconclusive changes only the exit code"
"$bin" compare "$udp" "$udp" --check "$tmp/i1" >"$tmp/out" 2>&1 || fail "check of an inconclusive comparison: $(cat "$tmp/out")"
sed -i 's/"verdict":\t"inconclusive ([^"]*)"/"verdict":\t"no significant change"/; s/"gate":\t"inconclusive"/"gate":\t"pass"/' "$tmp/i1/compare.json"
"$bin" compare "$udp" "$udp" --check "$tmp/i1" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a comparison edited to pass should fail its check"
grep -q "/gate: " "$tmp/out" && grep -q "/verdict: " "$tmp/out" || fail "check names the gate and the verdict: $(cat "$tmp/out")"
# the issue's case on committed data: raw against uv of one 3-run set,
# ratios from 0.88 to 2.28, used to print "Gate: pass"
io=$(cd "$(dirname "$0")/../.." && pwd)/results/vm-20261202-udp-io-models
if [ -d "$io" ]; then
  "$bin" compare "$io" "$io" --base-only '*-uv*' --new-only '*-raw*' --map raw=uv \
    --output "$tmp/i3" >/dev/null 2>&1
  [ $? -eq 5 ] || fail "3 runs a side with ratios up to 2.3: inconclusive, not pass"
  grep -q "Gate: pass" "$tmp/i3/compare.md" && fail "3 runs a side: no passing gate"
  jq_py "$tmp/i3/compare.json" '
v=[m["verdict"] for c in d["configurations"] for m in c["metrics"].values()]
assert v and all(x.startswith("inconclusive (3 runs a side") and "need \u2265 7 a side" in x for x in v), v[:2]
' 2>"$tmp/err" || fail "io-models verdicts: $(cat "$tmp/err")"
fi
if [ -n "$bench" ]; then
  "$bench" matrix udp-stable --dry-run --output "$tmp/m" >"$tmp/out" 2>&1 || fail "udp-stable --dry-run: $(cat "$tmp/out")"
fi
echo "ok"
