#!/usr/bin/env python3
"""The truth matrix: what `udp --connect` reports, checked against the
counters of the two other processes on the path, for the same window.

`netproof-bench serve` behind `netproof-bench relay` (both as processes,
loopback only, each bounded by --max-seconds and stopped by SIGINT after
the client), one relay impairment per row (loss 5 %, reorder 10 %/2 ms,
duplicate 5 %, delay 20 ms +- 5, burst 3/100) and all of them combined,
each with `udp --connect` in closed loop and in open loop (--rate).  The
client runs without warm-up, so its measurement counters cover every
datagram it sent, as the relay's and serve's records do.  Every count the
client reports (sent, received, lost, late, duplicated, reordered) is
compared with the relay's per-direction counters and serve's own, with
the rule next to each assertion; a rule that does not hold fails the test
naming the row, the rule and the numbers.

Also the three regressions of 0.2.0 this closes (each failed there):
- late is not lost: through reordering only, nothing is lost and nothing
  is late or stale (0.2.0: "lost 28 ... 28 replies to nothing
  outstanding");
- closed loop survives loss: through 5 % loss every --interval slice has
  replies, and the run says the reply timeout set the rate, with the loss
  as a percentage (0.2.0: 5 of 6 slices at 0/s);
- nothing listening: exit 3 and one line naming ECONNREFUSED; a bound
  socket that never answers: exit 3, "no reply from ... in S s" (0.2.0:
  exit 1 and "answered by unidentified server: 0 round trips/s").

And the self-check of such records: a suite (`netproof-bench matrix`)
whose services are serve and a lossy relay, its runs through the relay;
the set passes `netproof-report --self-check`, and each tampered count of
what the client gave up on (counters.late, the timeouts section, the
late checks' verdicts) is named by it.

usage: truth_test.py NETPROOF_BENCH RUN_SCHEMA NETPROOF_REPORT [ROW ...]
  ROW: listening, selfcheck, or an impairment name (loss, reorder, ...):
  only those (to show a single regression against an older binary)
"""
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import jsonschema

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth_rules import IMPAIRMENTS, KINDS, check_row  # noqa: E402

BENCH, SCHEMA, REPORT = sys.argv[1:4]
ONLY = set(sys.argv[4:])
with open(SCHEMA) as f:
    VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
TMP = tempfile.mkdtemp(prefix="np-truth-test-")
PROCS = []
SECONDS = "1"      # each client run


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    for p in PROCS:
        if p.poll() is None:
            p.kill()
    sys.exit(1)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("%s: /%s: %s" % (path, "/".join(map(str, errors[0].path)),
                              errors[0].message))
    return doc


def ready_line(p, what, timeout=10):
    """The first stderr line of p (its ready / listening line)."""
    t0 = time.time()
    buf = b""
    while b"\n" not in buf:
        left = timeout - (time.time() - t0)
        if left <= 0 or p.poll() is not None:
            fail("%s not ready (exit %s): %r" % (what, p.poll(), buf))
        r, _, _ = select.select([p.stderr], [], [], left)
        if r:
            buf += os.read(p.stderr.fileno(), 4096)
    return buf.decode().splitlines()[0]


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop(p, what):
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("%s did not stop on SIGINT" % what)
    if p.returncode not in (0, 1):
        fail("%s: exit %d: %s" % (what, p.returncode, p.stderr.read()))


def start_path(name, impairment):
    srec = os.path.join(TMP, name + ".serve.json")
    serve = subprocess.Popen([BENCH, "serve", "--listen", "127.0.0.1:0",
                              "--max-seconds", "30", "--record", srec],
                             stderr=subprocess.PIPE)
    PROCS.append(serve)
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)",
                  ready_line(serve, name + " serve"))
    sport = int(m.group(1))
    rrec = os.path.join(TMP, name + ".relay.json")
    for _ in range(5):  # a port picked here may be taken meanwhile
        lport = free_port()
        relay = subprocess.Popen(
            [BENCH, "relay", "--listen", "127.0.0.1:%d" % lport, "--forward",
             "127.0.0.1:%d" % sport, "--max-seconds", "30", "--record", rrec]
            + impairment, stderr=subprocess.PIPE)
        PROCS.append(relay)
        try:
            ready_line(relay, name + " relay")
            return serve, srec, relay, rrec, lport
        except SystemExit:
            if relay.returncode != 3:
                raise
    fail("%s: no free port for the relay" % name)


