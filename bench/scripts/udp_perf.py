#!/usr/bin/env python3
"""Side-by-side UDP performance comparisons for `netproof-bench udp`.

Each comparison runs A and B alternately (A B A B ...) for --rounds rounds
in this one process and prints, for each side, the median, min and max of
round trips/s (and p50 RTT where both sides report it), then the ratio of
the medians against its target:

  uv-raw      netproof uv vs netproof raw (16 clients, window 1, 1024 B,
              single)                                  target uv >= 0.90 x raw
  raw-plain   netproof raw vs plain_echo (same load)   target >= 0.95
  sockperf    netproof (1 client, window 1, 1024 B, raw and uv) vs
              `sockperf ping-pong --full-rtt`: rate >= 1.0 x, p50 within 15 %
  models      every IO model at 16 clients (reuseport/pool with 2 threads)
              vs single, per backend

Benchmarks, not tests: run them on a quiet machine with a Release build.
usage: udp_perf.py --bench BUILD/bench/netproof-bench
                   --plain BUILD/bench/udp/np_plain_echo
                   [--rounds 3] [--seconds 1] [--only uv-raw,raw-plain,...]
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TMP = tempfile.mkdtemp(prefix="np-udp-perf-")


def bench(args, opts):
    out = os.path.join(TMP, "run.json")
    cmd = [opts.bench, "udp", "--seconds", str(opts.seconds), "--quiet",
           "--output", out] + args
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=opts.seconds * 4 + 20)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                p.stderr.strip()))
    with open(out) as f:
        doc = json.load(f)
    m = doc["measurement"]
    return {"rate": m["roundtrips_per_sec"], "p50": m["rtt_us"]["p50"],
            "p99": m["rtt_us"]["p99"], "cpu": m["cpu_percent"]}


def plain(args, opts):
    cmd = [opts.plain, "--seconds", str(opts.seconds)] + args
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=opts.seconds * 4 + 20)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d" % (" ".join(cmd), p.returncode))
    return {"rate": float(p.stdout.split()[1]), "p50": None, "p99": None,
            "cpu": None}


def sockperf(port, opts):
    cmd = ["timeout", str(int(opts.seconds * 3 + 15)), "sockperf",
           "ping-pong", "-i", "127.0.0.1", "-p", str(port), "-t",
           str(max(1, int(round(opts.seconds)))), "-m", "1024", "--full-rtt"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    txt = p.stdout + p.stderr
    m = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; "
                  r"SentMessages=(\d+); ReceivedMessages=(\d+)", txt)
    p50 = re.search(r"percentile 50\.000 =\s*([\d.]+)", txt)
    p99 = re.search(r"percentile 99\.000 =\s*([\d.]+)", txt)
    if not m or not p50:
        raise RuntimeError("sockperf output not understood: " + txt[-400:])
    return {"rate": int(m.group(3)) / float(m.group(1)),
            "p50": float(p50.group(1)),
            "p99": float(p99.group(1)) if p99 else None, "cpu": None}


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals)


def fmt(s, unit=""):
    if s is None:
        return "n/a"
    return "median %.1f%s (min %.1f, max %.1f)" % (s[0], unit, s[1], s[2])


def ab(name, sides, opts):
    """sides: [(label, fn)], run alternately; returns {label: [results]}."""
    res = {label: [] for label, _ in sides}
    for r in range(opts.rounds):
        for label, fn in sides:
            res[label].append(fn())
    print("\n== %s (%d alternating rounds, %.3g s each)" %
          (name, opts.rounds, opts.seconds))
    for label, _ in sides:
        print("  %-34s rate %s" % (label, fmt(stats([x["rate"] for x in
                                                     res[label]]), "/s")))
        p = stats([x["p50"] for x in res[label]])
        if p:
            print("  %-34s p50  %s" % ("", fmt(p, " us")))
        c = stats([x["cpu"] for x in res[label]])
        if c:
            print("  %-34s cpu  %s" % ("", fmt(c, " %")))
    return res


def ratio(res, a, b, key="rate"):
    ma = statistics.median([x[key] for x in res[a]])
    mb = statistics.median([x[key] for x in res[b]])
    return ma / mb


def verdict(label, value, target, higher_is_better=True):
    ok = value >= target if higher_is_better else value <= target
    print("  %-52s %.3f (target %s %.2f): %s" %
          (label, value, ">=" if higher_is_better else "<=", target,
           "met" if ok else "NOT met"))


LOAD16 = ["--clients", "16", "--window", "1", "--payload", "1024",
          "--io-model", "single"]


def cmp_uv_raw(opts):
    res = ab("uv vs raw, 16 clients, window 1, 1024 B, single", [
        ("netproof uv", lambda: bench(LOAD16 + ["--backend", "uv"], opts)),
        ("netproof raw", lambda: bench(LOAD16 + ["--backend", "raw"], opts)),
    ], opts)
    verdict("uv / raw round trips/s", ratio(res, "netproof uv",
                                            "netproof raw"), 0.90)


def cmp_raw_plain(opts):
    res = ab("raw vs plain epoll+mmsg echo, 16 clients, window 1, 1024 B", [
        ("netproof raw", lambda: bench(LOAD16 + ["--backend", "raw"], opts)),
        ("plain_echo", lambda: plain(["--clients", "16", "--window", "1",
                                      "--payload", "1024"], opts)),
    ], opts)
    verdict("raw / plain_echo round trips/s",
            ratio(res, "netproof raw", "plain_echo"), 0.95)


def cmp_sockperf(opts):
    if not shutil.which("sockperf"):
        print("\n== sockperf: not installed (Debian package sockperf)")
        return
    port = 11000 + os.getpid() % 1000
    srv = subprocess.Popen(["timeout", str(int(opts.rounds * (opts.seconds
                                                              * 8 + 10))),
                            "sockperf", "server", "-i", "127.0.0.1", "-p",
                            str(port)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        one = ["--clients", "1", "--window", "1", "--payload", "1024"]
        res = ab("1 client, window 1, 1024 B vs sockperf ping-pong "
                 "--full-rtt", [
                     ("netproof raw", lambda: bench(one + ["--backend",
                                                           "raw"], opts)),
                     ("netproof uv", lambda: bench(one + ["--backend", "uv"],
                                                   opts)),
                     ("sockperf ping-pong", lambda: sockperf(port, opts)),
                 ], opts)
        for side in ("netproof raw", "netproof uv"):
            verdict("%s / sockperf round trips/s" % side,
                    ratio(res, side, "sockperf ping-pong"), 1.0)
            verdict("%s p50 / sockperf p50 (within 15 %%)" % side,
                    ratio(res, side, "sockperf ping-pong", "p50"), 1.15,
                    higher_is_better=False)
    finally:
        srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(timeout=5)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


def cmp_models(opts):
    for be in ("uv", "raw"):
        sides = []
        for model, threads in (("single", None), ("split", None),
                               ("pool", 2), ("reuseport", 2)):
            args = ["--clients", "16", "--window", "1", "--payload", "1024",
                    "--backend", be, "--io-model", model]
            if threads:
                args += ["--io-threads", str(threads)]
            label = "%s %s%s" % (be, model, " x%d" % threads if threads
                                 else "")
            sides.append((label, (lambda a: lambda: bench(a, opts))(args)))
        res = ab("IO models, %s, 16 clients, window 1, 1024 B" % be, sides,
                 opts)
        for label, _ in sides[1:]:
            print("  %-52s %.3f" % (label + " / single",
                                    ratio(res, label, sides[0][0])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--plain", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--only", default="uv-raw,raw-plain,sockperf,models")
    opts = ap.parse_args()
    if opts.rounds < 3:
        ap.error("--rounds must be >= 3 (median of at least three)")
    print("machine: %s, %d logical cores; load average %s" %
          (os.uname().nodename, os.cpu_count(),
           open("/proc/loadavg").read().split()[:3]))
    table = {"uv-raw": cmp_uv_raw, "raw-plain": cmp_raw_plain,
             "sockperf": cmp_sockperf, "models": cmp_models}
    for name in opts.only.split(","):
        if name not in table:
            ap.error("unknown comparison %s" % name)
        table[name](opts)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
