#!/usr/bin/env bash
# fec_window_curve.sh - block Reed-Solomon and the sliding-window code
# (issue 30) side by side: per loss profile, the network overhead against
# the share of lost data FEC rebuilt (recoveries / (recoveries +
# retransmissions that were needed, i.e. not proven spurious)), as in
# fec_curve.sh, for
#   rs m      --fec fixed --fec-parity m           (m = 1..4 per 8 datagrams)
#   win m     --fec window --fec-min-parity m --fec-max-parity m
#             (the same nominal rate: 2m repairs per 16 sources)
#   rs-a t    --fec adaptive --fec-target t
#   win-a t   --fec window --fec-target t
# Writes OUT_DIR/fec-window-curve.json and OUT_DIR/fec-window-curve.svg
# (one panel per profile; with rsvg-convert also a PNG).  Release build.
# Delivery is ordered (the rudp default, as rudp_fec_targets.sh runs it).
#
#   bench/scripts/fec_window_curve.sh [BUILD_DIR] [OUT_DIR]
#   env: ROUNDS (2, alternating, median per point), SECONDS_PER_ROUND (2),
#        WARMUP (1), PROFILES ("random burst"), TARGETS ("0.01 0.02 0.05
#        0.1"), EXTRA (options for every run)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-rudp-release}
OUT=${2:-$BUILD/fec-window-curve}
ROUNDS=${ROUNDS:-2}
SECS=${SECONDS_PER_ROUND:-2}
WARMUP=${WARMUP:-1}
PROFILES=${PROFILES:-random burst}
TARGETS=${TARGETS:-0.01 0.02 0.05 0.1}
read -r -a EXTRA_ARGS <<<"${EXTRA:-}"
mkdir -p "$OUT"
rm -f "$OUT"/wpt-*.json
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target netproof-bench -j2 >/dev/null
BENCH=$BUILD/bench/netproof-bench

POINTS=()
for m in 1 2 3 4; do
  POINTS+=("rs_$m|--fec fixed --fec-parity $m")
  POINTS+=("win_$m|--fec window --fec-min-parity $m --fec-max-parity $m")
done
for t in $TARGETS; do
  POINTS+=("rs-a_$t|--fec adaptive --fec-target $t")
  POINTS+=("win-a_$t|--fec window --fec-target $t")
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < ROUNDS; r++)); do
  for prof in $PROFILES; do
    for p in "${POINTS[@]}"; do
      name=${p%%|*}
      read -r -a opts <<<"${p#*|}"
      "$BENCH" rudp --payload 1024 --clients 4 --window 16 --cc bbr \
        --io-model single --io-threads 1 --profile "$prof" "${opts[@]}" \
        "${EXTRA_ARGS[@]}" --seconds "$SECS" --warmup "$WARMUP" --rounds 1 \
        --seed $((42 + r)) --quiet --output "$OUT/wpt-$prof-$name-r$r.json" ||
        echo "$prof $name round $r: exit $?" >&2
    done
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$OUT" "$load0" "$load1" "$ROUNDS" "$SECS" <<'PY'
import glob, json, os, re, statistics, sys
out, load0, load1, rounds, secs = sys.argv[1:6]
pts = {}
for f in glob.glob(os.path.join(out, "wpt-*.json")):
    m = re.match(r"wpt-(\w+)-([a-z-]+)_([\d.]+)-r\d+\.json", os.path.basename(f))
    d = json.load(open(f))
    r = d["rudp"]["rounds"][0]
    rec = r["fec"]["recoveries"]
    need = r["arq"]["retransmits"] - r["arq"]["spurious_retransmits"]
    w = r["fec"].get("window", {})
    pts.setdefault((m.group(1), m.group(2), m.group(3)), []).append({
        "overhead": r["arq"]["network_overhead_percent"],
        "recovered_share": 100 * rec / (rec + need) if rec + need else 0.0,
        "rt": d["measurement"]["roundtrips_per_sec"],
        "p99": (d["measurement"]["rtt_us"]["p99"] or 0) / 1000,
        "repair_pct": (w["repair_percent_of_sources"] if w else
                       100 * r["fec"]["parity_sent"] / max(1, r["fec"]["data_shards_sent"])),
        "unrecoverable": r["fec"]["unrecoverable_groups"]})
rows = []
for (prof, kind, x), v in sorted(pts.items(), key=lambda k: (k[0][0], k[0][1], float(k[0][2]))):
    row = {"profile": prof, "series": kind, "param": x, "n": len(v)}
    for k in v[0]:
        row[k] = statistics.median([p[k] for p in v])
    rows.append(row)