def run_row(name, impairment, extra):
    serve, srec, relay, rrec, lport = start_path(name, impairment)
    out = os.path.join(TMP, name + ".udp.json")
    p = subprocess.run([BENCH, "udp", "--connect", "127.0.0.1:%d" % lport,
                        "--clients", "4", "--seconds", SECONDS, "--warmup",
                        "0", "--output", out] + extra,
                       capture_output=True, text=True, timeout=60)
    stop(relay, name + " relay")
    stop(serve, name + " serve")
    if p.returncode not in (0, 1):
        fail("%s: udp exit %d: %s" % (name, p.returncode, p.stderr))
    return load(out), load(rrec), load(srec), p


def test_matrix():
    for name, imp in IMPAIRMENTS:
        if ONLY and name not in ONLY:
            continue
        for kind, extra in KINDS:
            udp, relay, serve, p = run_row(name + "-" + kind, imp, extra)
            check_row(name, kind, udp, relay, serve, fail)
            yield name, kind, udp, p


def test_late_is_not_lost(name, kind, udp, p):
    # reordering alone loses nothing: 0.2.0 declared the held-back replies
    # lost, then counted them "stale" when they came
    c = udp["counters"]
    if c["lost"] != 0 or c.get("late", 0) != 0 or \
            udp["external"]["replies"]["stale"] != 0:
        fail("reorder/%s: lost %d, late %d, stale %d: %s" %
             (kind, c["lost"], c.get("late", 0),
              udp["external"]["replies"]["stale"],
              p.stderr))
    if "did not echo" in p.stderr:
        fail("reorder/%s: stderr claims what was not measured: %s" %
             (kind, p.stderr))


def test_loss_keeps_closed_loop(udp, p):
    # the time series goes on: no stretch of slices without a reply is
    # longer than the largest reply timeout in force (+ 0.1 s), the time a
    # slot waits on a lost message (0.2.0: [410, 0, 0, 0] - every slot
    # whose message was lost stayed empty for the rest of the run)
    pts = udp["intervals"]["points"]
    t = udp.get("timeouts", {"timed_out": 0})
    tmax = (t.get("reply_timeout_ms") or {}).get("max", 200) / 1e3
    empty = 0.0
    for pt in pts:
        empty = empty + pt["seconds"] if pt["ops"] == 0 else 0.0
        if empty > tmax + 0.1 or len(pts) < 3:
            fail("loss/closed: %.2f s without a reply (reply timeout at "
                 "most %.3f s): %s" % (empty, tmax,
                                      [pt["ops"] for pt in pts]))
    if t["timed_out"] == 0 or t["reply_timeout_ms"]["min"] < 200:
        fail("loss/closed: timeouts %s" % t)
    failed = [ch["name"] for ch in udp["checks"] if not ch["passed"]]
    # 16 x 200 ms per lost message against 30 us round trips: dominated
    if "timeouts_not_dominant" not in failed or \
            "check timeouts_not_dominant failed" not in p.stderr:
        fail("loss/closed: the run does not say the timeout set the rate: "
             "%s %s" % (failed, p.stderr))
    c = udp["counters"]
    pct = "%.2f %%" % (100.0 * c["lost"] / c["sent"])
    if "lost %d of %d (%s" % (c["lost"], c["sent"], pct) not in p.stderr:
        fail("loss/closed: the summary lacks the loss percentage %s: %s" %
             (pct, p.stderr))


def test_nothing_listening():
    port = free_port()
    out = os.path.join(TMP, "nobody.json")
    p = subprocess.run([BENCH, "udp", "--connect", "127.0.0.1:%d" % port,
                        "--seconds", "0.2", "--warmup", "0", "--output", out],
                       capture_output=True, text=True, timeout=30)
    want = ["netproof-bench udp: nothing listening on 127.0.0.1:%d "
            "(ECONNREFUSED)" % port]
    if p.returncode != 3 or p.stderr.splitlines() != want or \
            os.path.exists(out):
        fail("nothing listening: exit %d, stderr %r" % (p.returncode,
                                                        p.stderr))
    # a socket that reads and never answers (bounded: it closes itself)
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    port = sink.getsockname()[1]
    p = subprocess.run([BENCH, "udp", "--connect", "127.0.0.1:%d" % port,
                        "--seconds", "0.2", "--warmup", "0", "--output", out],
                       capture_output=True, text=True, timeout=30)
    sink.close()
    lines = p.stderr.splitlines()
    if p.returncode != 3 or len(lines) != 1 or not re.fullmatch(
            r"netproof-bench udp: no reply from 127\.0\.0\.1:%d in "
            r"[0-9.]+ s" % port, lines[0]) or os.path.exists(out):
        fail("silent server: exit %d, stderr %r" % (p.returncode, p.stderr))


