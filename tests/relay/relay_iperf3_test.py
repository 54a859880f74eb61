#!/usr/bin/env python3
"""iperf3, a stack we did not write, through `netproof-bench relay`:
`iperf3 -c ... -u -b 50M` to `iperf3 -s`, its TCP control channel through
--tcp-passthrough, its UDP data impaired; iperf3's own counts against the
relay's (both records are kept on failure):

  loss      --loss-percent 5 --seed 42: iperf3's lost packets equal the
            relay's random losses of the data stream but for the unseen
            tail (at most 2), so its loss percentage agrees with the
            relay's applied loss far inside 3 sigma; the relay's applied
            rate is within 3 sigma of 5 %.
  jitter    --delay-ms 5 --jitter-ms J at 125 datagrams/s (8 ms apart, so
            copies do not reorder): iperf3's RFC 3550 jitter is E|X| with
            X = d_i - d_j, and E|X| = 2J/3 for delays uniform on [D-J, D+J).
            The host adds its own noise N (scheduling, measured as the
            jitter of the same run without --jitter-ms); for independent
            symmetric N, E|X| <= E|X + N| <= E|X| + E|N|.  So the median of
            iperf3's 1 s intervals with J = 3 ms must lie in [0.75 x 2J/3,
            1.25 x (2J/3 + jitter without)] (25 % for its smoothing and
            the few intervals).
  reorder   --duplicate-percent 2 --reorder-percent 5 --reorder-delay-ms
            15: each reordered copy is overtaken and each second copy of a
            duplicate arrives behind its twin, so iperf3's out-of-order
            count is reordered + duplicated - (duplicates with a reordered
            copy, 2r of them); within 3 sigma of that plus the copies
            still in the relay when iperf3 stops reading (10), and iperf3
            loses nothing.

Each run uses -w 4M so iperf3's own sockets do not overflow (their drops
would be losses the relay did not apply).  Seeds are fixed: the first
datagram of each run (iperf3's UDP "connect" message) is neither lost nor
duplicated with them, which iperf3 does not survive.

usage: relay_iperf3_test.py NETPROOF_BENCH
"""
import json
import math
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="np-relay-iperf3-")


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def free_port():
    """A port free for TCP and UDP on 127.0.0.1."""
    for _ in range(50):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(("127.0.0.1", 0))
        port = u.getsockname()[1]
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            t.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            t.close()
            u.close()
    fail("no free port")


def wait_bound(port, proto):
    """Until something listens on 127.0.0.1:port (/proc/net/tcp LISTEN, or
    a bound /proc/net/udp socket): the server must be up before the relay
    forwards to it, or what it sends first is lost outside the relay."""
    want = "%08X:%04X" % (0x0100007F, port)
    for _ in range(500):
        with open("/proc/net/" + proto) as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[1] == want and (proto == "udp" or cols[3] == "0A"):
                    return
        time.sleep(0.01)
    fail("nothing listens on %s port %d" % (proto, port))


def stop(p, sig):
    """End a process this test started: sig, then SIGKILL after 10 s."""
    if p is None or p.poll() is not None:
        return
    p.send_signal(sig)
    try:
        p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()


def run(name, iperf_args, relay_args):
    """One iperf3 test through the relay; (client json, server json,
    relay record).  Every process it starts is stopped on every path."""
    sport, rport = free_port(), free_port()
    srv_out = open(os.path.join(TMP, name + "-server.json"), "w")
    rec = os.path.join(TMP, name + "-relay.json")
    srv = relay = cli = None
    try:
        srv = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p",
                                str(sport), "--json"],
                               stdout=srv_out, stderr=subprocess.STDOUT)
        wait_bound(sport, "tcp")
        relay = subprocess.Popen(
            [BENCH, "relay", "--listen", "127.0.0.1:%d" % rport, "--forward",
             "127.0.0.1:%d" % sport, "--tcp-passthrough", "--record", rec,
             "--max-seconds", "60"] + relay_args,
            stderr=subprocess.PIPE, text=True)
        r, _, _ = select.select([relay.stderr], [], [], 10)
        if not r or "ready" not in relay.stderr.readline():
            fail("%s: the relay did not start" % name)
        try:
            cli = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p",
                                  str(rport), "-u", "-w", "4M", "--json"] +
                                 iperf_args, capture_output=True, text=True,
                                 timeout=40)
        except subprocess.TimeoutExpired:
            fail("%s: iperf3 did not finish within 40 s" % name)
        try:
            srv.wait(timeout=10)  # -1: the server ends after its one test
        except subprocess.TimeoutExpired:
            pass
    finally:
        stop(relay, signal.SIGTERM)
        stop(srv, signal.SIGTERM)
        srv_out.close()
    with open(os.path.join(TMP, name + "-client.json"), "w") as f:
        f.write(cli.stdout)
    if cli.returncode != 0 or relay.returncode != 0:
        fail("%s: iperf3 exit %d, relay exit %d: %s" %
             (name, cli.returncode, relay.returncode, cli.stdout[-400:]))
    with open(rec) as f:
        doc = json.load(f)
    with open(srv_out.name) as f:
        server = json.load(f)
    tcp = doc["relay"]["tcp"]
    if tcp["accepted"] < 1 or tcp["bytes_c2s"] == 0 or tcp["connect_failed"]:
        fail("%s: control channel through the relay: %s" % (name, tcp))
    return json.loads(cli.stdout), server, doc


