#!/usr/bin/env python3
"""netproof-bench udp --mode stream against iperf3 -u on the same machine,
loopback only, alternating A and B round by round (docs/udp-benchmark.md,
"Streams against iperf3").

Three parts (--only agree|maxrate|offload):
  agree    at each --rates bitrate both sustain, loss % and jitter of both
           (medians of --rounds alternating rounds, min-max), and whether
           they agree within the documented tolerance: loss within 1
           percentage point, jitter within 3x or 50 us of each other (the
           two time a datagram differently: iperf3 reads the clock after
           each recvfrom, netproof takes the kernel's receive timestamp)
  maxrate  the highest of --ladder bitrates at which every round of a
           tool lost nothing, side by side
  offload  netproof unlimited streams of 1,472-byte datagrams plain, with
           GSO (64,768-byte UDP_SEGMENT sends) and with GSO + GRO, and of
           65,507-byte datagrams plain and with GRO: received Mbit/s and
           loss (medians of --rounds)

Every iperf3 server is `iperf3 -s -1` (one test, then it exits) under
`timeout`, bound to 127.0.0.1.  The load average is printed before and
after: on a shared machine figures are noisy; only side-by-side,
alternating comparisons mean something.

usage: stream_vs_iperf3.py --bench BUILD/bench/netproof-bench
           [--rounds 3] [--seconds 1] [--length 1472]
           [--rates 100M,500M] [--ladder 100M,200M,500M,1G,2G,4G]
           [--only agree|maxrate|offload]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time

TMP = tempfile.mkdtemp(prefix="np-stream-vs-iperf3-")
# both sides ask for the same socket buffers (Linux doubles the request):
# iperf3 -w, netproof's --udp-receive-buffer / --udp-send-buffer
BUFFER = 4194304


def parse_rate(text):
    mult = {"k": 1e3, "m": 1e6, "g": 1e9}
    t = text.strip().lower()
    return float(t[:-1]) * mult[t[-1]] if t[-1] in mult else float(t)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def iperf3(rate, length, seconds):
    port = free_port()
    srv = subprocess.Popen(["timeout", str(int(seconds) + 15), "iperf3",
                            "-s", "-1", "-B", "127.0.0.1", "-p", str(port)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    try:
        r = subprocess.run(["timeout", str(int(seconds) + 10), "iperf3", "-c",
                            "127.0.0.1", "-p", str(port), "-u", "-b",
                            "%d" % rate, "-l", str(length), "-t",
                            str(seconds), "-w", str(BUFFER), "-J"], capture_output=True,
                           text=True)
        d = json.loads(r.stdout)
    finally:
        srv.wait(timeout=20)
    s = d["end"]["sum"]
    return {"loss": s["lost_percent"], "jitter_us": s["jitter_ms"] * 1e3,
            "mbit": d["end"]["sum_received"]["bits_per_second"] / 1e6,
            "lost": s["lost_packets"]}


def netproof(bench, rate, length, seconds, extra=()):
    out = os.path.join(TMP, "np.json")
    subprocess.run([bench, "udp", "--mode", "stream", "--backend", "raw",
                    "--io-model", "split", "--clients", "1", "--payload",
                    str(length), "--bitrate", "%d" % rate, "--seconds",
                    str(seconds), "--warmup", "0", "--quiet",
                    "--udp-receive-buffer", str(BUFFER), "--udp-send-buffer",
                    str(BUFFER), "--output", out] + list(extra),
                   timeout=seconds + 30)
    with open(out) as f:
        st = json.load(f)["stream"]
    return {"loss": st["loss_percent"], "jitter_us": st["jitter_us"],
            "mbit": st["bitrate_bps"] / 1e6, "lost": st["counters"]["lost"]}


def med(vals):
    return "%.3g [%.3g-%.3g]" % (statistics.median(vals), min(vals),
                                 max(vals))


def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


def agree(a):
    print("== agree: loss and jitter at rates both sustain (%d B, %g s, %d "
          "rounds, alternating)" % (a.length, a.seconds, a.rounds))
    print("| rate | tool | loss % | jitter us | received Mbit/s | agree |")
    print("|---|---|---|---|---|---|")
    for text in a.rates.split(","):
        rate = parse_rate(text)
        res = {"iperf3": [], "netproof": []}
        for _ in range(a.rounds):
            res["netproof"].append(netproof(a.bench, rate, a.length,
                                            a.seconds))
            res["iperf3"].append(iperf3(rate, a.length, a.seconds))
        ml = {k: statistics.median(x["loss"] for x in v)
              for k, v in res.items()}
        mj = {k: statistics.median(x["jitter_us"] for x in v)
              for k, v in res.items()}
        lo, hi = sorted(mj.values())
        ok = abs(ml["iperf3"] - ml["netproof"]) <= 1.0 and \
            (hi <= 3 * lo or hi - lo <= 50)
        for k, v in res.items():
            print("| %s | %s | %s | %s | %s | %s |" %
                  (text, k, med([x["loss"] for x in v]),
                   med([x["jitter_us"] for x in v]),
                   med([x["mbit"] for x in v]), "yes" if ok else "NO"))


def maxrate(a):
    print("== maxrate: highest loss-free bitrate: every round at it and at "
          "every lower rung lost nothing and delivered >= 95 %% of the "
          "target (%d B)" % a.length)
    best = {"iperf3": None, "netproof": None}
    broken = {"iperf3": False, "netproof": False}
    for text in a.ladder.split(","):
        rate = parse_rate(text)
        runs = {"iperf3": [], "netproof": []}
        for _ in range(a.rounds):
            runs["netproof"].append(netproof(a.bench, rate, a.length,
                                             a.seconds))
            runs["iperf3"].append(iperf3(rate, a.length, a.seconds))
        for k, v in runs.items():
            ok = all(x["lost"] == 0 and x["mbit"] * 1e6 >= 0.95 * rate
                     for x in v)
            broken[k] = broken[k] or not ok
            if not broken[k]:
                best[k] = text
        print("  %s: iperf3 lost %d, %s Mbit/s; netproof lost %d, %s Mbit/s"
              % (text, sum(x["lost"] for x in runs["iperf3"]),
                 med([x["mbit"] for x in runs["iperf3"]]),
                 sum(x["lost"] for x in runs["netproof"]),
                 med([x["mbit"] for x in runs["netproof"]])))
    print("| tool | max loss-free bitrate of the ladder |")
    print("|---|---|")
    for k, v in best.items():
        print("| %s | %s |" % (k, v or "none"))


def offload(a):
    print("== offload: unlimited netproof streams, received Mbit/s (%d "
          "rounds)" % a.rounds)
    cases = [("1472 B plain", 1472, []),
             ("1472 B GSO 64,768 B", 1472, ["--gso", "64768"]),
             ("1472 B GSO + GRO", 1472, ["--gso", "64768", "--gro", "1"]),
             ("1472 B GRO", 1472, ["--gro", "1"]),
             ("65507 B plain", 65507, []),
             ("65507 B GRO", 65507, ["--gro", "1"])]
    print("| datagrams | received Mbit/s | loss % |")
    print("|---|---|---|")
    rows = {name: [] for name, _, _ in cases}
    for _ in range(a.rounds):  # alternate the cases round by round
        for name, length, extra in cases:
            rows[name].append(netproof(a.bench, 0, length, a.seconds,
                                       extra + ["--udp-receive-buffer",
                                                "8388608"]))
    for name, _, _ in cases:
        v = rows[name]
        print("| %s | %s | %s |" % (name, med([x["mbit"] for x in v]),
                                    med([x["loss"] for x in v])))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bench", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1)
    p.add_argument("--length", type=int, default=1472)
    p.add_argument("--rates", default="100M,500M")
    p.add_argument("--ladder", default="100M,200M,500M,1G,2G,4G")
    p.add_argument("--only", choices=["agree", "maxrate", "offload"])
    a = p.parse_args()
    print("load average before: %s (%d cores)" % (load(), os.cpu_count()))
    for name, fn in (("agree", agree), ("maxrate", maxrate),
                     ("offload", offload)):
        if a.only in (None, name):
            fn(a)
    print("load average after: %s" % load())


if __name__ == "__main__":
    main()
