#!/usr/bin/env python3
"""Side-by-side UDP performance comparisons for `netproof-bench udp`.

Each comparison runs A and B alternately (A B A B ...) for --rounds rounds
in this one process and prints, for each side, the median, min and max of
round trips/s (and p50 RTT where both sides report it), then the ratio of
the medians against its target:

  ceiling     every netproof backend x IO model (with --count-syscalls)
              against every design of the hand-written probe
              (tools/bench/echo_probe.c: epoll or io_uring, 1 or 2
              threads, connected server sockets or not, io_uring in
              lock-step rounds at window 1), one table per load in
              --loads: round trips/s, system calls and context switches
              per round trip; then netproof's best against the probe's
              best (target >= 0.90), uring connected x2 against the probe
              of its design - lock-step, connected, as many threads as
              have clients (target >= 1.0) - and against the connected
              probe without lock-step, and raw single against the epoll
              probe of the same design (1 thread; target >= 1.0)
  uv-raw      netproof uv vs netproof raw (16 clients, window 1, 1024 B,
              single)                                  target uv >= 0.90 x raw
  raw-probe   netproof raw single vs the epoll probe, 1 thread (same load)
                                                       target >= 0.95
  sockperf    netproof (1 client, window 1, 1024 B, raw and uv) vs
              `sockperf ping-pong --full-rtt`: rate >= 1.0 x, p50 within 15 %
  models      every IO model at 16 clients (2 threads where it has
              threads) vs single, per backend
  connect     netproof as the client of a server (--connect, uring, pool)
              from one core (taskset -c 0, 1 lane) and from two (taskset
              -c 0,1, 2 lanes) against `serve --backend uring --io-model
              single` pinned to core 1 (started per run, stopped with
              SIGINT), 16 clients at window 1 and 32: round trips/s, the
              client's busiest lane fraction and client_saturated, the
              server's CPU % over the time it served (needs 2 cores)

Benchmarks, not tests: run them on a quiet machine with a Release build.
The load average is printed before and after.
usage: udp_perf.py --bench BUILD/bench/netproof-bench
                   --probe BUILD/tools/np_echo_probe
                   [--rounds 5] [--seconds 1] [--only ceiling,uv-raw,...]
                   [--loads 16x1x1024,16x1x64,16x1x16384,1x1x1024]
"""
import argparse
import atexit
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
# removed at any exit (a failed run, a usage error): /tmp is left as it was
atexit.register(shutil.rmtree, TMP, True)


def run_record(cmd, out, opts):
    """Run a netproof command that writes its record to out: (exit, doc);
    exit 0 passed, 1 a check failed (record written), anything else raises."""
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=opts.seconds * 4 + 20)
    if p.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                p.stderr.strip()))
    with open(out) as f:
        return p.returncode, json.load(f)


def bench(args, opts):
    out = os.path.join(TMP, "run.json")
    cmd = [opts.bench, "udp", "--seconds", str(opts.seconds), "--quiet",
           "--output", out] + args
    rc, doc = run_record(cmd, out, opts)
    if rc == 1:  # a failed run is kept out of the medians, named
        print("  (failed run, excluded: %s: %s)" % (
            " ".join(args), "; ".join(doc.get("reasons", []))))
        return {"rate": None, "p50": None, "p99": None, "cpu": None,
                "sys": None, "csw": None}
    m = doc["measurement"]
    sc = doc.get("syscalls") or {}
    return {"rate": m["roundtrips_per_sec"], "p50": m["rtt_us"]["p50"],
            "p99": m["rtt_us"]["p99"], "cpu": m["cpu_percent"],
            "sys": sc.get("syscalls_per_roundtrip"),
            "csw": sc.get("context_switches_per_roundtrip")}


def probe(args, opts):
    cmd = [opts.probe, "--seconds", str(opts.seconds)] + args
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=opts.seconds * 4 + 20)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                p.stderr.strip()))
    f = p.stdout.split()
    return {"rate": float(f[1]), "p50": None, "p99": None, "cpu": None,
            "sys": float(f[3]), "csw": float(f[5])}


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
    ma = med(res, a, key)
    mb = med(res, b, key)
    return ma / mb if ma is not None and mb else float("nan")


def verdict(label, value, target, higher_is_better=True):
    if value != value:  # NaN: a side has no passed run
        print("  %-52s n/a (a side has no passed run)" % label)
        return
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


