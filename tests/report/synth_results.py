#!/usr/bin/env python3
"""Write a synthetic netproof results folder (docs/results-layout.md shape).

Used by bench/scripts/report_bench.sh (500-run render benchmark).  The
committed test fixture is real quick-suite output instead.  Deterministic: the
same arguments give the same bytes.

usage: synth_results.py OUTDIR [--configs N] [--reps N]
"""
import json
import os
import random
import sys

SHA_SRC = "a" * 64
SHA_BIN = "b" * 64
MODELS = [("single", 1), ("split", 1), ("pool", 2), ("reuseport", 2)]
BACKENDS = ["uv", "raw"]
PAYLOADS = [64, 1024, 16384]
WINDOWS = [1, 16, 64]


def configs(n, small=False):
    out = []
    pays = [1024, 16384] if small else PAYLOADS
    wins = [1, 64] if small else WINDOWS
    models = [MODELS[0], MODELS[3]] if small else MODELS
    for p in pays:
        for w in wins:
            for m, th in models:
                for b in BACKENDS:
                    out.append(dict(payload=p, clients=16, window=w,
                                    io_model=m, io_threads=th, backend=b))
    while len(out) < n:  # more client counts for big sets
        extra = dict(out[len(out) % 72])
        extra["clients"] = 1 + len(out) // 72
        out.append(extra)
    return out[:n]


def cid(c):
    return "udp-p%d-c%d-w%d-%s%s-%s" % (
        c["payload"], c["clients"], c["window"], c["io_model"],
        "" if c["io_threads"] == 1 else str(c["io_threads"]), c["backend"])


def record(c, rep, rnd):
    secs = 1.0
    drain = 0.05
    base = 90000.0 / (1 + c["payload"] / 16384.0) * (1.1 if c["backend"] == "raw" else 1.0)
    rps = round(base * (1 + 0.02 * rnd.random()), 1)
    fail = c["payload"] == 16384 and c["window"] == 64
    lost = 767 if fail else 0
    received = int(rps * (secs + drain))
    rps = received / (secs + drain)
    sent = received + lost
    p50 = 150.0 + rnd.random() * 20
    pct = {"count": received, "min": 20.0, "p50": round(p50, 3),
           "p90": round(p50 * 1.2, 3), "p99": round(p50 * 1.5, 3),
           "p999": round(p50 * 2.0, 3), "max": round(p50 * 4.0, 3),
           "mean": round(p50 * 1.05, 3)}
    kd = {"udp_rcvbuf_errors": lost, "udp_in_errors": lost,
          "udp_sndbuf_errors": 0, "ip_reasm_reqds": 0, "ip_reasm_oks": 0,
          "ip_frag_creates": 0}
    before = {k: 1000 for k in kd}
    after = {k: 1000 + v for k, v in kd.items()}
    checks = [
        {"name": "request_leg_loss", "passed": True, "detail": "sent - server_received = lost"},
        {"name": "no_loss", "passed": not fail, "detail": "lost = %d" % lost},
    ]
    return {
        "schema": "netproof/run/1",
        "status": "failed" if fail else "passed",
        "reasons": ["lost %d echoes" % lost] if fail else [],
        "tool": {"name": "netproof-bench", "version": "0.1.0",
                 "source_sha256": SHA_SRC, "binary_sha256": SHA_BIN,
                 "compiler": "GCC 14.2.0", "build_type": "Release",
                 "libraries": {"libuv": "1.50.0", "cjson": "1.7.18"}},
        "machine": {"hostname": "box1", "cpu_model": "Synthetic CPU @ 2.0GHz",
                    "logical_cpus": 2, "memory_bytes": 25769803776,
                    "os": "Debian GNU/Linux 13", "kernel": "6.12.0"},
        "started_at": "2026-11-30T05:00:00Z",
        "config": {"protocol": "udp", "payload": c["payload"],
                   "clients": c["clients"], "window": c["window"],
                   "io_model": c["io_model"], "io_threads": c["io_threads"],
                   "backend": c["backend"], "work": 0, "warmup": 0.25,
                   "seconds": secs, "udp_send_buffer": 65536,
                   "udp_receive_buffer": 4194304,
                   "udp_server_receive_buffer": 4194304,
                   "address": "127.0.0.1"},
        "measurement": {"seconds": secs, "drain_seconds": drain,
                        "roundtrips": received, "roundtrips_per_sec": rps,
                        "rtt_us": pct, "cpu_percent": round(95 + 5 * rnd.random(), 2),
                        "machine_cpu_percent": 50.0,
                        "rss_max_bytes": 8 << 20},
        "counters": {"sent": sent, "server_received": received,
                     "server_replied": received, "received": received,
                     "lost": lost, "content_errors": 0, "sequence_errors": 0,
                     "send_errors": 0},
        "sockets": {"send_buffer_requested": 65536, "send_buffer_effective": 131072,
                    "receive_buffer_requested": 4194304,
                    "receive_buffer_effective": 8388608,
                    "server_receive_buffer_effective": 8388608,
                    "kernel_drops": lost},
        "kernel": {"before": before, "after": after, "delta": kd},
        "checks": checks,
    }


