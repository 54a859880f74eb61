#!/usr/bin/env python3
"""rudp_vs_table.py OUT_DIR - the table of bench/scripts/rudp_vs.sh from the
runs it left in OUT_DIR (netproof records, kcp_echo JSON lines, relay
meter files): median [min..max] per case over the rounds, then the goal
rows of issue 30 (netproof ordered >= 1.2 x KCP's round trips/s with a p99
no higher).  Re-runnable on an old OUT_DIR."""
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, "*.r*.json"))):
    name = os.path.basename(f).rsplit(".r", 1)[0]
    if name == "relay":
        continue
    try:
        d = json.load(open(f))
    except (OSError, ValueError):
        continue
    meter = int(open(f[:-5] + ".meter").read())
    if "transport" in d:  # kcp_echo
        ok = not d["errors"]
        rt, p99 = d["round_trips_per_s"], d["latency_ms"]["p99"]
        n, total = d["round_trips"], d["round_trips_total"]
        cc = d["client_counters"]
        retx = 1000 * cc["retrans_segments"] / n if n else float("nan")
        spur = float("nan")  # kcp-go cannot tell
        mode = "ordered" + ("" if d["fec"] == "none" else " + RS " + d["fec"])
    else:
        ok = d["status"] == "passed"
        m = d["measurement"]
        rt, p99 = m["roundtrips_per_sec"], m["rtt_us"]["p99"] / 1000
        r0 = d["rudp"]["rounds"][0]
        a = r0["arq"]
        total = r0["counters"]["received"]
        retx = a["retransmits_per_1000_roundtrips"]
        spur = (100 * a["spurious_retransmits"] / a["retransmits"]
                if a["retransmits"] else 0.0)
        mode = d["config"]["delivery"]
        if d["config"]["fec"] != "none":
            mode += " + FEC " + d["config"]["fec"]
    # the meter spans the whole run (warm-up and drain too): divided by
    # every round trip of the run
    rows.setdefault(name, []).append(
        (ok, rt, p99, retx, spur, meter / total if total else 0, mode))
def fmt(xs, nd=0):
    xs = [x for x in xs if x == x]
    if not xs:
        return "-"
    return f"{statistics.median(xs):,.{nd}f} [{min(xs):,.{nd}f}..{max(xs):,.{nd}f}]"
print("| transport / case | delivery | passed | rt/s | p99 ms | retx / 1000 rt | spurious % of retx | wire dgrams / rt |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
med = {}
for name, rs in rows.items():
    med[name] = (statistics.median(r[1] for r in rs),
                 statistics.median(r[2] for r in rs))
    print(f"| {name} | {rs[0][6]} | {sum(r[0] for r in rs)}/{len(rs)} | "
          f"{fmt([r[1] for r in rs])} | {fmt([r[2] for r in rs], 1)} | "
          f"{fmt([r[3] for r in rs], 1)} | {fmt([r[4] for r in rs])} | "
          f"{fmt([r[5] for r in rs], 2)} |")
kcps = [k for k in med if k.startswith("kcp-")]
nps = [k for k in ("netproof-arq-ordered", "netproof-fecadaptive-ordered",
                     "netproof-fecwindow-ordered")
       if k in med]
if nps and kcps:
    print()
    print("| goal: ordered, netproof vs KCP | rt/s ratio (>= 1.20) | p99 ms netproof / KCP (<=) | verdict |")
    print("|---|---:|---:|---|")
    for n in nps:
        for k in kcps:
            ratio = med[n][0] / med[k][0] if med[k][0] else float("nan")
            met = ratio >= 1.2 and med[n][1] <= med[k][1]
            print(f"| {n} vs {k} | {ratio:.2f} | {med[n][1]:.1f} / "
                  f"{med[k][1]:.1f} | {'met' if met else 'MISSED'} |")