json.dump({"load_before": load0, "load_after": load1, "rounds": int(rounds),
           "seconds": float(secs), "points": rows},
          open(os.path.join(out, "fec-window-curve.json"), "w"), indent=1)
label = {"rs": "RS fixed m", "win": "window, rate 2m/16", "rs-a": "RS adaptive, target",
         "win-a": "window adaptive, target"}
print("| profile | series | m / target | overhead % | recovered % | repair % of data | rt/s | p99 ms |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['profile']} | {label[r['series']]} | {r['param']} | {r['overhead']:.1f} | "
          f"{r['recovered_share']:.1f} | {r['repair_pct']:.1f} | {r['rt']:,.0f} | {r['p99']:.1f} |")
profs = sorted({r["profile"] for r in rows})
PW, H, L, B, T, R = 420, 400, 55, 50, 40, 20
W = PW * len(profs) + 230
xmax = max(60.0, max(r["overhead"] for r in rows) * 1.1)
style = {"rs": ("#1f77b4", "line"), "win": ("#d62728", "line"),
         "rs-a": ("#1f77b4", "box"), "win-a": ("#d62728", "box")}
s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
     f'<rect width="{W}" height="{H}" fill="white"/>',
     f'<text x="{L}" y="18" font-size="13">Block RS vs sliding window: network overhead vs share of lost data rebuilt (1,024 B x 4 x 16)</text>']
for i, prof in enumerate(profs):
    x0 = i * PW
    X = lambda v: x0 + L + (PW - L - R) * v / xmax
    Y = lambda v: H - B - (H - B - T) * v / 100.0
    s.append(f'<text x="{x0 + L}" y="{T - 6}" font-size="12">profile {prof}</text>')
    for v in range(0, 101, 20):
        s.append(f'<line x1="{x0 + L}" y1="{Y(v):.1f}" x2="{x0 + PW - R}" y2="{Y(v):.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{x0 + L - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    step = 10 if xmax <= 80 else 20
    for v in range(0, int(xmax) + 1, step):
        s.append(f'<line x1="{X(v):.1f}" y1="{T}" x2="{X(v):.1f}" y2="{H - B}" stroke="#eee"/>')
        s.append(f'<text x="{X(v):.1f}" y="{H - B + 16}" text-anchor="middle">{v}</text>')
    s.append(f'<text x="{x0 + (L + PW - R) / 2}" y="{H - 14}" text-anchor="middle">network overhead %</text>')
    if i == 0:
        s.append(f'<text x="14" y="{(T + H - B) / 2}" transform="rotate(-90 14 {(T + H - B) / 2})" text-anchor="middle">recovered by FEC, % of lost data</text>')
    s.append(f'<line x1="{x0 + L}" y1="{H - B}" x2="{x0 + PW - R}" y2="{H - B}" stroke="black"/><line x1="{x0 + L}" y1="{T}" x2="{x0 + L}" y2="{H - B}" stroke="black"/>')
    for kind, (c, how) in style.items():
        sr = [r for r in rows if r["profile"] == prof and r["series"] == kind]
        if how == "line" and sr:
            s.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (
                c, " ".join(f"{X(r['overhead']):.1f},{Y(r['recovered_share']):.1f}" for r in sr)))
        for r in sr:
            x, y = X(r["overhead"]), Y(r["recovered_share"])
            if how == "line":
                s.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{c}"/>')
                s.append(f'<text x="{x + 4:.1f}" y="{y + 12:.1f}" fill="{c}" font-size="9">{r["param"]}</text>')
            else:
                s.append(f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="none" stroke="{c}"/>')
                s.append(f'<text x="{x + 5:.1f}" y="{y - 4:.1f}" fill="{c}" font-size="9">{r["param"]}</text>')
lx, ly = PW * len(profs) + 10, T + 10
for kind, (c, how) in style.items():
    s.append(f'<text x="{lx}" y="{ly}" fill="{c}">{label[kind]}{" (line)" if how == "line" else " (box)"}</text>')
    ly += 16
s.append(f'<text x="{lx}" y="{ly + 10}" font-size="9">median of {rounds} rounds,</text>')
s.append(f'<text x="{lx}" y="{ly + 22}" font-size="9">{secs} s each; load {load0.split()[0]}-{load1.split()[0]}</text>')
s.append("</svg>")
open(os.path.join(out, "fec-window-curve.svg"), "w").write("\n".join(s) + "\n")
PY
if command -v rsvg-convert >/dev/null; then
  rsvg-convert "$OUT/fec-window-curve.svg" -o "$OUT/fec-window-curve.png"
fi
echo "wrote $OUT/fec-window-curve.json, $OUT/fec-window-curve.svg; load $load0 -> $load1"
