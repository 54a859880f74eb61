#!/usr/bin/env python3
"""`netproof-bench udp --connect` against servers we did not write and
`netproof-bench serve` for clients we did not write; loopback only, every
server bounded in time.

- an asyncio echo, socat (UDP4-RECVFROM,fork EXEC:cat: a child and a cat
  per datagram, so it is a verbatim echo only with one datagram in flight -
  the test uses one client with window 1; with more, its fork hand-off
  loses or duplicates datagrams, which the benchmark then reports) and
  `netproof-bench serve`: the records validate, pass, and name the server
  process (pid, command line, exe SHA-256 equal to `sha256sum
  /proc/PID/exe`);
- the overflow probe against serve with a small receive buffer: the loss
  is attributed to the server socket exactly as /proc/net/udp's drops
  column (read here, independently) says, and serve's own record agrees;
- a misbehaving echo (drops, truncates, duplicates, corrupts or reorders
  every 10th datagram): each kind reported with the helper's exact count,
  the run failed (exit 1) with that kind's check as its reason;
- no server at the target (exit 3, "nothing listening on ..."), bad
  --connect / serve options (exit 2, one line), serve stopped by SIGTERM (exit 0, stopped_by) and by its bound.

- a matrix plan whose "services" start `serve` for the suite and whose
  configurations use --connect: runs end to end, every record names the
  service's pid, the service is stopped at the end (its record kept with
  the suite) and the set passes the self-check; a service that never gets
  ready stops the matrix (exit 3, one line) and is killed.

usage: external_test.py NETPROOF_BENCH RUN_SCHEMA NETPROOF_VALIDATE ECHO_SERVERS
       [NETPROOF_REPORT]
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import jsonschema

BENCH, SCHEMA, VALIDATE, HELPER = sys.argv[1:5]
REPORT = sys.argv[5] if len(sys.argv) > 5 else None
with open(SCHEMA) as f:
    VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
TMP = tempfile.mkdtemp(prefix="np-external-test-")
PROCS = []


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    for p in PROCS:
        if p.poll() is None:
            p.kill()
    sys.exit(1)


def check_record(path, status):
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("%s: %s: %s" % (path, "/".join(map(str, errors[0].path)),
                             errors[0].message))
    if doc["status"] != status:
        fail("%s: status %s, expected %s (%s)" % (path, doc["status"], status,
                                                 doc.get("reasons")))
    p = subprocess.run([VALIDATE, path], capture_output=True, text=True)
    if p.returncode != 0:
        fail("netproof-validate %s: %s" % (path, p.stdout + p.stderr))
    return doc


def wait_file(path, proc, what, timeout=10):
    t0 = time.time()
    while not os.path.exists(path):
        if proc.poll() is not None:
            fail("%s exited %s before it was ready" % (what, proc.returncode))
        if time.time() - t0 > timeout:
            fail("%s not ready after %d s" % (what, timeout))
        time.sleep(0.02)


def start_helper(mode, max_s=30, rcvbuf=None):
    port_file = os.path.join(TMP, "%s.port" % mode)
    counts = os.path.join(TMP, "%s.counts.json" % mode)
    args = [sys.executable, HELPER, mode, port_file, str(max_s), counts]
    if rcvbuf:
        args.append(str(rcvbuf))
    p = subprocess.Popen(args)
    PROCS.append(p)
    wait_file(port_file, p, "echo helper " + mode)
    with open(port_file) as f:
        return p, int(f.read()), counts


def stop(p, timeout=10):
    p.send_signal(signal.SIGTERM)
    try:
        return p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("pid %d did not stop on SIGTERM within %d s" % (p.pid, timeout))


def connect(port, args, name, want_rc):
    out = os.path.join(TMP, name + ".json")
    p = subprocess.run([BENCH, "udp", "--connect", "127.0.0.1:%d" % port,
                        "--output", out] + args, capture_output=True,
                       text=True, timeout=60)
    if p.returncode != want_rc:
        fail("%s: exit %d, want %d: %s" % (name, p.returncode, want_rc,
                                           p.stderr))
    return check_record(out, "passed" if want_rc == 0 else "failed"), p


def sha256sum(path):
    p = subprocess.run(["sha256sum", path], capture_output=True, text=True)
    if p.returncode != 0:
        fail("sha256sum %s: %s" % (path, p.stderr))
    return p.stdout.split()[0]


def assert_identity(doc, pid, name):
    procs = doc["external"]["server"]["processes"]
    mine = [p for p in procs if p["pid"] == pid]
    if not mine:
        fail("%s: pid %d not among the holders %s" %
             (name, pid, [p["pid"] for p in procs]))
    want = sha256sum("/proc/%d/exe" % pid)
    if mine[0]["exe_sha256"] != want:
        fail("%s: exe_sha256 %s, sha256sum says %s" %
             (name, mine[0]["exe_sha256"], want))
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        words = [w.decode() for w in f.read().split(b"\0") if w]
    if mine[0]["command_line"] != words:
        fail("%s: command_line %s, /proc says %s" %
             (name, mine[0]["command_line"], words))
    if mine[0]["exe"] != os.readlink("/proc/%d/exe" % pid):
        fail("%s: exe %s" % (name, mine[0]["exe"]))
    if doc["config"]["protocol"] != "udp-external":
        fail("%s: protocol %s" % (name, doc["config"]["protocol"]))
    a = doc["external"]["attribution"]
    if not all(a["possible"].values()) or a["why_not"] is not None:
        fail("%s: attribution not complete for a local target: %s" % (name, a))


def test_asyncio():
    p, port, _ = start_helper("asyncio")
    doc, _ = connect(port, ["--seconds", "0.3", "--clients", "4",
                            "--window", "2"], "asyncio", 0)
    assert_identity(doc, p.pid, "asyncio")
    if doc["counters"]["lost"] != 0 or doc["measurement"]["roundtrips"] <= 0:
        fail("asyncio: counters %s" % doc["counters"])
    stop(p)


def test_socat():
    if shutil.which("socat") is None:
        fail("socat is not installed (scripts/install-deps.sh --test)")
    port_probe = subprocess.run(
        [sys.executable, "-c", "import socket;s=socket.socket(socket.AF_INET,"
         "socket.SOCK_DGRAM);s.bind(('127.0.0.1',0));print(s.getsockname()[1])"],
        capture_output=True, text=True)
    port = int(port_probe.stdout)
    p = subprocess.Popen(["socat", "-T", "1",
                          "UDP4-RECVFROM:%d,bind=127.0.0.1,fork" % port,
                          "EXEC:cat"])
    PROCS.append(p)
    t0 = time.time()
    while not any(":%04X " % port in line for line in open("/proc/net/udp")):
        if time.time() - t0 > 5 or p.poll() is not None:
            fail("socat did not bind port %d" % port)
        time.sleep(0.02)
    doc, _ = connect(port, ["--seconds", "0.3", "--clients", "1",
                            "--window", "1", "--warmup", "0.05"], "socat", 0)
    assert_identity(doc, p.pid, "socat")
    stop(p)


def start_serve(args, name):
    rec = os.path.join(TMP, name + ".serve.json")
    err = open(os.path.join(TMP, name + ".serve.stderr"), "w")
    p = subprocess.Popen([BENCH, "serve", "--listen", "127.0.0.1:0",
                          "--record", rec] + args, stderr=err)
    PROCS.append(p)
    path = err.name
    t0 = time.time()
    while True:
        with open(path) as f:
            text = f.read()
        if "listening on 127.0.0.1:" in text:
            port = int(text.split("listening on 127.0.0.1:")[1].split()[0])
            return p, port, rec
        if p.poll() is not None or time.time() - t0 > 5:
            fail("serve did not start: %s" % text)
        time.sleep(0.02)


def test_serve():
    p, port, rec = start_serve(["--max-seconds", "30"], "serve")
    doc, _ = connect(port, ["--seconds", "0.3", "--clients", "4",
                            "--window", "4"], "to-serve", 0)
    assert_identity(doc, p.pid, "serve")
    # the client's lanes' CPU over exactly the measured window (cJSON
    # prints 15 digits when they read back within its epsilon: the
    # fraction is compared within 1e-12, as the self-check does)
    cc = doc["external"]["client_cpu"]
    lanes = cc["lane_cpu_seconds"]
    frac = max(lanes) / cc["window_seconds"]
    if (len(lanes) != doc["config"]["io_threads"] or
            cc["window_seconds"] != doc["measurement"]["seconds"] or
            not all(0 < x <= cc["window_seconds"] + 0.01 for x in lanes) or
            abs(cc["busiest_fraction"] - frac) > 1e-12 or
            cc["client_saturated"] != (cc["busiest_fraction"] >= 0.90)):
        fail("client_cpu %s" % cc)
    if stop(p) != 0:
        fail("serve stopped by SIGTERM: exit %d, want 0" % p.returncode)
    srv = check_record(rec, "passed")
    s = srv["serve"]
    if s["stopped_by"] != "SIGTERM" or s["pid"] != p.pid:
        fail("serve record: %s" % s)
    sent = doc["counters"]["sent"] + doc["warmup"]["counters"]["sent"]
    if s["counters"]["received"] != sent or s["counters"]["echoed"] != sent:
        fail("serve counted %s, the client sent %d" % (s["counters"], sent))
    if sum(x["received"] for x in s["sockets"]) != sent:
        fail("serve per-socket counters %s" % s["sockets"])
    # the bound ends it too
    p, port, rec = start_serve(["--max-seconds", "0.3", "--backend", "raw",
                                "--io-model", "reuseport", "--io-threads",
                                "2"], "serve-bound")
    if p.wait(10) != 0:
        fail("serve at its bound: exit %d" % p.returncode)
    srv = check_record(rec, "passed")
    if srv["serve"]["stopped_by"] != "max-seconds" or \
            len(srv["serve"]["sockets"]) != 2:
        fail("serve at its bound: %s" % srv["serve"])


def test_ipv6_raw_pool():
    rec = os.path.join(TMP, "v6.serve.json")
    err = open(os.path.join(TMP, "v6.serve.stderr"), "w")
    p = subprocess.Popen([BENCH, "serve", "--listen", "[::1]:0", "--record",
                          rec, "--max-seconds", "30"], stderr=err)
    PROCS.append(p)
    t0 = time.time()
    while "listening on [::1]:" not in open(err.name).read():
        if p.poll() is not None or time.time() - t0 > 5:
            fail("serve [::1] did not start")
        time.sleep(0.02)
    port = int(open(err.name).read().split("listening on [::1]:")[1].split()[0])
    out = os.path.join(TMP, "v6.json")
    r = subprocess.run([BENCH, "udp", "--connect", "[::1]:%d" % port,
                        "--seconds", "0.2", "--backend", "raw", "--io-model",
                        "pool", "--io-threads", "2", "--output", out],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        fail("[::1] raw pool: exit %d: %s" % (r.returncode, r.stderr))
    doc = check_record(out, "passed")
    sock = doc["external"]["server"]["sockets"]
    if [x["table"] for x in sock] != ["/proc/net/udp6"] or \
            sock[0]["local"] != "[::1]:%d" % port or \
            doc["config"]["io_threads"] != 2 or \
            doc["external"]["target"]["family"] != "ipv6":
        fail("[::1] raw pool: %s" % doc["external"])
    assert_identity(doc, p.pid, "serve [::1]")
    stop(p)
    check_record(rec, "passed")


def proc_udp_drops(port):
    """drops of the socket bound to 127.0.0.1:port, from /proc/net/udp."""
    for line in open("/proc/net/udp").readlines()[1:]:
        f = line.split()
        if f[1] == "0100007F:%04X" % port and f[2] == "00000000:0000":
            return int(f[-1])
    fail("no socket bound to 127.0.0.1:%d in /proc/net/udp" % port)


def test_overflow_probe():
    p, port, rec = start_serve(["--max-seconds", "30",
                                "--udp-receive-buffer", "8192"], "probe")
    before = proc_udp_drops(port)
    doc, _ = connect(port, ["--seconds", "0.3", "--clients", "16",
                            "--window", "64", "--payload", "4096",
                            "--warmup", "0"], "probe", 1)
    after = proc_udp_drops(port)
    stop(p)
    a = doc["external"]["attribution"]
    sock = doc["external"]["server"]["sockets"]
    if len(sock) != 1 or sock[0]["before"]["drops"] != before or \
            sock[0]["after"]["drops"] != after:
        fail("probe: record's server socket %s, /proc/net/udp said %d -> %d"
             % (sock, before, after))
    if after - before <= 0 or a["server_socket"] != after - before:
        fail("probe: server_socket %s, /proc/net/udp drops %d" %
             (a["server_socket"], after - before))
    if a["lost"] != a["client_socket"] + a["server_socket"] + a["in_between"]:
        fail("probe: attribution does not add up: %s" % a)
    if a["in_between"] != 0:
        fail("probe: serve echoes all it reads, yet in_between %d" %
             a["in_between"])
    if not any(r.startswith("no_loss: lost %d" % a["lost"])
               for r in doc["reasons"]):
        fail("probe: reasons %s" % doc["reasons"])
    srv = check_record(rec, "failed")
    if srv["sockets"]["kernel_drops"] != after - before:
        fail("probe: serve's own drops %d, /proc/net/udp %d" %
             (srv["sockets"]["kernel_drops"], after - before))


# mode -> (the check that must fail, the record field holding its count)
MISBEHAVIOUR = {
    "drop": ("no_loss", ("attribution", "in_between")),
    "truncate": ("no_wrong_length", ("replies", "wrong_length")),
    "duplicate": ("no_duplicates", ("replies", "duplicates")),
    "corrupt": ("no_corruption", ("replies", "corrupted")),
    "reorder": ("no_reordering", ("replies", "reordered")),
}


def test_misbehaving():
    for mode, (check, (part, field)) in MISBEHAVIOUR.items():
        p, port, counts = start_helper(mode)
        clients = ["--clients", "4", "--window", "8"] if mode == "drop" \
            else ["--clients", "1", "--window", "4"]
        doc, run = connect(port, ["--seconds", "0.3", "--warmup", "0"] +
                           clients, mode, 1)
        stop(p)
        with open(counts) as f:
            acted = json.load(f)["acted"]
        got = doc["external"][part][field]
        if acted <= 0 or got != acted:
            fail("%s: record says %s = %s, the helper did it %d times" %
                 (mode, field, got, acted))
        failed = [c["name"] for c in doc["checks"] if not c["passed"]]
        # dropping every 10th datagram leaves each slot waiting on reply
        # timeouts most of the time: the run says the timeout set the rate
        want = [check] + (["timeouts_not_dominant"] if mode == "drop"
                          else [])
        if failed != want:
            fail("%s: failed checks %s, want %s" % (mode, failed, want))
        if not doc["reasons"][0].startswith("%s: %d " % (check, acted)) and \
                not doc["reasons"][0].startswith("%s: lost %d " % (check, acted)):
            fail("%s: reason %r" % (mode, doc["reasons"]))
        if "check %s failed" % check not in run.stderr:
            fail("%s: stderr %r" % (mode, run.stderr))
        if mode == "drop":
            a = doc["external"]["attribution"]
            if a["lost"] != acted or a["server_socket"] != 0 or \
                    a["client_socket"] != 0:
                fail("drop: attribution %s" % a)


def test_no_server():
    # a local port nobody listens on: every send is refused (ICMP port
    # unreachable); not a server that lost everything but none at all:
    # exit 3, one line, no record
    probe = subprocess.run(
        [sys.executable, "-c", "import socket;s=socket.socket(socket.AF_INET,"
         "socket.SOCK_DGRAM);s.bind(('127.0.0.1',0));print(s.getsockname()[1])"],
        capture_output=True, text=True)
    port = int(probe.stdout)
    out = os.path.join(TMP, "nobody.json")
    p = subprocess.run([BENCH, "udp", "--connect", "127.0.0.1:%d" % port,
                        "--output", out, "--seconds", "0.2", "--clients", "2",
                        "--warmup", "0"], capture_output=True, text=True,
                       timeout=60)
    want = "netproof-bench udp: nothing listening on 127.0.0.1:%d " \
           "(ECONNREFUSED)" % port
    if p.returncode != 3 or p.stderr.strip().splitlines() != [want] or \
            os.path.exists(out):
        fail("no server: exit %d, stderr %r, record %s" %
             (p.returncode, p.stderr, os.path.exists(out)))


def test_usage():
    cases = [
        ["udp", "--connect", "127.0.0.1"], ["udp", "--connect", "localhost:9"],
        ["udp", "--connect", "::1:9"], ["udp", "--connect", "127.0.0.1:0"],
        ["udp", "--connect", "127.0.0.1:70000"],
        ["udp", "--connect", "127.0.0.1:9", "--work", "5"],
        ["udp", "--connect", "127.0.0.1:9", "--address", "::1"],
        ["udp", "--connect", "127.0.0.1:9", "--io-model", "split"],
        # the reply timeout is --connect's closed loop's
        ["udp", "--reply-timeout-ms", "50"],
        ["udp", "--connect", "127.0.0.1:9", "--rate", "100",
         "--reply-timeout-ms", "50"],
        ["udp", "--connect", "127.0.0.1:9", "--reply-timeout-ms", "-1"],
        ["serve"], ["serve", "--listen", "127.0.0.1:9", "--io-model", "pool"],
        ["serve", "--listen", "127.0.0.1:9", "--max-seconds", "0"],
        ["serve", "--listen", "127.0.0.1:9", "--io-threads", "2"],
        ["serve", "--listen", "127.0.0.1:9", "--payload", "5"],
        ["serve", "--listen", "127.0.0.1:9", "--record", "/nonexistent/x.json"],
    ]
    for args in cases:
        p = subprocess.run([BENCH] + args, capture_output=True, text=True,
                           timeout=10)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or p.stdout:
            fail("usage %s: exit %d, stderr %r" % (args, p.returncode,
                                                   p.stderr))
    p = subprocess.run([BENCH, "serve", "--help"], capture_output=True,
                       text=True)
    if p.returncode != 0 or "--max-seconds" not in p.stdout or \
            "[600]" not in p.stdout:
        fail("serve --help: %r" % p.stdout)


def free_port():
    probe = subprocess.run(
        [sys.executable, "-c", "import socket;s=socket.socket(socket.AF_INET,"
         "socket.SOCK_DGRAM);s.bind(('127.0.0.1',0));print(s.getsockname()[1])"],
        capture_output=True, text=True)
    return int(probe.stdout)


def test_matrix_services():
    port = free_port()
    plan = {
        "schema": "netproof/plan/1", "suite": "connect-serve",
        "protocol": "udp", "repetitions": 2,
        "services": [{
            "name": "echo",
            "command": ["{bench}", "serve", "--listen", "127.0.0.1:%d" % port,
                        "--max-seconds", "60", "--record",
                        "{dir}/record.json"],
            "ready": {"udp_bound": "127.0.0.1:%d" % port},
            "ready_timeout_seconds": 5, "stop_timeout_seconds": 5}],
        "base": {"connect": "127.0.0.1:%d" % port, "seconds": 0.2,
                 "warmup": 0.05},
        "dimensions": {"clients": [1, 4]},
    }
    path = os.path.join(TMP, "plan.json")
    with open(path, "w") as f:
        json.dump(plan, f)
    out = os.path.join(TMP, "suite")
    p = subprocess.run([BENCH, "matrix", path, "--output", out, "--dry-run"],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0 or "service echo: " + BENCH not in p.stdout and \
            "service echo:" not in p.stdout:
        fail("matrix --dry-run: %d %r %r" % (p.returncode, p.stdout, p.stderr))
    p = subprocess.run([BENCH, "matrix", path, "--output", out, "--quiet"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail("matrix with services: exit %d: %s" % (p.returncode, p.stderr))
    srv = check_record(os.path.join(out, "services/echo/record.json"),
                       "passed")
    if srv["serve"]["stopped_by"] != "SIGTERM":
        fail("service record: %s" % srv["serve"])
    with open(os.path.join(out, "services/echo/service.txt")) as f:
        status = f.read()
    if "ready: udp_bound 127.0.0.1:%d after" % port not in status or \
            "ended: the suite ended: SIGTERM at" not in status or \
            "exit 0" not in status:
        fail("service.txt: %s" % status)
    runs = 0
    for cid in os.listdir(os.path.join(out, "runs")):
        for n in (1, 2):
            doc = check_record(os.path.join(out, "runs", cid,
                                            "rep-%d.json" % n), "passed")
            runs += 1
            pids = [x["pid"] for x in doc["external"]["server"]["processes"]]
            if pids != [srv["serve"]["pid"]]:
                fail("%s rep %d: server pids %s, service pid %d" %
                     (cid, n, pids, srv["serve"]["pid"]))
    if runs != 4:
        fail("matrix with services: %d records" % runs)
    sent = srv["serve"]["counters"]["received"]
    if sent <= 0 or sent != srv["serve"]["counters"]["echoed"]:
        fail("service counters %s" % srv["serve"]["counters"])
    if REPORT:
        p = subprocess.run([REPORT, "--self-check", "--results", out],
                           capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            fail("self-check of the services suite: %s" % (p.stdout +
                                                           p.stderr))
        # a report on the set is titled by the server that answered
        rep = os.path.join(TMP, "report")
        p = subprocess.run([REPORT, "--results", out, "--output", rep],
                           capture_output=True, text=True, timeout=60)
        with open(os.path.join(rep, "index.md")) as f:
            head = f.readline()
        want = "# UDP echo server netproof-bench at 127.0.0.1:%d (exe " \
            "SHA-256 %s), measured with netproof" % (
                port, sha256sum(BENCH)[:12])
        if p.returncode != 0 or head.strip() != want:
            fail("report title %r, want %r (%s)" % (head, want, p.stderr))
        # the udp-external rules: tampered counts are named
        cid = sorted(os.listdir(os.path.join(out, "runs")))[0]
        rec = os.path.join(out, "runs", cid, "rep-1.json")
        with open(rec) as f:
            good = f.read()
        for edit, ptr in (
                (lambda d: d["external"]["replies"].update(duplicates=1),
                 "/external/replies"),
                (lambda d: d["external"]["attribution"].update(in_between=3),
                 "/external/attribution/in_between"),
                (lambda d: d["external"]["server"]["sockets"][0]["after"]
                 .update(drops=d["external"]["server"]["sockets"][0]
                         ["before"]["drops"] + 2),
                 "/external/attribution/server_socket"),
                (lambda d: d["external"]["client_cpu"].update(
                    client_saturated=not d["external"]["client_cpu"]["client_saturated"]),
                 "/external/client_cpu/client_saturated"),
                (lambda d: d["external"]["client_cpu"].update(
                    lane_cpu_seconds=[d["measurement"]["seconds"] * 2]),
                 "/external/client_cpu/lane_cpu_seconds"),
                (lambda d: d["external"]["client_cpu"].update(
                    busiest_fraction=0.95),
                 "/external/client_cpu/busiest_fraction")):
            d = json.loads(good)
            edit(d)
            with open(rec, "w") as f:
                json.dump(d, f)
            p = subprocess.run([REPORT, "--self-check", "--results", out],
                               capture_output=True, text=True, timeout=30)
            if p.returncode != 1 or ptr not in p.stdout + p.stderr:
                fail("self-check of a tampered %s: exit %d: %s" %
                     (ptr, p.returncode, p.stdout + p.stderr))
        with open(rec, "w") as f:
            f.write(good)
    # a service that never gets ready: the matrix stops, kills it
    plan["suite"] = "never-ready"
    plan["services"] = [{"name": "sleeper", "command": ["sleep", "30"],
                         "ready": {"udp_bound": "127.0.0.1:%d" % port},
                         "ready_timeout_seconds": 0.5}]
    with open(path, "w") as f:
        json.dump(plan, f)
    out2 = os.path.join(TMP, "suite2")
    t0 = time.time()
    p = subprocess.run([BENCH, "matrix", path, "--output", out2, "--quiet"],
                       capture_output=True, text=True, timeout=30)
    lines = p.stderr.strip().splitlines()
    if p.returncode != 3 or "service sleeper: not ready after 0.5 s" not in \
            p.stderr or time.time() - t0 > 10:
        fail("never-ready service: exit %d: %r" % (p.returncode, p.stderr))
    with open(os.path.join(out2, "services/sleeper/service.txt")) as f:
        status = f.read()
    pid = int(status.split("pid: ")[1].split()[0])
    if os.path.exists("/proc/%d" % pid) and \
            open("/proc/%d/stat" % pid).read().split()[2] != "Z":
        fail("never-ready service pid %d still runs" % pid)
    if "not ready: SIGTERM" not in status:
        fail("never-ready service.txt: %s" % status)
    del lines


def main():
    try:
        test_usage()
        test_asyncio()
        test_socat()
        test_serve()
        test_ipv6_raw_pool()
        test_overflow_probe()
        test_misbehaving()
        test_no_server()
        test_matrix_services()
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.kill()
                p.wait()
    shutil.rmtree(TMP)
    print("external_test: ok")


main()
