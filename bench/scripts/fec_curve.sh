#!/usr/bin/env bash
# fec_curve.sh - the FEC overhead / recovery curve (issue 20): for each
# loss profile, fixed parity 0..4 and the adaptive policy at several
# targets, the network overhead against the share of lost data FEC
# rebuilt (recoveries / (recoveries + retransmissions that were needed,
# i.e. not proven spurious)), with round trips/s and p99 beside.  Writes
# OUT_DIR/fec-curve.json and an SVG chart (OUT_DIR/fec-curve.svg; with
# rsvg-convert also a PNG).  Release build.
#
#   bench/scripts/fec_curve.sh [BUILD_DIR] [OUT_DIR]
#   env: ROUNDS (3, alternating, median per point), SECONDS_PER_ROUND (2),
#        WARMUP (1), PROFILES ("random burst"), TARGETS (adaptive
#        --fec-target values), EXTRA (options for every run)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-rudp-release}
OUT=${2:-$BUILD/fec-curve}
ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_ROUND:-2}
WARMUP=${WARMUP:-1}
PROFILES=${PROFILES:-random burst}
TARGETS=${TARGETS:-0.005 0.01 0.02 0.05 0.1}
read -r -a EXTRA_ARGS <<<"${EXTRA:-}"
mkdir -p "$OUT"
rm -f "$OUT"/pt-*.json
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target netproof-bench -j2 >/dev/null
BENCH=$BUILD/bench/netproof-bench

POINTS=()
for m in 0 1 2 3 4; do POINTS+=("fixed$m|--fec fixed --fec-parity $m"); done
for t in $TARGETS; do POINTS+=("adaptive$t|--fec adaptive --fec-target $t"); done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < ROUNDS; r++)); do
  for prof in $PROFILES; do
    for p in "${POINTS[@]}"; do
      name=${p%%|*}
      read -r -a opts <<<"${p#*|}"
      "$BENCH" rudp --payload 1024 --clients 4 --window 16 --cc bbr \
        --delivery unordered --profile "$prof" "${opts[@]}" \
        "${EXTRA_ARGS[@]}" --seconds "$SECS" --warmup "$WARMUP" --rounds 1 \
        --seed $((42 + r)) --quiet --output "$OUT/pt-$prof-$name-r$r.json" ||
        echo "$prof $name round $r: exit $?" >&2
    done
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$OUT" "$load0" "$load1" "$ROUNDS" "$SECS" <<'PY'
import glob, json, os, re, statistics, sys
out, load0, load1, rounds, secs = sys.argv[1:6]
pts = {}
for f in glob.glob(os.path.join(out, "pt-*.json")):
    m = re.match(r"pt-(\w+)-(fixed\d|adaptive[\d.]+)-r\d+\.json", os.path.basename(f))
    d = json.load(open(f))
    r = d["rudp"]["rounds"][0]
    rec = r["fec"]["recoveries"]
    need = r["arq"]["retransmits"] - r["arq"]["spurious_retransmits"]
    pts.setdefault((m.group(1), m.group(2)), []).append({
        "overhead": r["arq"]["network_overhead_percent"],
        "recovered_share": 100 * rec / (rec + need) if rec + need else 0.0,
        "rt": d["measurement"]["roundtrips_per_sec"],
        "p99": (d["measurement"]["rtt_us"]["p99"] or 0) / 1000,
        "parity": r["fec"]["parity_mean"],
        "spurious": 100 * r["arq"]["spurious_retransmits"] / max(1, r["arq"]["retransmits"])})
med = lambda xs: statistics.median(xs)
rows = []
for (prof, name), v in sorted(pts.items()):
    row = {"profile": prof, "point": name, "n": len(v)}
    for k in v[0]:
        row[k] = med([x[k] for x in v])
    rows.append(row)
json.dump({"load_before": load0, "load_after": load1, "rounds": int(rounds),
           "seconds": float(secs), "points": rows},
          open(os.path.join(out, "fec-curve.json"), "w"), indent=1)
