#!/usr/bin/env python3
"""netproof-bench relay as a process: one-line usage errors with exit 2 and
nothing written, exit 3 for an address in use, SIGTERM / SIGINT /
--max-seconds as its ordinary ends (exit 0, status passed, stopped_by), the
refused-route check (exit 1), exact counters against what this test sent
and received, and every record and stats line checked by
python3-jsonschema (Draft 2020-12) and netproof-validate.

usage: relay_process_test.py NETPROOF_BENCH SCHEMA_DIR NETPROOF_VALIDATE
"""
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
import time

import jsonschema

BENCH, SCHEMAS, VALIDATE = sys.argv[1], sys.argv[2], sys.argv[3]


def validator(name):
    with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
        return jsonschema.Draft202012Validator(json.load(f))


RUN, STATS = validator("run"), validator("relay-stats")
TMP = tempfile.mkdtemp(prefix="np-relay-test-")


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def schema_ok(v, doc, what):
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("%s: /%s: %s" % (what, "/".join(map(str, errors[0].path)),
                              errors[0].message))


def validate_file(path):
    p = subprocess.run([VALIDATE, path], capture_output=True, text=True)
    if p.returncode != 0:
        fail("netproof-validate %s: %s" % (path, p.stdout + p.stderr))


def check_record(path, status, stopped_by):
    with open(path) as f:
        doc = json.load(f)
    schema_ok(RUN, doc, path)
    schema_ok(STATS, doc["relay"], path + " relay")
    validate_file(path)
    if doc["status"] != status:
        fail("%s: status %s, expected %s" % (path, doc["status"], status))
    if doc["relay"]["stopped_by"] != stopped_by:
        fail("%s: stopped_by %s, expected %s" % (path, doc["relay"]["stopped_by"],
                                               stopped_by))
    if doc["config"]["protocol"] != "relay" or "measurement" in doc:
        fail("%s: not a relay record" % path)
    return doc


def check_lines(path):
    lines = open(path).read().splitlines()
    if not lines:
        fail("%s: no lines" % path)
    for i, text in enumerate(lines, 1):
        d = json.loads(text)
        schema_ok(STATS, d, "%s line %d" % (path, i))
        if d["seq"] != i or d["final"] != (i == len(lines)):
            fail("%s line %d: seq %s final %s" % (path, i, d["seq"],
                                                  d["final"]))
        one = os.path.join(TMP, "line.json")
        with open(one, "w") as f:
            f.write(text)
        validate_file(one)
    return [json.loads(t) for t in lines]


