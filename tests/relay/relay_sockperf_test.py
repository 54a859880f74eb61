#!/usr/bin/env python3
"""sockperf, a stack we did not write, through `netproof-bench relay`:
`sockperf under-load --reply-every 1` to `sockperf server`, its dropped /
duplicated / out-of-order counts against the relay's counters for the same
run (the relay record and sockperf's output are kept on failure).

sockperf counts duplicates over the whole run, dropped and out-of-order
messages over its "valid duration" (the messages sent after its warm-up),
so:
  loss     --loss-percent 5 --seed 11: sent - received (whole run) = the
           relay's losses c2s + s2c, but for replies still in flight when
           sockperf stops reading (it sends in bursts of up to 32 at this
           rate: at most two bursts); and the valid window's dropped
           count within 3 sigma of n (1 - (1 - p_c2s)(1 - p_s2c)) with the
           relay's applied rates; nothing duplicated or out of order.
  dup      --duplicate-percent 3 --seed 12: duplicated = the relay's s2c
           copies forwarded - the distinct replies received (every extra
           copy, of a request or of a reply, arrives as a duplicate reply),
           but for the unread tail as above; nothing dropped or out of
           order.
  reorder  --reorder-percent 10 --reorder-delay-ms 15 at 100 messages/s
           (10 ms apart): sockperf walks its messages in order and counts
           one whose reply arrived before the last in-order reply.  A
           Monte Carlo of that rule over the valid window, with the relay's
           applied rates per direction and sends 10 ms +- 50 % apart, gives
           the expected count and its spread (the count moves little with
           the send jitter: 91 at +- 10 %, 98 at +- 50 %); sockperf's count
           is within 3 sigma of it, plus 10 % of it for a host whose
           scheduling bunches sockperf's sends.

usage: relay_sockperf_test.py NETPROOF_BENCH
"""
import json
import math
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

BENCH = sys.argv[1]
# sockperf's own sockets large enough that a stalled sockperf does not
# drop replies the relay delivered (those would be losses it did not apply)
BUF = ["--buffer-size", "4194304"]
TAIL = 64  # replies in flight when sockperf stops reading: two bursts
TMP = tempfile.mkdtemp(prefix="np-relay-sockperf-")


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


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


def parse(out):
    total = re.search(r"\[Total Run\].*SentMessages=(\d+); "
                      r"ReceivedMessages=(\d+)", out)
    valid = re.search(r"\[Valid Duration\].*SentMessages=(\d+); "
                      r"ReceivedMessages=(\d+)", out)
    errs = re.search(r"# dropped messages = (\d+); # duplicated messages = "
                     r"(\d+); # out-of-order messages = (\d+)", out)
    if not (total and valid and errs):
        fail("cannot read sockperf's summary: %s" % out[-600:])
    return {"sent": int(total.group(1)), "received": int(total.group(2)),
            "valid_sent": int(valid.group(1)),
            "dropped": int(errs.group(1)), "duplicated": int(errs.group(2)),
            "ooo": int(errs.group(3))}


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


