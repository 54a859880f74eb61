#!/usr/bin/env python3
"""Services measure the service (issue 26 item 4): a plan's services are
ready only when the socket that answers belongs to the service's own
process, a service that ends during the suite fails it, and suite.json
records every service so the self-check can hold each passed repetition
to the window where its service was ready and alive.  Loopback only;
every listener here is bounded in time.

- a foreign UDP echo already on the port: the plan's `serve` (started
  0.5 s late, so the check sees the foreign socket first) cannot bind it
  and exits; the matrix exits 3 naming the service, its exit status and
  the foreign pid, and no repetition ran (the old check passed against the
  foreign echo and every repetition "passed" against it, exit 0);
- the same with a foreign TCP listener and a tcp_connect service;
- a good suite (serve with udp_echo, started through `sh -c 'sleep 0.3;
  exec ...'`, and a python TCP listener with tcp_connect): exit 0,
  suite.json's session lists both services (pid, exe SHA-256 equal to
  sha256sum of the program that answered, not of the shell, ready_at, ended by the
  runner at the suite's end, the owner pid), and the self-check passes;
  then suite.json forged so a passed repetition lies outside a service's
  window (ready_at later, ended_at earlier), and a service said to have
  ended by itself in a complete session: each refused, exit 1, naming the
  field;
- a service killed (SIGKILL) mid-suite: exit 3 naming it and the signal,
  no repetition after the kill, no passed record outside its window, and
  the set self-checks as incomplete (exit 4), without problems.

usage: matrix_services_test.py NETPROOF_BENCH NETPROOF_REPORT
"""
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, REPORT = sys.argv[1:3]
T = nptest.Checks(stream=sys.stderr, fatal=True)
fail = T.fail
TMP = T.scratch("np-services-test-")
PROCS = []

# A foreign server with a hard time bound: UDP echo or TCP accept loop.
FOREIGN = r"""
import socket, sys, time
kind, port, bound = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
end = time.time() + bound
if kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    s.settimeout(0.2)
    print("ready", flush=True)
    while time.time() < end:
        try:
            d, a = s.recvfrom(65536)
            s.sendto(d, a)
        except socket.timeout:
            pass
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    s.settimeout(0.2)
    print("ready", flush=True)
    while time.time() < end:
        try:
            c, a = s.accept()
            c.close()
        except socket.timeout:
            pass
"""


def kill_procs():
    """Stop every listener and runner this test started."""
    for p in PROCS:
        if p.poll() is None:
            p.kill()
            p.wait()


T.at_fail(kill_procs)


