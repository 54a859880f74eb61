#!/usr/bin/env bash
# rudp_fec_targets.sh - issue 8's benchmark targets for `netproof-bench rudp
# --fec none|fixed|adaptive`, and issue 30's for the sliding-window code
# (`--fec window`), side by side in one run.  Release build.
# The strategies alternate: round r runs every case once (seed 42 + r, one
# round per invocation) before round r + 1 starts, so load from other users
# of the machine spreads over all strategies alike.  Median / min / max are
# over the ROUNDS invocations of a case.
#
#   bench/scripts/rudp_fec_targets.sh [BUILD_DIR] [OUT_DIR]
#   env: ROUNDS (3), SECONDS_PER_ROUND (3), WARMUP (2), CC (bbr), EXTRA
#        (more options for every case, e.g. "--fec-wait-ms 1"), ONLY (an
#        extended regex: run only the cases it matches, e.g.
#        '^(random|burst)-(adaptive|window)$'; the others print "-")
#
# Targets (issue 8):
#   random, 1024 B, 4 clients, window 16, single, best strategy:
#       >= 2,500 rt/s, p99 <= 60 ms, network overhead <= 40 %
#   burst, same: >= 2,500 rt/s, p99 <= 60 ms
#   none profile: FEC on >= 0.7 x ARQ-only throughput
#   64 B, window 1, random: adaptive >= ARQ-only throughput
#   CPU per round trip with FEC <= 1.5 x ARQ-only
# Targets (issue 30, --fec window):
#   random: >= 3,000 rt/s, p99 <= 45 ms, overhead <= 30 %
#   burst:  >= 3,000 rt/s, overhead <= 35 %
# Exit status: 0 when every run passed its checks (targets missed are
# reported, not failed: they are measurements).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-rudp-release}
OUT=${2:-$BUILD/rudp-fec-targets}
ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_ROUND:-3}
WARMUP=${WARMUP:-2}
CC=${CC:-bbr}
read -r -a EXTRA_ARGS <<<"${EXTRA:-}"
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.stderr
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target netproof-bench -j2 >/dev/null
BENCH=$BUILD/bench/netproof-bench

# case name | options
CASES=(
  "random-none|--profile random --payload 1024 --window 16 --fec none"
  "random-fixed|--profile random --payload 1024 --window 16 --fec fixed"
  "random-adaptive|--profile random --payload 1024 --window 16 --fec adaptive"
  "random-window|--profile random --payload 1024 --window 16 --fec window"
  "burst-none|--profile burst --payload 1024 --window 16 --fec none"
  "burst-fixed|--profile burst --payload 1024 --window 16 --fec fixed"
  "burst-adaptive|--profile burst --payload 1024 --window 16 --fec adaptive"
  "burst-window|--profile burst --payload 1024 --window 16 --fec window"
  "clean-none|--profile none --payload 1024 --window 16 --fec none"
  "clean-fixed|--profile none --payload 1024 --window 16 --fec fixed"
  "clean-adaptive|--profile none --payload 1024 --window 16 --fec adaptive"
  "clean-window|--profile none --payload 1024 --window 16 --fec window"
  "small-none|--profile random --payload 64 --window 1 --fec none"
  "small-fixed|--profile random --payload 64 --window 1 --fec fixed"
  "small-adaptive|--profile random --payload 64 --window 1 --fec adaptive"
  "small-window|--profile random --payload 64 --window 1 --fec window"
)
ONLY=${ONLY:-.}

status=0
for ((r = 0; r < ROUNDS; r++)); do
  for c in "${CASES[@]}"; do
    name=${c%%|*}
    [[ $name =~ $ONLY ]] || continue
    read -r -a opts <<<"${c#*|}"
    rc=0
    "$BENCH" rudp --clients 4 --io-model single --io-threads 1 --cc "$CC" \
      --fec-group 8 --fec-parity 2 --fec-wait-ms 2 \
      --fec-budget-bytes 1048576 "${opts[@]}" "${EXTRA_ARGS[@]}" \
      --seconds "$SECS" --warmup "$WARMUP" --rounds 1 --seed $((42 + r)) \
      --output "$OUT/$name.r$r.json" 2>"$OUT/$name.r$r.stderr" || rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "$name round $r: exit $rc (see $OUT/$name.r$r.stderr)" >&2
      status=1
    fi
  done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import glob, json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    recs = []
    for f in sorted(glob.glob(os.path.join(out, name + ".r*.json"))):
        with open(f) as fh:
            recs.append(json.load(fh))
    return recs
def vals(recs, fn):
    return [fn(d) for d in recs]
def rt(d): return d["measurement"]["roundtrips_per_sec"]
def p99(d):
    v = d["measurement"]["rtt_us"]["p99"]; return v / 1000 if v is not None else float("nan")