print("| profile | point | overhead % | recovered % | rt/s | p99 ms | parity | spurious % |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['profile']} | {r['point']} | {r['overhead']:.1f} | {r['recovered_share']:.1f} | "
          f"{r['rt']:,.0f} | {r['p99']:.1f} | {r['parity']:.2f} | {r['spurious']:.0f} |")
# SVG: overhead (x) against recovered share (y), a line through fixed
# 0..4 and a marker per adaptive target, per profile
W, H, L, B, T, R = 640, 420, 60, 50, 30, 150
xmax = max(60.0, max(r["overhead"] for r in rows) * 1.1)
X = lambda v: L + (W - L - R) * v / xmax
Y = lambda v: H - B - (H - B - T) * v / 100.0
colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
     f'<rect width="{W}" height="{H}" fill="white"/>',
     f'<text x="{L}" y="18" font-size="13">FEC: network overhead vs share of lost data rebuilt (1,024 B x 4 x 16, unordered)</text>']
for v in range(0, 101, 20):
    s.append(f'<line x1="{L}" y1="{Y(v):.1f}" x2="{W - R}" y2="{Y(v):.1f}" stroke="#ddd"/>')
    s.append(f'<text x="{L - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v}</text>')
step = 10 if xmax <= 80 else 20
for v in range(0, int(xmax) + 1, step):
    s.append(f'<line x1="{X(v):.1f}" y1="{T}" x2="{X(v):.1f}" y2="{H - B}" stroke="#eee"/>')
    s.append(f'<text x="{X(v):.1f}" y="{H - B + 16}" text-anchor="middle">{v}</text>')
s.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">network overhead %</text>')
s.append(f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" text-anchor="middle">recovered by FEC, % of lost data</text>')
s.append(f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/><line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>')
ly = T + 10
for i, prof in enumerate(sorted({r["profile"] for r in rows})):
    c = colors[i % len(colors)]
    fx = sorted([r for r in rows if r["profile"] == prof and r["point"].startswith("fixed")], key=lambda r: r["point"])
    s.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (c, " ".join(f"{X(r['overhead']):.1f},{Y(r['recovered_share']):.1f}" for r in fx)))
    for r in fx:
        s.append(f'<circle cx="{X(r["overhead"]):.1f}" cy="{Y(r["recovered_share"]):.1f}" r="3" fill="{c}"/>')
        s.append(f'<text x="{X(r["overhead"]) + 4:.1f}" y="{Y(r["recovered_share"]) + 12:.1f}" fill="{c}" font-size="9">m={r["point"][5:]}</text>')
    for r in rows:
        if r["profile"] == prof and r["point"].startswith("adaptive"):
            x, y = X(r["overhead"]), Y(r["recovered_share"])
            s.append(f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="none" stroke="{c}"/>')
            s.append(f'<text x="{x + 5:.1f}" y="{y - 4:.1f}" fill="{c}" font-size="9">{r["point"][8:]}</text>')
    s.append(f'<text x="{W - R + 10}" y="{ly}" fill="{c}">{prof}: fixed m (line)</text>')
    s.append(f'<text x="{W - R + 10}" y="{ly + 13}" fill="{c}">adaptive target (box)</text>')
    ly += 34
s.append(f'<text x="{W - R + 10}" y="{ly + 6}" font-size="9">median of {rounds} rounds,</text>')
s.append(f'<text x="{W - R + 10}" y="{ly + 18}" font-size="9">{secs} s each; load {load0.split()[0]}-{load1.split()[0]}</text>')
s.append("</svg>")
open(os.path.join(out, "fec-curve.svg"), "w").write("\n".join(s) + "\n")
PY
if command -v rsvg-convert >/dev/null; then
  rsvg-convert "$OUT/fec-curve.svg" -o "$OUT/fec-curve.png"
fi
echo "wrote $OUT/fec-curve.json, $OUT/fec-curve.svg; load $load0 -> $load1"