def free_port(kind):
    s = socket.socket(socket.AF_INET,
                      socket.SOCK_DGRAM if kind == "udp" else
                      socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def foreign(kind, port, bound=60):
    p = subprocess.Popen([sys.executable, "-c", FOREIGN, kind, str(port),
                          str(bound)], stdout=subprocess.PIPE, text=True)
    PROCS.append(p)
    if p.stdout.readline().strip() != "ready":
        fail("foreign %s listener on %d did not start" % (kind, port))
    return p


def stop(p):
    if p.poll() is None:
        p.kill()
    p.wait()


def sha256sum(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def serve(port, check="udp_bound", seconds=30, delay=0):
    cmd = ["{bench}", "serve", "--listen", "127.0.0.1:%d" % port,
           "--max-seconds", str(seconds)]
    if delay:  # slow to start: the old check saw the foreign socket first
        cmd = ["sh", "-c", "sleep %g; exec \"$0\" \"$@\"" % delay] + cmd
    return {"name": "echo",
            "command": cmd,
            "ready": {check: "127.0.0.1:%d" % port},
            "ready_timeout_seconds": 5, "stop_timeout_seconds": 5}


def tcp_service(port, delay=0):
    # a TCP listener of its own, bounded to 30 s
    code = ("import socket,time;time.sleep(%g);s=socket.socket();" % delay +
            "s.bind(('127.0.0.1',%d));s.listen(8);s.settimeout(0.2);"
            "end=time.time()+30\n"
            "while time.time()<end:\n"
            " try: s.accept()[0].close()\n"
            " except socket.timeout: pass\n" % port)
    return {"name": "tcpsvc", "command": [sys.executable, "-c", code],
            "ready": {"tcp_connect": "127.0.0.1:%d" % port},
            "ready_timeout_seconds": 5, "stop_timeout_seconds": 2}


def plan(name, port, services, reps=2, seconds=0.2):
    return {"schema": "netproof/plan/1", "suite": name, "protocol": "udp",
            "repetitions": reps, "services": services,
            "base": {"connect": "127.0.0.1:%d" % port, "seconds": seconds,
                     "warmup": 0.05},
            "configurations": [{"clients": 1}]}


def run_matrix(doc, out, timeout=60):
    path = os.path.join(TMP, doc["suite"] + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return nptest.run([BENCH, "matrix", path, "--output", out, "--quiet"],
                      timeout=timeout)


def records(out):
    found = []
    runs = os.path.join(out, "runs")
    for cid in sorted(os.listdir(runs)) if os.path.isdir(runs) else []:
        for f in sorted(os.listdir(os.path.join(runs, cid))):
            if f.startswith("rep-") and f.endswith(".json"):
                with open(os.path.join(runs, cid, f)) as g:
                    found.append(json.load(g))
    return found


def session_services(out):
    with open(os.path.join(out, "suite.json")) as f:
        suite = json.load(f)
    return suite, suite["sessions"][-1].get("services")


def self_check(out):
    return nptest.run([REPORT, "--self-check", "--results", out], timeout=60)


def test_foreign_udp():
    for check in ("udp_bound", "udp_echo"):
        port = free_port("udp")
        fp = foreign("udp", port)
        out = os.path.join(TMP, "foreign-" + check)
        t0 = time.time()
        rc, _, err = run_matrix(plan("foreign-" + check, port,
                                     [serve(port, check, delay=0.5)]), out)
        stop(fp)
        if rc != 3 or "service echo exited before it was ready" \
                not in err or "held by pid %d" % fp.pid not in err:
            fail("%s with a foreign echo on the port: exit %d: %s" %
                 (check, rc, err))
        if time.time() - t0 > 20:
            fail("%s: took %.1f s" % (check, time.time() - t0))
        passed = [r for r in records(out) if r["status"] == "passed"]
        if passed:
            fail("%s: %d repetitions passed against the foreign echo" %
                 (check, len(passed)))
        suite, svcs = session_services(out)
        if not svcs or svcs[0]["ended"]["by"] != "itself" or \
                svcs[0]["ended"]["exit_code"] in (0, None) or \
                "ready_at" in svcs[0] or suite["status"] != "error":
            fail("%s: suite.json services %s, status %s" %
                 (check, svcs, suite["status"]))


def test_foreign_tcp():
    port, uport = free_port("tcp"), free_port("udp")
    fp = foreign("tcp", port)
    out = os.path.join(TMP, "foreign-tcp")
    rc, _, err = run_matrix(plan("foreign-tcp", uport,
                                 [serve(uport), tcp_service(port, delay=0.5)]),
                            out)
    stop(fp)
    if rc != 3 or "service tcpsvc exited before it was ready" \
            not in err or \
            "tcp_connect 127.0.0.1:%d is held by pid %d" % (port, fp.pid) \
            not in err:
        fail("tcp_connect with a foreign listener: exit %d: %s" % (rc, err))
    if records(out):
        fail("foreign tcp: repetitions ran")


def forge(out, edit):
    path = os.path.join(out, "suite.json")
    with open(path) as f:
        good = f.read()
    doc = json.loads(good)
    edit(doc)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    res = self_check(out)
    with open(path, "w") as f:
        f.write(good)
    return res


def test_good_suite():
    port, tport = free_port("udp"), free_port("tcp")
    out = os.path.join(TMP, "good")
    rc, _, err = run_matrix(plan("good", port,
                                 [serve(port, "udp_echo", delay=0.3),
                                  tcp_service(tport)]), out)
    if rc != 0:
        fail("good suite: exit %d: %s" % (rc, err))
    recs = records(out)
    if len(recs) != 2 or any(r["status"] != "passed" for r in recs):
        fail("good suite: %s" % [r["status"] for r in recs])
    suite, svcs = session_services(out)
    if [s["name"] for s in svcs or []] != ["echo", "tcpsvc"]:
        fail("good suite: services %s" % svcs)
    for s, exe in zip(svcs, (BENCH, sys.executable)):
        want = sha256sum(os.path.realpath(exe))
        if s["exe_sha256"] != want or s["pid"] <= 0 or \
                s["pid"] not in s["ready"]["owner_pids"] or \
                s["ended"]["by"] != "runner" or \
                s["ended"]["reason"] != "the suite ended" or \
                s["lost_during_suite"] or \
                not s["started_at"] <= s["ready_at"] <= s["ended_at"]:
            fail("good suite: service record %s (exe SHA-256 %s)" % (s, want))
    with open(os.path.join(out, "services/echo/service.txt")) as f:
        txt = f.read()
    if "pid: %d\n" % svcs[0]["pid"] not in txt:
        fail("service.txt names the pid: %s" % txt)
    rc, sout, err = self_check(out)
    if rc != 0:
        fail("good suite self-check: %s" % (sout + err))
    first = min(r["started_at"] for r in recs)
    last = max(r["ended_at"] for r in recs)
    cases = (
        (lambda d: d["sessions"][-1]["services"][1].update(ready_at=last),
         "/sessions/0/services/1/ready_at"),
        (lambda d: d["sessions"][-1]["services"][0].update(ended_at=first),
         "/sessions/0/services/0/ended_at"),
        (lambda d: d["sessions"][-1]["services"][0]["ended"].update(
            by="itself", reason="ended during the suite"),
         "/sessions/0/services/0/ended"),
        (lambda d: d["sessions"][-1]["services"].pop(),
         "/sessions/0/services"),
    )
    for edit, ptr in cases:
        rc, sout, err = forge(out, edit)
        if rc != 1 or ptr not in sout:
            fail("forged %s: exit %d: %s" % (ptr, rc, sout + err))


def test_killed_mid_suite():
    port = free_port("udp")
    out = os.path.join(TMP, "killed")
    path = os.path.join(TMP, "killed.json")
    with open(path, "w") as f:
        json.dump(plan("killed", port, [serve(port)], reps=8, seconds=0.3), f)
    m = subprocess.Popen([BENCH, "matrix", path, "--output", out, "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    PROCS.append(m)
    rep1 = None
    t0 = time.time()
    while rep1 is None and time.time() - t0 < 30 and m.poll() is None:
        for d, _, files in os.walk(os.path.join(out, "runs")):
            if "rep-1.json" in files:
                rep1 = d
        time.sleep(0.02)
    if rep1 is None:
        fail("killed: no first repetition (exit %s)" % m.poll())
    with open(os.path.join(out, "services/echo/service.txt")) as f:
        pid = int(f.read().split("pid: ")[1].split()[0])
    os.kill(pid, signal.SIGKILL)
    killed_at = time.time()
    try:
        _, err = m.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        fail("killed: the matrix did not stop")
    if m.returncode != 3 or "service echo ended during the suite " \
            "(signal SIGKILL)" not in err:
        fail("killed service: exit %d: %s" % (m.returncode, err))
    recs = records(out)
    if not 1 <= len(recs) <= 2 or any(r["status"] != "passed" for r in recs):
        fail("killed: records %s" % [(r["status"], r["started_at"])
                                     for r in recs])
    suite, svcs = session_services(out)
    s = svcs[0]
    if s["ended"]["by"] != "itself" or s["ended"]["signal"] != "SIGKILL" or \
            not s["lost_during_suite"]:
        fail("killed: service record %s" % s)
    for r in recs:
        if r["ended_at"] > s["ended_at"]:
            fail("killed: a passed record ends after the service: %s > %s" %
                 (r["ended_at"], s["ended_at"]))
    if time.time() - killed_at > 20:
        fail("killed: the matrix took %.1f s to stop" %
             (time.time() - killed_at))
    rc, sout, err = self_check(out)
    if rc != 4 or "problem" in sout:
        fail("killed: self-check exit %d: %s" % (rc, sout + err))


def main():
    try:
        test_foreign_udp()
        test_foreign_tcp()
        test_good_suite()
        test_killed_mid_suite()
    finally:
        kill_procs()
    return T.done("matrix_services_test: ok")  # TMP kept only on a failure


sys.exit(main())