def udp(port=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    return s


def run(args, timeout=20):
    return subprocess.run([BENCH, "relay"] + args, capture_output=True,
                          text=True, timeout=timeout)


STARTED = []  # relays this test started: none outlives it


@atexit.register
def stop_started():
    for p in STARTED:
        if p.poll() is None:
            p.kill()
            p.wait()


def start(args):
    """The relay on an ephemeral port; returns (process, its port)."""
    p = subprocess.Popen([BENCH, "relay", "--listen", "127.0.0.1:0"] + args,
                         stderr=subprocess.PIPE, text=True)
    STARTED.append(p)
    r, _, _ = select.select([p.stderr], [], [], 10)
    line = p.stderr.readline() if r else ""
    if "ready: udp" not in line:
        p.kill()
        fail("no ready line: %r" % line)
    return p, int(line.split(" -> ")[0].rsplit(":", 1)[1])


def finish(p, sig=None, timeout=10):
    if sig:
        p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("relay did not end")
    return p.returncode, err


def test_usage_errors():
    rec = os.path.join(TMP, "usage.json")
    base = ["--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9"]
    cases = [
        (["--forward", "127.0.0.1:9"], "--listen"),
        (["--listen", "127.0.0.1:0"], "--forward"),
        (["--listen", "localhost:1", "--forward", "127.0.0.1:9"], "--listen"),
        (["--listen", "127.0.0.1:70000", "--forward", "127.0.0.1:9"],
         "--listen"),
        (["--listen", "127.0.0.1", "--forward", "127.0.0.1:9"], "--listen"),
        (["--listen", "::1:5", "--forward", "127.0.0.1:9"], "--listen"),
        (["--listen", "127.0.0.1:0", "--forward", "[::1]:9"], "--forward"),
        (base + ["--stats-interval", "1"], "--stats-interval"),
        (base + ["--tcp-max-bytes", "100"], "--tcp-max-"),
        (base + ["--tcp-idle-seconds", "1"], "--tcp-idle-seconds"),
        (base + ["--route-idle-seconds", "-1"], "--route-idle-seconds"),
        (base + ["--max-memory-bytes", "100"], "--max-memory-bytes"),
        (base + ["--max-seconds", "0"], "--max-seconds"),
        (base + ["--max-seconds", "100000"], "--max-seconds"),
        (base + ["--max-routes", "0"], "--max-routes"),
        (base + ["--loss-percent", "101"], "--loss-percent"),
        (base + ["--burst-loss", "5/3"], "--burst-loss"),
        (base + ["--profile", "lossy"], "--profile"),
        (base + ["--bogus"], "--bogus"),
        (base + ["--record", os.path.join(TMP, "no", "such.json")],
         "--record"),
        (base + ["--record", TMP], "--record"),
        (base + ["--stats-lines", os.path.join(TMP, "no", "l.jsonl")],
         "--stats-lines"),
    ]
    for args, word in cases:
        if "--record" not in args:
            args = args + ["--record", rec]
        t0 = time.monotonic()
        p = run(args)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or word not in lines[0]:
            fail("%s: exit %d, stderr %r" % (args, p.returncode, p.stderr))
        if os.path.exists(rec) or time.monotonic() - t0 > 3:
            fail("%s: wrote a record or took too long" % args)
        if any(".tmp." in f for f in os.listdir(TMP)):
            fail("%s: left a temporary file" % args)
    p = run(["--help"])
    if p.returncode != 0 or "--tcp-passthrough" not in p.stdout:
        fail("--help: %d" % p.returncode)


def test_address_in_use():
    s = udp()
    port = s.getsockname()[1]
    rec = os.path.join(TMP, "inuse.json")
    p = run(["--listen", "127.0.0.1:%d" % port, "--forward", "127.0.0.1:9",
             "--record", rec])
    lines = p.stderr.strip().splitlines()
    if (p.returncode != 3 or len(lines) != 1 or
            "127.0.0.1:%d" % port not in lines[0] or os.path.exists(rec)):
        fail("address in use: exit %d, %r" % (p.returncode, p.stderr))
    s.close()


def test_sigterm_counts():
    """Exact counters: N datagrams to a server that answers the first M."""
    server = udp()
    server.settimeout(2)
    rec, lines = os.path.join(TMP, "term.json"), os.path.join(TMP, "l.jsonl")
    p, port = start(["--forward", "127.0.0.1:%d" % server.getsockname()[1],
                     "--record", rec, "--stats-lines", lines,
                     "--stats-interval", "0.1"])
    client = udp()
    client.settimeout(2)
    n, m = 300, 200
    for i in range(n):
        client.sendto(b"%06d" % i + b"x" * 94, ("127.0.0.1", port))
        data, src = server.recvfrom(2048)
        if data[:6] != b"%06d" % i:
            fail("server got %r for %d" % (data[:6], i))
        if i < m:
            server.sendto(data, src)
            back = client.recv(2048)
            if back != data:
                fail("echo %d differs" % i)
    time.sleep(0.35)  # a few lines
    code, err = finish(p, signal.SIGTERM)
    if code != 0:
        fail("SIGTERM: exit %d: %s" % (code, err))
    doc = check_record(rec, "passed", "SIGTERM")
    r = doc["relay"]
    c2s, s2c = r["totals"]["c2s"], r["totals"]["s2c"]
    if (c2s["received"], c2s["forwarded"], s2c["received"],
            s2c["forwarded"], r["routes_count"]) != (n, n, m, m, 1):
        fail("counts: %s %s" % (c2s, s2c))
    if c2s["received_bytes"] != 100 * n or r["io"]["routes_refused"] != 0:
        fail("bytes or refused: %s" % r["io"])
    cl = "127.0.0.1:%d" % client.getsockname()[1]
    if r["routes"][0]["client"] != cl:
        fail("route client %s, expected %s" % (r["routes"][0]["client"], cl))
    got = check_lines(lines)
    if len(got) < 3 or not got[-1]["final"]:
        fail("%d lines" % len(got))
    if got[-1]["totals"] != r["totals"]:
        fail("the final line is not the record's statistics")
    socks = doc["sockets"]["list"]
    if len(socks) != 2 or {s["role"] for s in socks} != {"relay"}:
        fail("sockets: %s" % socks)
    if "ended by SIGTERM: passed" not in err:
        fail("summary: %r" % err)
    client.close()
    server.close()


def test_sigint_and_bound():
    rec = os.path.join(TMP, "int.json")
    p, _ = start(["--forward", "127.0.0.1:9", "--record", rec])
    time.sleep(0.2)
    code, _ = finish(p, signal.SIGINT)
    if code != 0:
        fail("SIGINT: exit %d" % code)
    check_record(rec, "passed", "SIGINT")
    rec = os.path.join(TMP, "max.json")
    t0 = time.monotonic()
    p, _ = start(["--forward", "127.0.0.1:9", "--record", rec,
                  "--max-seconds", "0.5"])
    code, _ = finish(p)
    took = time.monotonic() - t0
    if code != 0 or not 0.4 < took < 5:
        fail("--max-seconds 0.5: exit %d after %.2f s" % (code, took))
    doc = check_record(rec, "passed", "max-seconds")
    if not 0.45 <= doc["relay"]["uptime_seconds"] < 2:
        fail("uptime %s" % doc["relay"]["uptime_seconds"])


def test_routes_refused():
    """--max-routes 1, two clients: the second one's datagrams are refused,
    exactly counted, and the record fails with the check's reason."""
    sink = udp()
    rec = os.path.join(TMP, "refused.json")
    p, port = start(["--forward", "127.0.0.1:%d" % sink.getsockname()[1],
                     "--record", rec, "--max-routes", "1"])
    a, b = udp(), udp()
    for i in range(50):
        a.sendto(b"a", ("127.0.0.1", port))
    sink.settimeout(2)
    for i in range(50):
        sink.recvfrom(100)
    for i in range(70):
        b.sendto(b"b", ("127.0.0.1", port))
    time.sleep(0.2)
    code, _ = finish(p, signal.SIGTERM)
    doc = check_record(rec, "failed", "SIGTERM")
    if code != 1 or doc["relay"]["io"]["routes_refused"] != 70:
        fail("refused: exit %d, %s" % (code, doc["relay"]["io"]))
    if not any(x.startswith("routes_refused: 70 datagrams")
               for x in doc["reasons"]):
        fail("reasons: %s" % doc["reasons"])


def test_loop_and_expiry():
    """A datagram from the forward address itself is refused (refused_loop,
    a failed check, nothing forwarded); --route-idle-seconds 0.2 expires an
    idle route, counted in the record; the record names the new bounds."""
    sink = udp()
    rec = os.path.join(TMP, "loop.json")
    p, port = start(["--forward", "127.0.0.1:%d" % sink.getsockname()[1],
                     "--record", rec, "--route-idle-seconds", "0.2",
                     "--max-memory-bytes", "1048576"])
    sink.sendto(b"spoof", ("127.0.0.1", port))
    c = udp()
    c.sendto(b"real", ("127.0.0.1", port))
    sink.settimeout(2)
    data, _ = sink.recvfrom(100)
    time.sleep(0.5)  # more than the idle bound: the route expires
    code, _ = finish(p, signal.SIGTERM)
    doc = check_record(rec, "failed", "SIGTERM")
    io = doc["relay"]["io"]
    if code != 1 or data != b"real" or io["refused_loop"] != 1 or \
            io["send_datagrams"] != 1 or io["routes_expired"] != 1:
        fail("loop/expiry: exit %d, got %r, %s" % (code, data, io))
    if not any(x.startswith("refused_loop: 1 datagrams") for x in
               doc["reasons"]):
        fail("reasons: %s" % doc["reasons"])
    cfg = doc["config"]
    if cfg["route_idle_seconds"] != 0.2 or cfg["max_memory_bytes"] != 1 << 20:
        fail("config: %s" % cfg)
    ex = doc["relay"]["expired"]
    if ex["routes"] != 1 or ex["c2s"]["forwarded"] != 1 or \
            doc["relay"]["totals"]["c2s"]["forwarded"] != 1:
        fail("expired totals: %s" % ex)
    c.close()
    sink.close()


def test_seeded_loss():
    """--loss-percent 30 --seed 7: what the sink receives is exactly what
    the relay says it forwarded, and lost + forwarded = received; the same
    seed gives the same count twice."""
    counts = []
    for rep in range(2):
        sink = udp()
        sink.setblocking(False)
        rec = os.path.join(TMP, "loss%d.json" % rep)
        p, port = start(["--forward", "127.0.0.1:%d" % sink.getsockname()[1],
                         "--record", rec, "--loss-percent", "30", "--seed",
                         "7"])
        c = udp()
        got = 0
        for i in range(2000):
            c.sendto(b"%d" % i, ("127.0.0.1", port))
            if i % 20 == 19:  # read as we go: the sink's buffer is small
                time.sleep(0.001)
                try:
                    while True:
                        sink.recvfrom(100)
                        got += 1
                except BlockingIOError:
                    pass
        sink.settimeout(0.3)
        try:
            while True:
                sink.recvfrom(100)
                got += 1
        except socket.timeout:
            pass
        code, _ = finish(p, signal.SIGTERM)
        doc = check_record(rec, "passed", "SIGTERM")
        t = doc["relay"]["totals"]["c2s"]
        if code != 0 or t["received"] != 2000 or t["forwarded"] != got or \
                t["lost_random"] + t["forwarded"] != 2000:
            fail("loss: exit %d, sink %d, %s" % (code, got, t))
        counts.append(got)
        c.close()
        sink.close()
    if counts[0] != counts[1] or not 1200 < counts[0] < 1600:
        fail("seeded loss not reproducible: %s" % counts)


def main():
    test_usage_errors()
    test_address_in_use()
    test_sigterm_counts()
    test_sigint_and_bound()
    test_routes_refused()
    test_loop_and_expiry()
    test_seeded_loss()
    shutil.rmtree(TMP)
    print("relay_process_test: ok")


main()
