#!/usr/bin/env bash
# rudp_issue20.sh - issue 20's table for `netproof-bench rudp`, re-measured:
# every row with its figure, its target and its bound, plus CPU and
# system calls per round trip and spurious retransmissions as a share of
# all retransmissions, per strategy and delivery mode.  Release build.
#
#   bench/scripts/rudp_issue20.sh [BUILD_DIR] [OUT_DIR]
#   env: ROUNDS (5), SECONDS_PER_ROUND (3), WARMUP (2), EXTRA (options for
#        every rudp case), STRACE (1: also count every system call of the
#        whole process with strace -c -f, one short run per case),
#        BEFORE_BUILD (a build of the tree before issue 20: its strace
#        counts are printed beside, with the options it knows)
#
# Workload (the issue's): 1,024 B x 4 clients x window 16, single loop,
# bbr.  Cases alternate: round r runs every case once (seed 42 + r) before
# round r + 1, so load from other users falls on all of them alike;
# median [min..max] over the ROUNDS invocations of a case.
#
# Bounds:
#   none profile:  a plain UDP echo through the same in-process relay,
#                  same clients, window and payload (np_rudp_plain_bound,
#                  one round per r like the rest);
#   lossy profiles: window x clients / (2 x one-way delay) = 64 / 20 ms
#                  = 3,200 round trips/s.
# Exit status: 0 when every run passed its checks (a missed target is
# reported, not failed: these are measurements).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-rudp-release}
OUT=${2:-$BUILD/rudp-issue20}
ROUNDS=${ROUNDS:-5}
SECS=${SECONDS_PER_ROUND:-3}
WARMUP=${WARMUP:-2}
read -r -a EXTRA_ARGS <<<"${EXTRA:-}"
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.stderr "$OUT"/*.bound "$OUT"/*.strace
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target netproof-bench np_rudp_plain_bound -j2 \
  >/dev/null
BENCH=$BUILD/bench/netproof-bench
BOUND=$BUILD/tools/np_rudp_plain_bound
COMMON=(--payload 1024 --clients 4 --window 16 --io-model single
        --io-threads 1 --cc bbr)

# case name | options
CASES=(
  "none-arq-ordered|--profile none --fec none --delivery ordered"
  "none-arq-unordered|--profile none --fec none --delivery unordered"
  "random-arq-ordered|--profile random --fec none --delivery ordered"
  "random-arq-unordered|--profile random --fec none --delivery unordered"
  "random-fixed-unordered|--profile random --fec fixed --delivery unordered"
  "random-adaptive-ordered|--profile random --fec adaptive --delivery ordered"
  "random-adaptive-unordered|--profile random --fec adaptive --delivery unordered"
  "burst-arq-unordered|--profile burst --fec none --delivery unordered"
  "burst-fixed-unordered|--profile burst --fec fixed --delivery unordered"
  "burst-adaptive-unordered|--profile burst --fec adaptive --delivery unordered"
)

status=0
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < ROUNDS; r++)); do
  "$BOUND" --clients 4 --window 16 --payload 1024 --seconds "$SECS" \
    --warmup "$WARMUP" >"$OUT/bound.r$r.bound"
  for c in "${CASES[@]}"; do
    name=${c%%|*}
    read -r -a opts <<<"${c#*|}"
    rc=0
    "$BENCH" rudp "${COMMON[@]}" "${opts[@]}" "${EXTRA_ARGS[@]}" \
      --seconds "$SECS" --warmup "$WARMUP" --rounds 1 --seed $((42 + r)) \
      --output "$OUT/$name.r$r.json" 2>"$OUT/$name.r$r.stderr" || rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "$name round $r: exit $rc (see $OUT/$name.r$r.stderr)" >&2
      status=1
    fi
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# Whole-process system calls (endpoints and relay) per round trip.
strace_case() { # bench, tag, options...
  local bench=$1 tag=$2; shift 2
  strace -f -c -o "$OUT/$tag.strace" "$bench" rudp "${COMMON[@]}" "$@" \
    --seconds 2 --warmup 1 --rounds 1 --seed 42 --quiet \
    --output "$OUT/$tag.strace.json" || true
}
if [ "${STRACE:-0}" = 1 ]; then
  for c in "${CASES[@]}"; do
    name=${c%%|*}
    read -r -a opts <<<"${c#*|}"
    strace_case "$BENCH" "$name" "${opts[@]}" "${EXTRA_ARGS[@]}"
    if [ -n "${BEFORE_BUILD:-}" ] && [[ "$name" == *-ordered ]]; then
      old=()
      for o in "${opts[@]}"; do [ "$o" = --delivery ] || [ "$o" = ordered ] || old+=("$o"); done
      strace_case "$BEFORE_BUILD/bench/netproof-bench" "before-$name" "${old[@]}"
    fi
  done
fi

python3 - "$OUT" "$ROUNDS" <<'PY'
import glob, json, os, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    recs = []
    for f in sorted(glob.glob(os.path.join(out, name + ".r*.json"))):
        with open(f) as fh:
            recs.append(json.load(fh))
    return recs
R = lambda d: d["rudp"]["rounds"][0]
def rt(d): return d["measurement"]["roundtrips_per_sec"]
def p99(d):
    v = d["measurement"]["rtt_us"]["p99"]; return v / 1000 if v is not None else float("nan")
def ovh(d): return R(d)["arq"]["network_overhead_percent"]
def cpu(d): return d["rudp"]["summary"]["cpu_us_per_roundtrip"]["median"]
def sysc(d): return R(d)["io"]["syscalls_per_roundtrip"]
def dps(d):
    io = R(d)["io"]
    return (io["recv_datagrams"] + io["send_datagrams"]) / max(1, io["recv_syscalls"] + io["send_syscalls"])
def retx(d): return R(d)["arq"]["retransmits_per_1000_roundtrips"]
def spur(d):
    a = R(d)["arq"]; return 100 * a["spurious_retransmits"] / a["retransmits"] if a["retransmits"] else 0.0
def rec(d): return R(d)["fec"]["recoveries_per_1000_roundtrips"]
def ret(d): return R(d)["fec"]["retained"]["sample_mean_bytes"] / 1024
def pm(d): return R(d)["fec"]["parity_mean"]
def fmt(xs, nd=0):
    if not xs: return "-"
    return f"{statistics.median(xs):,.{nd}f} [{min(xs):,.{nd}f}..{max(xs):,.{nd}f}]"
med = lambda xs: statistics.median(xs) if xs else float("nan")
bounds = []
for f in sorted(glob.glob(os.path.join(out, "bound.r*.bound"))):
    m = re.search(r"roundtrips_per_sec (\S+) p50_us (\S+) p99_us (\S+)", open(f).read())
    if m: bounds.append((float(m.group(1)), float(m.group(3)) / 1000))
cols = [("rt/s", rt, 0), ("p99 ms", p99, 1), ("overhead %", ovh, 1),
        ("cpu us/rt", cpu, 1), ("syscalls/rt", sysc, 2), ("dgrams/call", dps, 2),
        ("retx/1000", retx, 1), ("spurious %", spur, 0), ("rec/1000", rec, 1),
        ("parity", pm, 2), ("retained KiB", ret, 0)]
print("| case | passed | " + " | ".join(c[0] for c in cols) + " |")
print("|---|---:|" + "---:|" * len(cols))
data = {}
names = [os.path.basename(f).split(".r")[0] for f in glob.glob(os.path.join(out, "*.r0.json"))]
order = ["none-arq-ordered", "none-arq-unordered", "random-arq-ordered",
         "random-arq-unordered", "random-fixed-unordered", "random-adaptive-ordered",
         "random-adaptive-unordered", "burst-arq-unordered", "burst-fixed-unordered",
         "burst-adaptive-unordered"]
for name in [n for n in order if n in names]:
    recs = load(name); data[name] = recs
    ok = sum(d["status"] == "passed" for d in recs)
    print(f"| {name} | {ok}/{len(recs)} | " +
          " | ".join(fmt([c[1](d) for d in recs], c[2]) for c in cols) + " |")
print(f"| plain echo bound (same relay) | {len(bounds)}/{rounds} | "
      f"{fmt([b[0] for b in bounds])} | {fmt([b[1] for b in bounds], 2)} |" + " - |" * (len(cols) - 2))
print()
def V(ok): return "met" if ok else "MISSED"
def best(prefix):
    c = [n for n in data if n.startswith(prefix) and "-arq-" not in n]
    return max(c, key=lambda n: med([rt(d) for d in data[n]])) if c else None
lossy = 16 * 4 / (2 * 0.010)
bmed = med([b[0] for b in bounds])
print("| row | figure: median [min..max] | target | bound | verdict |")
print("|---|---|---|---|---|")
for name in ["none-arq-ordered", "none-arq-unordered"]:
    if name not in data: continue
    xs = [rt(d) for d in data[name]]; ps = [p99(d) for d in data[name]]
    ok = med(xs) >= 100000 and med(ps) <= 1.0 and med(xs) >= 0.8 * bmed
    print(f"| none, ARQ only ({name.split('-')[-1]}) | {fmt(xs)} rt/s, p99 {fmt(ps, 2)} ms "
          f"({med(xs) / bmed:.2f} x bound) | >= 100k, p99 <= 1 ms, >= 0.80 x bound | "
          f"{bmed:,.0f} rt/s (plain echo, p99 {med([b[1] for b in bounds]):.2f} ms) | {V(ok)} |")
for name in ["random-arq-ordered", "random-arq-unordered"]:
    if name not in data: continue
    xs = [rt(d) for d in data[name]]; ps = [p99(d) for d in data[name]]
    print(f"| random, ARQ only ({name.split('-')[-1]}) | {fmt(xs)} rt/s, p99 {fmt(ps, 1)} ms | "
          f">= 2,000, p99 <= 80 ms | {lossy:,.0f} rt/s | {V(med(xs) >= 2000 and med(ps) <= 80)} |")
for prof, tr, to in [("random", 3000, 30), ("burst", 3000, 35)]:
    b = best(prof + "-")
    if not b: continue
    xs = [rt(d) for d in data[b]]; ps = [p99(d) for d in data[b]]; os_ = [ovh(d) for d in data[b]]
    tp = 45 if prof == "random" else None
    ok = med(xs) >= tr and med(os_) <= to and (tp is None or med(ps) <= tp)
    print(f"| {prof}, best FEC ({b}) | {fmt(xs)} rt/s, p99 {fmt(ps, 1)} ms, overhead {fmt(os_, 1)} % | "
          f">= {tr:,}{', p99 <= 45 ms' if tp else ''}, overhead <= {to} % | {lossy:,.0f} rt/s | {V(ok)} |")
st = sorted(glob.glob(os.path.join(out, "*.strace")))
if st:
    print()
    print("| strace -c -f, whole process (2 s + 1 s warm-up) | syscalls | round trips | syscalls/rt | top calls |")
    print("|---|---:|---:|---:|---|")
    for f in st:
        tag = os.path.basename(f)[:-7]
        calls = {}
        for line in open(f):
            p = line.split()
            if len(p) >= 5 and p[-1] != "total" and p[0][0].isdigit():
                try: calls[p[-1]] = int(p[3])
                except ValueError: pass
        try:
            d = json.load(open(os.path.join(out, tag + ".strace.json")))
            n = d["counters"]["received"]
        except Exception:
            n = 0
        tot = sum(calls.values())
        top = ", ".join(f"{k} {v:,}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1])[:4])
        print(f"| {tag} | {tot:,} | {n:,} | {tot / n if n else float('nan'):.2f} | {top} |")
PY
echo "rounds: $ROUNDS per case, alternating; ${SECS} s measured after ${WARMUP} s warm-up"
echo "machine: $(nproc) logical cores; load average before $load0, after $load1"
exit $status
