#!/usr/bin/env python3
"""summary_kinds_test.py NETPROOF_BENCH NETPROOF_VALIDATE - every kind's
--summary json carries its headline counts and metrics, and is valid
against the shipped schema netproof/run-summary/1 (issue 28: relay's had
one number, exec's no metric value, and netproof-validate had "no shipped
schema" for it).

A serve, a relay in front of it and a udp --connect client through the
relay, all on 127.0.0.1 with ports the kernel picks, every process bounded
by --max-seconds / --seconds:
- udp: lost and lost_percent beside sent and received;
- relay: routes, both directions' received / forwarded / lost and
  lost_percent, TCP connections - with the client's datagrams counted;
- serve: received and echoed, equal to what the relay forwarded;
- exec: exit_code, wall_seconds and "metrics" by name (a failed metric is
  null);
- netproof-validate accepts every summary and refuses one without
  failed_checks or with a string for a count.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, VALIDATE = sys.argv[1], sys.argv[2]
T = nptest.Checks()
check = T.check


def env():
    e = dict(os.environ)
    e.pop("NETPROOF_RUNNER_SESSION", None)
    return e


def start(argv, ready):
    """Start argv; wait for the stderr line matching ready; (proc, match)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        m = re.search(ready, line)
        if m:
            return p, m
    p.kill()
    p.wait()
    raise SystemExit("FAIL: %s never said %r" % (argv[:2], ready))


def stop(p):
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    stop.err = err
    return out


def valid(doc, tmp, name):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([VALIDATE, path], capture_output=True, text=True,
                       timeout=20)
    return r.returncode == 0, r.stdout + r.stderr


def one(out, what):
    lines = out.strip().splitlines()
    check(len(lines) == 1, "%s: one summary line, got %r" % (what, out[:300]))
    try:
        return json.loads(lines[-1])
    except (ValueError, IndexError):
        return {}


def main():
    with nptest.tmpdir(prefix="np-summary-kinds-test-", checks=T) as tmp:
        run(tmp)
    return T.done("summary_kinds_test: udp, serve, relay and exec summaries "
                  "carry their headline figures and are valid run-summary/1")


def run(tmp):
    serve, m = start([BENCH, "serve", "--listen", "127.0.0.1:0",
                      "--max-seconds", "30", "--summary", "json"],
                     r"listening on 127\.0\.0\.1:(\d+)")
    sport = m.group(1)
    relay, m = start([BENCH, "relay", "--listen", "127.0.0.1:0", "--forward",
                      "127.0.0.1:" + sport, "--max-seconds", "30",
                      "--summary", "json"], r"ready: udp 127\.0\.0\.1:(\d+)")
    rport = m.group(1)
    c = subprocess.run([BENCH, "udp", "--connect", "127.0.0.1:" + rport,
                        "--clients", "2", "--seconds", "0.3", "--warmup", "0",
                        "--summary", "json"], capture_output=True, text=True,
                       timeout=60, env=env())
    udp = one(c.stdout, "udp --connect")
    rel = one(stop(relay), "relay")
    check(", 2 routes; " in stop.err and " 0 connections, " in stop.err,
          "relay's line: plural routes and connections: %r" % stop.err)
    srv = one(stop(serve), "serve")

    check(udp.get("sent", 0) > 0 and "lost" in udp and
          "lost_percent" in udp, "udp: sent, lost, lost_percent: %s" % udp)
    if udp.get("sent"):
        check(abs(udp["lost_percent"] - 100.0 * udp["lost"] / udp["sent"])
              < 1e-9, "udp: lost_percent = 100 lost / sent: %s" % udp)

    for k in ("routes", "c2s_received", "c2s_forwarded", "c2s_lost",
              "c2s_lost_percent", "s2c_received", "s2c_forwarded",
              "s2c_lost", "s2c_lost_percent", "relay_overflow",
              "relay_errors", "tcp_connections", "uptime_seconds"):
        check(isinstance(rel.get(k), (int, float)), "relay: %s: %s" % (k, rel))
    check(rel.get("protocol") == "relay" and rel.get("routes") == 2 and
          rel.get("c2s_received", 0) >= udp.get("sent", 1) > 0,
          "relay: 2 routes, the client's datagrams counted: %s" % rel)

    check(srv.get("protocol") == "serve" and
          srv.get("received") == rel.get("c2s_forwarded") and
          srv.get("echoed") == srv.get("received"),
          "serve: received = relay's c2s_forwarded, all echoed: %s / %s"
          % (srv, rel))

    e = subprocess.run([BENCH, "exec", "--timeout", "5", "--metric",
                        "x=regex:v=([0-9.]+)", "--metric",
                        "y=regex:w=([0-9]+)", "--summary", "json", "--keep",
                        os.path.join(tmp, "e"), "--", "echo", "v=3.5"],
                       capture_output=True, text=True, timeout=30, env=env())
    ex = one(e.stdout, "exec")
    check(ex.get("metrics") == {"x": 3.5, "y": None},
          "exec: metrics by name, the failed one null: %s" % ex)
    check(ex.get("exit_code") == 0 and ex.get("outcome") == "exited" and
          ex.get("wall_seconds", -1) >= 0 and
          ex.get("failed_checks") == ["metric_y"],
          "exec: outcome, exit code, wall time, failed check: %s" % ex)

    for name, doc in (("udp", udp), ("relay", rel), ("serve", srv),
                      ("exec", ex)):
        ok, text = valid(doc, tmp, name)
        check(ok, "%s summary valid against run-summary/1: %s" % (name, text))
    bad = dict(udp)
    bad.pop("failed_checks", None)
    ok, text = valid(bad, tmp, "bad1")
    check(not ok and "failed_checks" in text,
          "a summary without failed_checks is refused: %s" % text)
    bad = dict(rel, routes="two")
    ok, text = valid(bad, tmp, "bad2")
    check(not ok and "/routes" in text,
          "a count given as text is refused: %s" % text)


if __name__ == "__main__":
    sys.exit(main())