def ovh(d): return d["rudp"]["rounds"][0]["arq"]["network_overhead_percent"]
def cpu(d): return d["rudp"]["summary"]["cpu_us_per_roundtrip"]["median"]
def rec(d): return d["rudp"]["rounds"][0]["fec"]["recoveries_per_1000_roundtrips"]
def retx(d): return d["rudp"]["rounds"][0]["arq"]["retransmits_per_1000_roundtrips"]
def unrec(d): return d["rudp"]["rounds"][0]["fec"]["unrecoverable_groups"]
def loss(d): return d["rudp"]["rounds"][0]["relay"]["window"]["applied_loss_percent"]
def pm(d): return d["rudp"]["rounds"][0]["fec"]["parity_mean"]
def fmt(xs, nd=0):
    if not xs: return "-"
    return f"{statistics.median(xs):.{nd}f} [{min(xs):.{nd}f}..{max(xs):.{nd}f}]"
med = lambda recs, fn: statistics.median(vals(recs, fn)) if recs else float("nan")
cols = [("rt/s", rt, 0), ("p99 ms", p99, 1), ("overhead %", ovh, 1),
        ("cpu us/rt", cpu, 1), ("rec/1000", rec, 1), ("retx/1000", retx, 1),
        ("unrec", unrec, 0), ("parity", pm, 2), ("loss %", loss, 2)]
print(f"{'case':16} {'ok':5} " + " ".join(f"{c[0]:>24}" for c in cols))
data = {}
for grp in ["random", "burst", "clean", "small"]:
    for s in ["none", "fixed", "adaptive", "window"]:
        name = f"{grp}-{s}"
        recs = load(name)
        data[name] = recs
        ok = sum(d["status"] == "passed" for d in recs)
        print(f"{name:16} {ok}/{len(recs):<3} " +
              " ".join(f"{fmt(vals(recs, c[1]), c[2]):>24}" for c in cols))
    print()
def best(grp):
    return max(["none", "fixed", "adaptive"],
               key=lambda s: med(data[f"{grp}-{s}"], rt) if data[f"{grp}-{s}"] else -1)
def verdict(ok): return "MET" if ok else "MISSED"
print("targets (medians over rounds):")
for grp in ["random", "burst"]:
    b = best(grp); r = data[f"{grp}-{b}"]
    line = (f"  {grp}: best {b}: {med(r, rt):.0f} rt/s (>= 2500 {verdict(med(r, rt) >= 2500)}), "
            f"p99 {med(r, p99):.1f} ms (<= 60 {verdict(med(r, p99) <= 60)})")
    if grp == "random":
        line += f", overhead {med(r, ovh):.1f} % (<= 40 {verdict(med(r, ovh) <= 40)})"
    print(line)
for grp, o_max in [("random", 30), ("burst", 35)]:
    r = data[f"{grp}-window"]
    if not r:
        continue
    line = (f"  issue 30, {grp} window: {med(r, rt):.0f} rt/s (>= 3000 {verdict(med(r, rt) >= 3000)}), "
            f"overhead {med(r, ovh):.1f} % (<= {o_max} {verdict(med(r, ovh) <= o_max)})")
    if grp == "random":
        line += f", p99 {med(r, p99):.1f} ms (<= 45 {verdict(med(r, p99) <= 45)})"
    a = data[f"{grp}-adaptive"]
    if a:
        line += f"; RS adaptive alongside: {med(a, rt):.0f} rt/s, p99 {med(a, p99):.1f} ms, overhead {med(a, ovh):.1f} %"
    print(line)
if not (data["clean-none"] and data["small-none"]):
    sys.exit(0)
base = med(data["clean-none"], rt)
for s in ["fixed", "adaptive", "window"]:
    x = med(data[f"clean-{s}"], rt)
    print(f"  none profile: {s} {x:.0f} / ARQ-only {base:.0f} = {x / base:.2f}x (>= 0.7 {verdict(x >= 0.7 * base)})")
a, n = med(data["small-adaptive"], rt), med(data["small-none"], rt)
print(f"  64 B window 1 random: adaptive {a:.0f} vs ARQ-only {n:.0f} rt/s = {a / n:.2f}x (>= 1.0 {verdict(a >= n)})")
for grp in ["random", "burst", "clean", "small"]:
    c0 = med(data[f"{grp}-none"], cpu)
    for s in ["fixed", "adaptive", "window"]:
        c1 = med(data[f"{grp}-{s}"], cpu)
        print(f"  cpu/rt {grp}: {s} {c1:.1f} us vs ARQ-only {c0:.1f} us = {c1 / c0:.2f}x (<= 1.5 {verdict(c1 <= 1.5 * c0)})")
PY
echo "rounds: $ROUNDS per case, alternating; ${SECS} s measured after ${WARMUP} s warm-up; cc $CC"
echo "machine: $(nproc) logical cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