def run(name, mps, seconds, relay_args):
    """One sockperf test through the relay; every process it starts is
    stopped on every path."""
    sport = free_port()
    rec = os.path.join(TMP, name + "-relay.json")
    srv = relay = None
    try:
        srv = subprocess.Popen(["sockperf", "server", "-i", "127.0.0.1",
                                "-p", str(sport)] + BUF,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        wait_bound(sport, "udp")
        relay = subprocess.Popen(
            [BENCH, "relay", "--listen", "127.0.0.1:0", "--forward",
             "127.0.0.1:%d" % sport, "--record", rec, "--max-seconds",
             "60"] + relay_args, stderr=subprocess.PIPE, text=True)
        r, _, _ = select.select([relay.stderr], [], [], 10)
        line = relay.stderr.readline() if r else ""
        if "ready" not in line:
            fail("%s: the relay did not start: %r" % (name, line))
        rport = int(line.split(" -> ")[0].rsplit(":", 1)[1])
        try:
            cli = subprocess.run(["sockperf", "under-load", "-i",
                                  "127.0.0.1", "-p", str(rport), "-t",
                                  str(seconds), "--mps", str(mps),
                                  "--reply-every", "1"] + BUF,
                                 capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            fail("%s: sockperf did not finish within 60 s" % name)
    finally:
        stop(relay, signal.SIGTERM)
        stop(srv, signal.SIGKILL)
    with open(os.path.join(TMP, name + "-sockperf.txt"), "w") as f:
        f.write(cli.stdout + cli.stderr)
    if cli.returncode != 0 or relay.returncode != 0:
        fail("%s: sockperf exit %d, relay exit %d" %
             (name, cli.returncode, relay.returncode))
    with open(rec) as f:
        doc = json.load(f)
    if doc["sockets"]["kernel_drops"]:
        fail("%s: the relay's own sockets dropped %d datagrams" %
             (name, doc["sockets"]["kernel_drops"]))
    t = doc["relay"]["totals"]
    return parse(cli.stdout + cli.stderr), t["c2s"], t["s2c"]


def within(name, got, n, q, slack=0.0):
    want = n * q
    tol = 3 * math.sqrt(n * q * (1 - q)) + slack
    print("%s: sockperf %d, relay's rates give %.1f +- %.1f" %
          (name, got, want, tol))
    if abs(got - want) > tol:
        fail("%s: %d, expected %.1f +- %.1f" % (name, got, want, tol))


def rate(c, key):
    return c[key] / c["loss_stage"] if key.startswith("lost") else \
        c[key] / c["queued"]


def test_loss():
    sp, c2s, s2c = run("loss", 1000, 3, ["--loss-percent", "5", "--seed",
                                         "11"])
    lost = c2s["lost_random"] + s2c["lost_random"]
    print("loss: sockperf sent %d, received %d; relay lost %d c2s + %d s2c, "
          "forwarded %d replies" % (sp["sent"], sp["received"],
                                     c2s["lost_random"], s2c["lost_random"],
                                     s2c["forwarded"]))
    unread = s2c["forwarded"] - sp["received"]
    if c2s["received"] != sp["sent"] or not 0 <= unread <= TAIL or \
            sp["sent"] - sp["received"] != lost + unread:
        fail("loss: sockperf %s, relay c2s %s s2c %s" % (sp, c2s, s2c))
    pc, ps = rate(c2s, "lost_random"), rate(s2c, "lost_random")
    within("loss: dropped in the valid window", sp["dropped"],
           sp["valid_sent"], 1 - (1 - pc) * (1 - ps))
    if sp["duplicated"] or sp["ooo"]:
        fail("loss: %s" % sp)


def test_dup():
    sp, c2s, s2c = run("dup", 1000, 3, ["--duplicate-percent", "3", "--seed",
                                        "12"])
    extra = s2c["forwarded"] - sp["received"]
    print("dup: sockperf duplicated %d; relay forwarded %d replies for %d "
          "requests (%d + %d duplicated)" %
          (sp["duplicated"], s2c["forwarded"], sp["received"],
           c2s["duplicated"], s2c["duplicated"]))
    if not 0 <= extra - sp["duplicated"] <= TAIL or \
            sp["sent"] - sp["received"] > TAIL:
        fail("dup: sockperf %s, relay c2s %s s2c %s" % (sp, c2s, s2c))
    if sp["dropped"] or sp["ooo"]:
        fail("dup: %s" % sp)


def sockperf_ooo(n, rc, rs, delay, gap, rng):
    """sockperf's out-of-order rule on n messages sent gap (+- 50 %) apart
    whose request / reply is late by delay with probability rc / rs."""
    t, prev, ooo = 0.0, -1.0, 0
    for _ in range(n):
        t += gap * rng.uniform(0.5, 1.5)
        rx = t + delay * ((rng.random() < rc) + (rng.random() < rs))
        if rx < prev:
            ooo += 1
        else:
            prev = rx
    return ooo


def test_reorder():
    sp, c2s, s2c = run("reorder", 100, 6, ["--reorder-percent", "10",
                                           "--reorder-delay-ms", "15",
                                           "--seed", "13"])
    rc, rs = rate(c2s, "reordered"), rate(s2c, "reordered")
    n = sp["valid_sent"]
    rng = random.Random(13)
    sims = [sockperf_ooo(n, rc, rs, 15.0, 10.0, rng) for _ in range(2000)]
    mean = sum(sims) / len(sims)
    sd = math.sqrt(sum((x - mean) ** 2 for x in sims) / (len(sims) - 1))
    tol = 3 * sd + 0.1 * mean
    print("reorder: relay reordered %d c2s + %d s2c of %d; sockperf "
          "out-of-order %d, the rule on the relay's rates gives %.1f +- %.1f "
          "(3 sigma + 10 %%)" % (c2s["reordered"], s2c["reordered"],
                                 c2s["queued"], sp["ooo"], mean, tol))
    if abs(sp["ooo"] - mean) > tol:
        fail("reorder: out-of-order %d, expected %.1f +- %.1f" %
             (sp["ooo"], mean, tol))
    if sp["dropped"] or sp["duplicated"]:
        fail("reorder: %s" % sp)


def main():
    if shutil.which("sockperf") is None:
        fail("sockperf is not installed (scripts/install-deps.sh --test)")
    test_loss()
    test_dup()
    test_reorder()
    shutil.rmtree(TMP)
    print("relay_sockperf_test: ok")


main()
