#!/usr/bin/env python3
"""netproof-bench rudp through an external `netproof-bench relay` process
(two processes): usage errors, a relay whose stats lines name another
listen address, and a real run whose record links the relay's statistics
lines (seq and SHA-256 of the exact lines, found again in the file) and
whose per-round relay counters add up to the relay's own final record.

usage: rudp_external_test.py NETPROOF_BENCH SCHEMA_DIR NETPROOF_VALIDATE
"""
import hashlib
import atexit
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

import jsonschema

BENCH, SCHEMAS, VALIDATE = sys.argv[1], sys.argv[2], sys.argv[3]
with open(os.path.join(SCHEMAS, "run.schema.json")) as f:
    RUN = jsonschema.Draft202012Validator(json.load(f))
TMP = tempfile.mkdtemp(prefix="np-rudp-ext-")
FAST = ["--rounds", "2", "--seconds", "0.5", "--warmup", "0.2", "--clients",
        "2", "--window", "4"]


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rudp(args, timeout=40):
    return subprocess.run([BENCH, "rudp"] + args, capture_output=True,
                          text=True, timeout=timeout)


def check(doc, path):
    errors = sorted(RUN.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("%s: /%s: %s" % (path, "/".join(map(str, errors[0].path)),
                              errors[0].message))
    p = subprocess.run([VALIDATE, path], capture_output=True, text=True)
    if p.returncode != 0:
        fail("netproof-validate %s: %s" % (path, p.stdout + p.stderr))


def test_usage():
    out = os.path.join(TMP, "u.json")
    cases = [
        (["--relay", "127.0.0.1:9000"], "--relay"),
        (["--relay-stats", "x.jsonl"], "--relay-stats"),
        (["--relay", "localhost:9000", "--relay-stats", "x"], "--relay"),
        (["--relay", "127.0.0.1:9000", "--relay-stats", "x",
          "--loss-percent", "3"], "--loss-percent"),
        (["--relay", "127.0.0.1:9000", "--relay-stats", "x", "--profile",
          "burst"], "--profile"),
        (["--relay", "127.0.0.1:9000", "--relay-stats", ""], "--relay-stats"),
    ]
    for args, word in cases:
        p = rudp(args + ["--output", out])
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or word not in lines[0] or \
                os.path.exists(out):
            fail("%s: exit %d, %r" % (args, p.returncode, p.stderr))


STARTED = []  # relays this test started: none outlives it


@atexit.register
def stop_started():
    for p in STARTED:
        if p.poll() is None:
            p.kill()
            p.wait()


def start_relay(lines, fwd_port):
    p = subprocess.Popen([BENCH, "relay", "--listen", "127.0.0.1:0",
                          "--forward", "127.0.0.1:%d" % fwd_port,
                          "--profile", "random", "--stats-lines", lines,
                          "--stats-interval", "0.1", "--record",
                          os.path.join(TMP, "relay.json"),
                          "--max-seconds", "60"],
                         stderr=subprocess.PIPE, text=True)
    STARTED.append(p)
    r, _, _ = select.select([p.stderr], [], [], 10)
    line = p.stderr.readline() if r else ""
    if "ready" not in line:
        p.kill()
        fail("relay did not start: %r" % line)
    return p, int(line.split(" -> ")[0].rsplit(":", 1)[1])


def test_wrong_relay(lines, port):
    """The stats lines name the relay on port; --relay names another."""
    out = os.path.join(TMP, "wrong.json")
    p = rudp(["--relay", "127.0.0.1:%d" % (port ^ 1), "--relay-stats",
              lines, "--output", out] + FAST)
    if p.returncode != 3 or "listens on" not in p.stderr or \
            os.path.exists(out):
        fail("wrong relay: exit %d, %r" % (p.returncode, p.stderr))


def test_run():
    lines = os.path.join(TMP, "relay.jsonl")
    relay, port = start_relay(lines, free_port())
    try:
        test_wrong_relay(lines, port)
        out = os.path.join(TMP, "rudp.json")
        p = rudp(["--relay", "127.0.0.1:%d" % port, "--relay-stats", lines,
                  "--output", out] + FAST)
    finally:
        relay.send_signal(signal.SIGTERM)
        relay.communicate(timeout=10)
    if p.returncode != 0 or relay.returncode != 0:
        fail("rudp exit %d (%s), relay exit %d" %
             (p.returncode, p.stderr[-300:], relay.returncode))
    with open(out) as f:
        doc = json.load(f)
    check(doc, out)
    with open(os.path.join(TMP, "relay.json")) as f:
        rel = json.load(f)["relay"]
    cfg = doc["config"]["relay"]
    if cfg["external"]["relay"] != "127.0.0.1:%d" % port or \
            cfg["profile"] != "random":
        fail("config.relay: %s" % cfg)
    texts = open(lines, "rb").read().split(b"\n")
    by_sha = {hashlib.sha256(t).hexdigest(): t for t in texts if t}
    tot = {"c2s": 0, "s2c": 0}
    lost = 0
    prev_end = 0
    for r in doc["rudp"]["rounds"]:
        x = r["relay"]["stats"]["external"]
        if r["status"] != "passed" or x["routes_matched"] != 2:
            fail("round %d: %s, %s" % (r["round"], r["status"], x))
        for key in ("baseline_line", "end_line"):
            t = by_sha.get(x[key]["sha256"])
            if t is None or json.loads(t)["seq"] != x[key]["seq"]:
                fail("round %d: %s not found in the lines" % (r["round"], key))
        if not prev_end <= x["baseline_line"]["seq"] < x["end_line"]["seq"]:
            fail("round %d: lines out of order: %s" % (r["round"], x))
        prev_end = x["end_line"]["seq"]
        for d in tot:
            tot[d] += r["relay"][d]["received"]
        lost += r["relay"]["c2s"]["lost_random"]
    if tot["c2s"] != rel["totals"]["c2s"]["received"] or \
            tot["s2c"] != rel["totals"]["s2c"]["received"] or \
            lost != rel["totals"]["c2s"]["lost_random"] or \
            rel["routes_count"] != 4:
        fail("rounds %s / lost %d vs the relay's record %s" %
             (tot, lost, rel["totals"]["c2s"]))
    print("rudp through the relay process: 2 rounds passed, %d + %d "
          "datagrams, %d lost c2s, linked to lines %s" %
          (tot["c2s"], tot["s2c"], lost,
           [r["relay"]["stats"]["external"]["end_line"]["seq"]
            for r in doc["rudp"]["rounds"]]))


def main():
    test_usage()
    test_run()
    shutil.rmtree(TMP)
    print("rudp_external_test: ok")


main()