def self_check(out):
    p = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def test_selfcheck():
    sport, lport = free_port(), free_port()
    plan = {
        "schema": "netproof/plan/1", "suite": "truth-relay",
        "protocol": "udp", "repetitions": 1,
        "services": [
            {"name": "echo",
             "command": ["{bench}", "serve", "--listen",
                         "127.0.0.1:%d" % sport, "--max-seconds", "60",
                         "--record", "{dir}/record.json"],
             "ready": {"udp_bound": "127.0.0.1:%d" % sport},
             "ready_timeout_seconds": 5, "stop_timeout_seconds": 5},
            {"name": "path",
             "command": ["{bench}", "relay", "--listen",
                         "127.0.0.1:%d" % lport, "--forward",
                         "127.0.0.1:%d" % sport, "--loss-percent", "5",
                         "--max-seconds", "60", "--record",
                         "{dir}/record.json"],
             "ready": {"udp_bound": "127.0.0.1:%d" % lport},
             "ready_timeout_seconds": 5, "stop_timeout_seconds": 5}],
        "base": {"connect": "127.0.0.1:%d" % lport, "seconds": 0.5,
                 "warmup": 0.1, "window": 4},
        "dimensions": {"clients": [4]},
    }
    path = os.path.join(TMP, "plan.json")
    with open(path, "w") as f:
        json.dump(plan, f)
    out = os.path.join(TMP, "suite")
    p = subprocess.run([BENCH, "matrix", path, "--output", out, "--quiet"],
                       capture_output=True, text=True, timeout=60)
    cids = os.listdir(os.path.join(out, "runs")) \
        if os.path.isdir(os.path.join(out, "runs")) else []
    if len(cids) != 1:
        fail("matrix through the relay: exit %d: %s" % (p.returncode,
                                                         p.stderr))
    rec = os.path.join(out, "runs", cids[0], "rep-1.json")
    doc = load(rec)
    if doc["timeouts"]["timed_out"] == 0 or doc["counters"]["lost"] == 0:
        fail("matrix through the relay: nothing given up: %s" %
             doc["timeouts"])
    rc, text = self_check(out)
    if rc != 0:
        fail("self-check of the relay suite: exit %d: %s" % (rc, text))
    with open(rec) as f:
        good = f.read()

    def late1(d):
        d["counters"]["late"] += 1

    def verdict(d):
        for ch in d["checks"]:
            if ch["name"] == "timeouts_not_dominant":
                ch["passed"] = not ch["passed"]

    for edit, want in (
            (late1, "/counters/lost: sent - received - late = "),
            (late1, "/timeouts/late: "),
            (lambda d: d["timeouts"].update(
                waiting_seconds=d["timeouts"]["waiting_seconds"] / 2),
             "/timeouts/waiting_fraction: "),
            (lambda d: d["timeouts"].update(
                slot_seconds=d["timeouts"]["slot_seconds"] * 2),
             "/timeouts/slot_seconds: "),
            (verdict, "/checks: timeouts_not_dominant says "),
            (lambda d: d["config"].update(reply_timeout_ms=50),
             "/timeouts/reply_timeout_ms: "),
            # a 0.3.0 record must have the section (older ones are read
            # without it)
            (lambda d: (d["tool"].update(version="0.3.0"),
                        d.pop("timeouts")),
             "/timeouts: missing: ")):
        d = json.loads(good)
        edit(d)
        with open(rec, "w") as f:
            json.dump(d, f)
        rc, text = self_check(out)
        if rc != 1 or want not in text:
            fail("self-check of a tampered record: exit %d, want %r in: %s"
                 % (rc, want, text))
    with open(rec, "w") as f:
        f.write(good)


def main():
    t0 = time.time()
    if not ONLY or "listening" in ONLY:
        test_nothing_listening()
    if not ONLY or "selfcheck" in ONLY:
        test_selfcheck()
    rows = 0
    for name, kind, udp, p in test_matrix():
        rows += 1
        if name == "reorder":
            test_late_is_not_lost(name, kind, udp, p)
        if name == "loss" and kind == "closed":
            test_loss_keeps_closed_loop(udp, p)
    print("truth matrix: %d rows in %.1f s" % (rows, time.time() - t0))
    shutil.rmtree(TMP)


if __name__ == "__main__":
    main()