def cmp_raw_probe(opts):
    res = ab("raw vs the epoll probe (1 thread), 16 clients, window 1, "
             "1024 B", [
                 ("netproof raw", lambda: bench(LOAD16 + ["--backend", "raw"],
                                                opts)),
                 ("probe epoll x1", lambda: probe(
                     ["--clients", "16", "--window", "1", "--payload",
                      "1024"], opts)),
             ], opts)
    verdict("raw / epoll probe round trips/s",
            ratio(res, "netproof raw", "probe epoll x1"), 0.95)


MODELS = (("single", None), ("split", None), ("pool", 2), ("reuseport", 2),
          ("connected", 2))
# (mode, threads, connected server sockets, lock-step rounds); lock-step
# only at window 1, with at most 64 clients per thread and payloads of at
# least 24 B (echo_probe.c)
PROBES = (("epoll", 1, False, False), ("epoll", 2, False, False),
          ("epoll", 1, True, False), ("epoll", 2, True, False),
          ("uring", 1, False, False), ("uring", 2, False, False),
          ("uring", 1, True, False), ("uring", 2, True, False),
          ("uring", 1, False, True), ("uring", 2, False, True),
          ("uring", 1, True, True), ("uring", 2, True, True))


def med(res, label, key):
    v = [x[key] for x in res[label] if x[key] is not None]
    return statistics.median(v) if v else None


def num(v, f="%.2f"):
    return "-" if v is None else f % v


def cmp_ceiling(opts):
    """One table per load: every backend x model against every probe."""
    for load in opts.loads.split(","):
        clients, window, payload = (int(x) for x in load.split("x"))
        common = ["--clients", str(clients), "--window", str(window),
                  "--payload", str(payload)]
        sides = []
        for be in ("uv", "raw", "uring"):
            for model, threads in MODELS:
                a = common + ["--backend", be, "--io-model", model,
                              "--count-syscalls"]
                if threads:
                    a += ["--io-threads", str(threads)]
                label = "netproof %s %s%s" % (be, model, " x%d" % threads
                                              if threads else "")
                sides.append((label, (lambda a: lambda: bench(a, opts))(a)))
        probes = []
        for mode, threads, conn, lock in PROBES:
            if clients < threads or (lock and (window != 1 or payload < 24
                                               or clients > 64 * threads)):
                continue
            a = common + ["--mode", mode, "--threads", str(threads)]
            if conn:
                a.append("--connected")
            if lock:
                a.append("--lockstep")
            label = "probe %s x%d%s%s" % (mode, threads,
                                          " connected" if conn else "",
                                          " lock-step" if lock else "")
            probes.append(label)
            sides.append((label, (lambda a: lambda: probe(a, opts))(a)))
        name = ("ceiling: %d clients x window %d x %d B, IPv4 loopback"
                % (clients, window, payload))
        res = ab(name, sides, opts)
        print("\n  | program | round trips/s median [min - max] | "
              "syscalls / round trip | context switches / round trip |")
        print("  |---|---:|---:|---:|")
        for label, _ in sides:
            rates = [x["rate"] for x in res[label] if x["rate"] is not None]
            cell = ("%.0f [%.0f - %.0f]" % (statistics.median(rates),
                                            min(rates), max(rates))
                    if rates else "all failed")
            if len(rates) < len(res[label]):
                cell += " (%d of %d runs failed, excluded)" % (
                    len(res[label]) - len(rates), len(res[label]))
            print("  | %s | %s | %s | %s |" % (
                label, cell, num(med(res, label, "sys")),
                num(med(res, label, "csw"), "%.4f")))
        def key(l):
            v = med(res, l, "rate")
            return -1 if v is None else v
        ours = [l for l, _ in sides if l.startswith("netproof")]
        best = max(ours, key=key)
        pbest = max(probes, key=key)
        print("\n  best netproof: %s; best probe: %s" % (best, pbest))
        verdict("best netproof / best probe round trips/s",
                ratio(res, best, pbest), 0.90)
        # netproof's connected uring lanes receive in lock-step
        # (np_udp_uring.c): the same design is the lock-step probe
        same = "probe uring x%d connected lock-step" % min(clients, 2)
        if same in probes:
            verdict("netproof uring connected x2 / %s" % same[6:],
                    ratio(res, "netproof uring connected x2", same), 1.0)
        if clients >= 2:
            verdict("netproof uring connected x2 / probe uring x2 connected",
                    ratio(res, "netproof uring connected x2",
                          "probe uring x2 connected"), 1.0)
        verdict("netproof raw single / probe epoll x1",
                ratio(res, "netproof raw single", "probe epoll x1"), 1.0)
        print("  (medians of %d alternating rounds of %.3g s; syscalls are "
              "the lane threads' own, counted at each call site; uv's are "
              "libuv's and not counted)" % (opts.rounds, opts.seconds))