def main():
    args = sys.argv[1:]
    out = args[0]
    n = 18
    reps = 3
    if "--configs" in args:
        n = int(args[args.index("--configs") + 1])
    if "--reps" in args:
        reps = int(args[args.index("--reps") + 1])
    rnd = random.Random(42)
    small = "--fixture" in args
    cs = configs(16 if small else n, small)
    summary = {"schema": "netproof/summary/1", "suite": "synthetic",
               "repetitions": reps, "configurations": []}
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    for c in cs:
        d = os.path.join(out, "runs", cid(c))
        os.makedirs(d, exist_ok=True)
        entry = {"id": cid(c), "expect": "fail" if (c["payload"] == 16384 and c["window"] == 64) else "pass",
                 "repetitions": [], "stats": {}}
        vals = {"roundtrips_per_sec": [], "rtt_p99_us": [], "cpu_percent": [], "lost": []}
        summary["configurations"].append(entry)
        for r in range(1, reps + 1):
            rec = record(c, r, rnd)
            entry["repetitions"].append({"n": r, "status": rec["status"]})
            vals["roundtrips_per_sec"].append(rec["measurement"]["roundtrips_per_sec"])
            vals["rtt_p99_us"].append(rec["measurement"]["rtt_us"]["p99"])
            vals["cpu_percent"].append(rec["measurement"]["cpu_percent"])
            vals["lost"].append(rec["counters"]["lost"])
            base = os.path.join(d, "rep-%d" % r)
            with open(base + ".json", "w") as f:
                json.dump(rec, f, indent=2)
                f.write("\n")
            with open(base + ".stderr.txt", "w") as f:
                f.write("netproof-bench udp: %s\n" % rec["status"])
            with open(base + ".cmd.txt", "w") as f:
                f.write("netproof-bench udp --payload %d --clients %d --window %d "
                        "--io-model %s --io-threads %d --backend %s\n" % (
                            c["payload"], c["clients"], c["window"],
                            c["io_model"], c["io_threads"], c["backend"]))
            if r == reps:
                for k, v in vals.items():
                    sv = sorted(v)
                    med = sv[len(sv) // 2] if len(sv) % 2 else (sv[len(sv) // 2 - 1] + sv[len(sv) // 2]) / 2
                    entry["stats"][k] = {"median": med, "min": sv[0], "max": sv[-1], "n": len(sv)}
            for side in ("before", "after"):
                with open(base + ".kernel-%s.txt" % side, "w") as f:
                    f.write("Udp: InDatagrams RcvbufErrors\nUdp: 1 %d\n" %
                            rec["kernel"][side]["udp_rcvbuf_errors"])
    suite = {"schema": "netproof/suite/1", "suite": "synthetic",
             "description": "synthetic result set for tests and benchmarks",
             "protocol": "udp", "repetitions": reps,
             "plan": {"suite": "synthetic"},
             "configs": [{"id": cid(c), "expect": "fail" if (c["payload"] == 16384 and c["window"] == 64) else "pass"} for c in cs],
             "started_at": "2026-11-30T05:00:00Z",
             "finished_at": "2026-11-30T05:10:00Z"}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "suite.json"), "w") as f:
        json.dump(suite, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