def test_loss():
    cli, _, doc = run("loss", ["-b", "50M", "-l", "1400", "-t", "3"],
                      ["--loss-percent", "5", "--seed", "42"])
    s = cli["end"]["sum"]
    c2s = doc["relay"]["totals"]["c2s"]
    n, lost = s["packets"], s["lost_packets"]
    relay_lost = c2s["lost_random"]
    applied = relay_lost / c2s["loss_stage"]
    sigma = math.sqrt(applied * (1 - applied) / n)
    print("loss: iperf3 %d of %d lost (%.3f %%); relay lost %d of %d "
          "(applied %.3f %%, 3 sigma = %.3f %%)" %
          (lost, n, s["lost_percent"], relay_lost, c2s["loss_stage"],
           100 * applied, 300 * sigma))
    if c2s["received"] != n + 1:  # the data stream and the connect message
        fail("loss: relay received %d, iperf3 sent %d" % (c2s["received"], n))
    if not 0 <= relay_lost - lost <= 2:
        fail("loss: iperf3 lost %d, the relay %d" % (lost, relay_lost))
    if abs(s["lost_percent"] / 100 - applied) > 3 * sigma:
        fail("loss: iperf3 %.3f %% vs applied %.3f %%" %
             (s["lost_percent"], 100 * applied))
    if abs(applied - 0.05) > 3 * math.sqrt(0.05 * 0.95 / c2s["loss_stage"]):
        fail("loss: applied %.3f %% is not 5 %% within 3 sigma" %
             (100 * applied))


def interval_jitter(server):
    # the median over 1 s intervals, the first (filling the average from
    # zero) left out
    v = [iv["sum"]["jitter_ms"] for iv in server["intervals"]][1:]
    return statistics.median(v) if v else server["end"]["sum"]["jitter_ms"]


def test_jitter():
    j_ms = 3.0
    want = 2 * j_ms / 3
    args = ["-b", "1M", "-l", "1000", "-t", "8"]
    _, s0, _ = run("jitter0", args, ["--delay-ms", "5"])
    _, s1, doc = run("jitter2", args, ["--delay-ms", "5", "--jitter-ms",
                                       str(j_ms)])
    j0, j1 = interval_jitter(s0), interval_jitter(s1)
    late = doc["relay"]["timer"]["late_mean_ns"] / 1e3
    print("jitter: iperf3 %.3f ms with --jitter-ms 3 (2J/3 = %.3f), %.3f ms "
          "without (the host's own); relay release lateness mean %.1f us" %
          (j1, want, j0, late))
    lo, hi = 0.75 * want, 1.25 * (want + j0)
    if not lo <= j1 <= hi:
        fail("jitter: %.3f ms is not in [%.3f, %.3f]" % (j1, lo, hi))


def test_reorder():
    _, server, doc = run("reorder", ["-b", "50M", "-l", "1400", "-t", "3"],
                         ["--duplicate-percent", "2", "--reorder-percent",
                          "5", "--reorder-delay-ms", "15", "--seed", "3"])
    u = server["end"]["streams"][0]["udp"]
    c2s = doc["relay"]["totals"]["c2s"]
    dup, reo = c2s["duplicated"], c2s["reordered"]
    r = c2s["observed"]["reorder_rate"]
    overlap = dup * (1 - (1 - r) ** 2)
    want = reo + dup - overlap
    tol = 3 * math.sqrt(overlap) + 10
    print("reorder: iperf3 out-of-order %d, lost %d; relay reordered %d, "
          "duplicated %d -> expected %.1f +- %.1f" %
          (u["out_of_order"], u["lost_packets"], reo, dup, want, tol))
    if abs(u["out_of_order"] - want) > tol:
        fail("reorder: out-of-order %d, expected %.1f +- %.1f" %
             (u["out_of_order"], want, tol))
    if u["lost_packets"] > 10:
        fail("reorder: iperf3 lost %d with no loss configured" %
             u["lost_packets"])


def main():
    if shutil.which("iperf3") is None:
        fail("iperf3 is not installed (scripts/install-deps.sh --test)")
    test_loss()
    test_jitter()
    test_reorder()
    shutil.rmtree(TMP)
    print("relay_iperf3_test: ok")


main()