def stop(proc, sig, seconds):
    """Signal a background server and wait for it (killed after seconds)."""
    proc.send_signal(sig)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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
        stop(srv, signal.SIGTERM, 5)


def cmp_models(opts):
    for be in ("uv", "raw", "uring"):
        sides = []
        for model, threads in MODELS:
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


def serve_and_connect(port, cores, lanes, window, opts):
    out = os.path.join(TMP, "serve.json")
    srv = subprocess.Popen(
        ["timeout", str(int(opts.seconds * 4 + 20)), "taskset", "-c", "1",
         opts.bench, "serve", "--listen", "127.0.0.1:%d" % port, "--backend",
         "uring", "--io-model", "single", "--max-seconds",
         str(int(opts.seconds * 4 + 15)), "--quiet", "--record", out],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        r = bench_connect(port, cores, lanes, window, opts)
    finally:
        stop(srv, signal.SIGINT, 10)
    with open(out) as f:
        r["server_cpu"] = json.load(f)["serve"]["cpu_percent"]
    return r


def bench_connect(port, cores, lanes, window, opts):
    rec = os.path.join(TMP, "client.json")
    cmd = ["taskset", "-c", cores, opts.bench, "udp", "--connect",
           "127.0.0.1:%d" % port, "--clients", "16", "--window", str(window),
           "--payload", "1024", "--backend", "uring", "--io-model", "pool",
           "--io-threads", str(lanes), "--seconds", str(opts.seconds),
           "--quiet", "--output", rec]
    _, doc = run_record(cmd, rec, opts)  # a failed check still measured
    cc = doc["external"]["client_cpu"]
    return {"rate": doc["measurement"]["roundtrips_per_sec"], "p50": None,
            "cpu": None, "busiest": cc["busiest_fraction"],
            "saturated": cc["client_saturated"]}


def cmp_connect(opts):
    if (os.cpu_count() or 1) < 2:
        print("\n== connect: needs 2 cores (client on 0, server on 1)")
        return
    port = 12000 + os.getpid() % 1000
    for window in (1, 32):
        sides = []
        for cores, lanes in (("0", 1), ("0,1", 2)):
            label = "client cores %s, %d lane%s" % (cores, lanes,
                                                   "s" if lanes > 1 else "")
            sides.append((label, (lambda c, n: lambda: serve_and_connect(
                port, c, n, window, opts))(cores, lanes)))
        res = ab("--connect 16 clients x window %d x 1024 B against serve "
                 "--backend uring (core 1)" % window, sides, opts)
        print("\n  | client | round trips/s median [min - max] | busiest "
              "lane (fraction of the window) | client_saturated | server "
              "CPU % |")
        print("  |---|---:|---:|---|---:|")
        for label, _ in sides:
            r = res[label]
            rates = [x["rate"] for x in r]
            print("  | %s | %.0f [%.0f - %.0f] | %.2f | %d of %d runs | "
                  "%.0f |" % (label, statistics.median(rates), min(rates),
                              max(rates),
                              statistics.median([x["busiest"] for x in r]),
                              sum(1 for x in r if x["saturated"]), len(r),
                              statistics.median([x["server_cpu"] for x in r])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--only",
                    default="ceiling,uv-raw,raw-probe,sockperf,models")
    ap.add_argument("--loads", default="16x1x1024,16x1x64,16x1x16384,1x1x1024",
                    help="ceiling loads as CLIENTSxWINDOWxPAYLOAD, comma-separated")
    opts = ap.parse_args()
    if opts.rounds < 3:
        ap.error("--rounds must be >= 3 (median of at least three)")
    for load in opts.loads.split(","):
        f = load.split("x")
        if len(f) != 3 or not all(x.isdigit() and int(x) > 0 for x in f):
            ap.error("--loads %s: expected CLIENTSxWINDOWxPAYLOAD such as "
                     "16x1x1024" % load)
    table = {"ceiling": cmp_ceiling, "uv-raw": cmp_uv_raw,
             "raw-probe": cmp_raw_probe, "sockperf": cmp_sockperf,
             "models": cmp_models, "connect": cmp_connect}
    for name in opts.only.split(","):
        if name not in table:
            ap.error("unknown comparison %s" % name)
    print("machine: %s, %d logical cores, kernel %s; load average before: %s"
          % (os.uname().nodename, os.cpu_count(), os.uname().release,
             " ".join(open("/proc/loadavg").read().split()[:3])))
    for name in opts.only.split(","):
        table[name](opts)
    print("\nload average after: %s" %
          " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    sys.exit(main())
